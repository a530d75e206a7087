// How metrics-server's numbers look on the wire: CPU as a DecimalSI quantity built from nanocores,
// memory as a BinarySI quantity built from bytes (both in apimachinery's canonical form), the window
// as Go's time.Duration text and timestamps as metav1.Time (RFC 3339, whole seconds).

const DECIMAL_SUFFIX: Readonly<Record<number, string>> = { [-9]: "n", [-6]: "u", [-3]: "m", 0: "", 3: "k", 6: "M", 9: "G", 12: "T", 15: "P", 18: "E" };
const BINARY_SUFFIX = ["", "Ki", "Mi", "Gi", "Ti", "Pi", "Ei"] as const;

/** Canonical DecimalSI text of value x 10^scale (integer value): trailing zeros folded into m/k/M suffixes. */
export function formatDecimalSI(value: number, scale: number): string {
  if (!Number.isSafeInteger(value)) value = Math.trunc(value);
  if (value === 0) return "0";
  let mantissa = BigInt(value);
  let exponent = scale;
  while (mantissa % 10n === 0n) {
    mantissa /= 10n;
    exponent++;
  }
  const mod = ((exponent % 3) + 3) % 3;
  if (mod === 1) {
    mantissa *= 10n;
    exponent -= 1;
  } else if (mod === 2) {
    mantissa *= 100n;
    exponent -= 2;
  }
  const suffix = DECIMAL_SUFFIX[exponent];
  return suffix === undefined ? `${mantissa}e${exponent}` : `${mantissa}${suffix}`;
}

/** resource.NewScaledQuantity(nanocores, -9).String(): "97m", "1234567n", "2". */
export function formatCpuNanoCores(nanoCores: number): string {
  return formatDecimalSI(Math.floor(nanoCores), -9);
}

/** resource.NewQuantity(bytes, BinarySI).String(): "1328Mi", "2748180Ki", "1025"; below 1024 DecimalSI ("1k"). */
export function formatMemoryBytes(bytes: number): string {
  const v = Math.floor(bytes);
  if (v > -1024 && v < 1024) return formatDecimalSI(v, 0);
  let mantissa = BigInt(v);
  let power = 0;
  while (power < BINARY_SUFFIX.length - 1 && mantissa % 1024n === 0n) {
    mantissa /= 1024n;
    power++;
  }
  return `${mantissa}${BINARY_SUFFIX[power]}`;
}

function fraction(value: number, digits: number): string {
  if (value === 0) return "";
  return "." + String(value).padStart(digits, "0").replace(/0+$/, "");
}

/** Go's time.Duration.String() for a non-negative integer of nanoseconds: "15s", "20.064s", "1m30s", "500ms". */
export function formatGoDuration(ns: number): string {
  const d = Math.max(0, Math.round(ns));
  if (d === 0) return "0s";
  if (d < 1e3) return `${d}ns`;
  if (d < 1e6) return `${Math.floor(d / 1e3)}${fraction(d % 1e3, 3)}µs`;
  if (d < 1e9) return `${Math.floor(d / 1e6)}${fraction(d % 1e6, 6)}ms`;
  const totalSeconds = Math.floor(d / 1e9);
  const frac = fraction(d % 1e9, 9);
  const h = Math.floor(totalSeconds / 3600);
  const m = Math.floor((totalSeconds % 3600) / 60);
  const s = totalSeconds % 60;
  return `${h > 0 ? `${h}h` : ""}${h > 0 || m > 0 ? `${m}m` : ""}${s}${frac}s`;
}

/** metav1.Time's JSON form: RFC 3339 in UTC with whole seconds. */
export function formatMetaTime(epochMs: number): string {
  return new Date(Math.floor(epochMs / 1000) * 1000).toISOString().replace(/\.\d{3}Z$/, "Z");
}

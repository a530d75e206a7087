// Kubernetes resource.Quantity ("250m", "128Mi", "1e3"): parsing with the API server's rules
// (k8s.io/apimachinery/pkg/api/resource/quantity.go) to an exact decimal, plus the integer
// views the scheduler and metrics use (Value and MilliValue round up, away from zero).
import { err, ok, type Result } from "../util/result.js";

export const QuantityFormat = {
  DECIMAL_SI: "DecimalSI",
  BINARY_SI: "BinarySI",
  DECIMAL_EXPONENT: "DecimalExponent",
} as const;
export type QuantityFormat = (typeof QuantityFormat)[keyof typeof QuantityFormat];

/** An exact quantity: mantissa x 10^exponent, as written in `text`. */
export interface Quantity {
  readonly text: string;
  readonly format: QuantityFormat;
  readonly mantissa: bigint;
  readonly exponent: number;
}

const SPLIT_RE = "^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$";
const FORMAT_WRONG = `quantities must match the regular expression '${SPLIT_RE}'`;
const SUFFIX_WRONG = "unable to parse quantity's suffix";
const SUFFIX_CHARS = "eEinumkKMGTP";
const MAX_INT32 = 2147483647;
const NANO = -9;
/** BinarySI quantities are capped at the largest int64, as upstream does. */
const MAX_ALLOWED = (1n << 63n) - 1n;

const DECIMAL_SUFFIX: Readonly<Record<string, number>> = { n: -9, u: -6, m: -3, "": 0, k: 3, M: 6, G: 9, T: 12, P: 15, E: 18 };
const BINARY_SUFFIX: Readonly<Record<string, number>> = { Ki: 10, Mi: 20, Gi: 30, Ti: 40, Pi: 50, Ei: 60 };

interface Scanned {
  positive: boolean;
  num: string;
  denom: string;
  suffix: string;
}

const isDigit = (c: string | undefined): boolean => c !== undefined && c >= "0" && c <= "9";

/** The upstream scanner: sign, integer digits, optional fraction, then the suffix characters. */
function scan(str: string): Scanned | null {
  let pos = 0;
  let positive = true;
  if (str[0] === "-") {
    positive = false;
    pos++;
  } else if (str[0] === "+") pos++;
  while (pos < str.length && str[pos] === "0") pos++;
  if (pos >= str.length) return { positive, num: "0", denom: "", suffix: "" };
  let i = pos;
  while (isDigit(str[i])) i++;
  const num = str.slice(pos, i) || "0";
  pos = i;
  let denom = "";
  if (str[pos] === ".") {
    pos++;
    i = pos;
    while (isDigit(str[i])) i++;
    denom = str.slice(pos, i);
    pos = i;
  }
  const suffixStart = pos;
  while (pos < str.length && SUFFIX_CHARS.includes(str[pos]!)) pos++;
  if (str[pos] === "-" || str[pos] === "+") pos++;
  while (isDigit(str[pos])) pos++;
  if (pos < str.length) return null;
  return { positive, num, denom, suffix: str.slice(suffixStart) };
}

function interpretSuffix(s: string): { base: 2 | 10; exponent: number; format: QuantityFormat } | null {
  const dec = DECIMAL_SUFFIX[s];
  if (dec !== undefined) return { base: 10, exponent: dec, format: QuantityFormat.DECIMAL_SI };
  const bin = BINARY_SUFFIX[s];
  if (bin !== undefined) return { base: 2, exponent: bin, format: QuantityFormat.BINARY_SI };
  if (s.length > 1 && (s[0] === "e" || s[0] === "E")) {
    const rest = s.slice(1);
    if (!/^[+-]?\d+$/.test(rest)) return null;
    const e = Number(rest);
    if (Math.abs(e) > MAX_INT32) return null;
    return { base: 10, exponent: e, format: QuantityFormat.DECIMAL_EXPONENT };
  }
  return null;
}

/** Divides |m| by 10^digits rounding away from zero; m keeps its sign. */
function roundAwayFromZero(m: bigint, digits: number): bigint {
  if (m === 0n) return 0n;
  const negative = m < 0n;
  const abs = negative ? -m : m;
  if (digits > abs.toString().length) return negative ? -1n : 1n;
  const div = 10n ** BigInt(digits);
  const q = abs / div + (abs % div === 0n ? 0n : 1n);
  return negative ? -q : q;
}

/** Parses a quantity as the API server does; the error text is upstream's. */
export function parseQuantity(text: string): Result<Quantity, string> {
  if (text.length === 0) return err(FORMAT_WRONG);
  const s = scan(text);
  if (s === null) return err(FORMAT_WRONG);
  const suffix = interpretSuffix(s.suffix);
  if (suffix === null) return err(SUFFIX_WRONG);
  let mantissa = BigInt(s.num + s.denom);
  let exponent = -s.denom.length;
  if (suffix.base === 10) exponent += suffix.exponent;
  else mantissa *= 1n << BigInt(suffix.exponent);
  if (!s.positive) mantissa = -mantissa;
  // Upstream rounds non-zero values up to the nano scale ("3.001n" is 4n).
  if (exponent < NANO) {
    mantissa = roundAwayFromZero(mantissa, NANO - exponent);
    exponent = NANO;
  }
  let format = suffix.format;
  if (format === QuantityFormat.BINARY_SI) {
    const abs = mantissa < 0n ? -mantissa : mantissa;
    const tooLarge =
      exponent >= 0 ? abs * 10n ** BigInt(exponent) > MAX_ALLOWED : abs > MAX_ALLOWED * 10n ** BigInt(-exponent);
    if (tooLarge) {
      mantissa = mantissa < 0n ? -MAX_ALLOWED : MAX_ALLOWED;
      exponent = 0;
    }
    // A binary quantity between 0 and 1 becomes DecimalSI ("0.000000000001Ki" is 2n).
    if (abs !== 0n && compareAbsToOne(abs, exponent) < 0) format = QuantityFormat.DECIMAL_SI;
  }
  return ok({ text, format, mantissa, exponent });
}

/** Compares a positive abs x 10^exponent with 1. */
function compareAbsToOne(abs: bigint, exponent: number): number {
  if (exponent >= 0) return abs === 1n && exponent === 0 ? 0 : 1;
  const one = 10n ** BigInt(-exponent);
  return abs < one ? -1 : abs === one ? 0 : 1;
}

/** ceil(q x 10^-scale) away from zero; Infinity when it does not fit a double. */
function scaled(q: Quantity, scale: number): number {
  const e = q.exponent - scale;
  if (e > 40) return q.mantissa === 0n ? 0 : q.mantissa > 0n ? Infinity : -Infinity;
  const v = e >= 0 ? q.mantissa * 10n ** BigInt(e) : roundAwayFromZero(q.mantissa, -e);
  return Number(v);
}

/** Integer value rounded up (bytes for memory, a count for pods): upstream Quantity.Value(). */
export function quantityValue(q: Quantity): number {
  return scaled(q, 0);
}

/** Value in thousandths rounded up (millicores for cpu): upstream Quantity.MilliValue(). */
export function quantityMilliValue(q: Quantity): number {
  return scaled(q, -3);
}

/** -1, 0 or 1 as a compares to b, exactly. */
export function compareQuantities(a: Quantity, b: Quantity): number {
  const e = Math.min(a.exponent, b.exponent);
  const av = a.mantissa * 10n ** BigInt(a.exponent - e);
  const bv = b.mantissa * 10n ** BigInt(b.exponent - e);
  return av < bv ? -1 : av > bv ? 1 : 0;
}

export function isNegativeQuantity(q: Quantity): boolean {
  return q.mantissa < 0n;
}

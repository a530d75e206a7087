// What a workload declares it uses: constant CPU and memory, plus CPU time and memory per request
// served. Read from pod annotations (`usage.cnisim.io/*`) so manifests can model system pods, or
// given by the workload itself.
import { parseDuration, parseQuantity, type Quantity } from "../k8s/index.js";
import { err, ok, type Result } from "../util/result.js";

export interface DeclaredUsage {
  readonly cpuNanoCores: number;
  readonly memoryBytes: number;
  /** CPU time per request served, in ns. */
  readonly cpuNsPerRequest: number;
  readonly memoryBytesPerRequest: number;
}

export const USAGE_ANNOTATIONS = {
  /** A CPU quantity: "27m", "0.5", "150000n". */
  cpu: "usage.cnisim.io/cpu",
  /** A memory quantity: "57Mi". */
  memory: "usage.cnisim.io/memory",
  /** CPU time per request: "200us". */
  cpuPerRequest: "usage.cnisim.io/cpu-per-request",
  /** Memory kept per request served: "4Ki". */
  memoryPerRequest: "usage.cnisim.io/memory-per-request",
} as const;

export interface UsageError {
  /** Where: "metadata.annotations[usage.cnisim.io/cpu]". */
  readonly path: string;
  readonly reason: string;
}

/** A non-negative quantity in units of 10^-scale (scale 9: nanocores, 0: bytes), rounded up. */
export function quantityScaled(q: Quantity, scale: number): number {
  const e = q.exponent + scale;
  if (e >= 0) return Number(q.mantissa * 10n ** BigInt(e));
  const div = 10n ** BigInt(-e);
  return Number(q.mantissa / div + (q.mantissa % div === 0n ? 0n : 1n));
}

function quantityField(text: string, path: string, scale: number): Result<number, UsageError> {
  const q = parseQuantity(text);
  if (!q.ok) return err({ path, reason: q.error });
  if (q.value.mantissa < 0n) return err({ path, reason: "must not be negative" });
  return ok(quantityScaled(q.value, scale));
}

/** The usage a pod's annotations declare; null when it has none of them. */
export function usageFromAnnotations(annotations: Readonly<Record<string, string>> | undefined): Result<DeclaredUsage | null, UsageError> {
  const a = annotations ?? {};
  const present = Object.values(USAGE_ANNOTATIONS).some((k) => a[k] !== undefined);
  if (!present) return ok(null);
  const path = (k: string): string => `metadata.annotations[${k}]`;
  const fields = {
    cpuNanoCores: a[USAGE_ANNOTATIONS.cpu] === undefined ? ok(0) : quantityField(a[USAGE_ANNOTATIONS.cpu]!, path(USAGE_ANNOTATIONS.cpu), 9),
    memoryBytes: a[USAGE_ANNOTATIONS.memory] === undefined ? ok(0) : quantityField(a[USAGE_ANNOTATIONS.memory]!, path(USAGE_ANNOTATIONS.memory), 0),
    memoryBytesPerRequest:
      a[USAGE_ANNOTATIONS.memoryPerRequest] === undefined ? ok(0) : quantityField(a[USAGE_ANNOTATIONS.memoryPerRequest]!, path(USAGE_ANNOTATIONS.memoryPerRequest), 0),
  };
  for (const f of Object.values(fields)) if (!f.ok) return f;
  let cpuNsPerRequest = 0;
  const perRequest = a[USAGE_ANNOTATIONS.cpuPerRequest];
  if (perRequest !== undefined) {
    const d = parseDuration(perRequest);
    if (!d.ok) return err({ path: path(USAGE_ANNOTATIONS.cpuPerRequest), reason: d.error });
    cpuNsPerRequest = d.value;
  }
  const value = (r: Result<number, UsageError>): number => (r.ok ? r.value : 0);
  return ok({
    cpuNanoCores: value(fields.cpuNanoCores),
    memoryBytes: value(fields.memoryBytes),
    cpuNsPerRequest,
    memoryBytesPerRequest: value(fields.memoryBytesPerRequest),
  });
}

// Resource amounts as the scheduler counts them: a pod's effective requests (containers summed,
// init containers and restartable sidecars folded in, overhead added: component-helpers PodRequests)
// and a node's allocatable. Sums are exact (nano units) and rounded up once, as Quantity sums are.
import type { PodSpec } from "kubernetes-types/core/v1.js";
import { parseQuantity } from "../k8s/index.js";

export const CPU = "cpu";
export const MEMORY = "memory";
export const EPHEMERAL_STORAGE = "ephemeral-storage";
export const PODS = "pods";

/** kube-scheduler's assumed request of a container that states none (schedutil.DefaultMilliCPURequest / DefaultMemoryRequest). */
export const DEFAULT_MILLI_CPU_REQUEST = 100;
export const DEFAULT_MEMORY_REQUEST = 200 * 1024 * 1024;

/** Integer amounts: cpu in millicores, everything else in units (bytes, counts). */
export interface Resources {
  readonly milliCPU: number;
  readonly memory: number;
  readonly ephemeralStorage: number;
  /** Extended resources, hugepages-*, and anything else, by name; zero entries are left out. */
  readonly scalar: ReadonlyMap<string, number>;
}

type Exact = Map<string, bigint>;
type ResourceList = Readonly<Record<string, string>> | undefined;

const NANO_PER_UNIT = 1_000_000_000n;
const NANO_PER_MILLI = 1_000_000n;
const NON_ZERO_DEFAULTS: ReadonlyMap<string, bigint> = new Map([
  [CPU, BigInt(DEFAULT_MILLI_CPU_REQUEST) * NANO_PER_MILLI],
  [MEMORY, BigInt(DEFAULT_MEMORY_REQUEST) * NANO_PER_UNIT],
]);

/** Parsed quantities by their text ("100m", "500Mi"): the same few strings recur on every pod. */
const nanosCache = new Map<string, bigint | null>();
const NANOS_CACHE_LIMIT = 10_000;

function nanosOf(text: string): bigint | null {
  const hit = nanosCache.get(text);
  if (hit !== undefined) return hit;
  const q = parseQuantity(text);
  // The loader rejects bad quantities; a hand-built object may still carry one: it counts as absent.
  const v = q.ok ? q.value.mantissa * 10n ** BigInt(q.value.exponent + 9) : null;
  if (nanosCache.size < NANOS_CACHE_LIMIT) nanosCache.set(text, v);
  return v;
}

function exact(list: ResourceList): Exact {
  const out: Exact = new Map();
  if (list === undefined) return out;
  for (const name in list) {
    const v = nanosOf(list[name]!);
    if (v !== null) out.set(name, v);
  }
  return out;
}

function addInto(into: Exact, from: Exact): void {
  for (const [k, v] of from) into.set(k, (into.get(k) ?? 0n) + v);
}

function maxInto(into: Exact, from: Exact): void {
  for (const [k, v] of from) {
    const cur = into.get(k);
    if (cur === undefined || v > cur) into.set(k, v);
  }
}

/** A copy of `reqs` where a missing cpu or memory request takes the scheduler's default. */
function withDefaults(reqs: Exact): Exact {
  const out = new Map(reqs);
  for (const [k, v] of NON_ZERO_DEFAULTS) if (!reqs.has(k)) out.set(k, v);
  return out;
}

/**
 * The pod's effective requests. With `nonZero`, containers that request no cpu/memory count as
 * requesting the defaults (the NonZeroRequested view used by scoring).
 */
function podRequestsExact(spec: PodSpec, nonZero: boolean): Exact {
  const prepare = (list: ResourceList): Exact => (nonZero ? withDefaults(exact(list)) : exact(list));
  const reqs: Exact = new Map();
  for (const c of spec.containers ?? []) addInto(reqs, prepare(c.resources?.requests));
  const sidecars: Exact = new Map();
  const initMax: Exact = new Map();
  for (const c of spec.initContainers ?? []) {
    const own = prepare(c.resources?.requests);
    let inUse: Exact;
    if (c.restartPolicy === "Always") {
      // A sidecar keeps running: it adds to the pod's total and to every later init container.
      addInto(reqs, own);
      addInto(sidecars, own);
      inUse = new Map(sidecars);
    } else {
      inUse = new Map(own);
      addInto(inUse, sidecars);
    }
    maxInto(initMax, inUse);
  }
  maxInto(reqs, initMax);
  if (spec.overhead !== undefined) addInto(reqs, exact(spec.overhead));
  return reqs;
}

const ceilDiv = (n: bigint, d: bigint): number => Number(n <= 0n ? n / d : (n + d - 1n) / d);

function toResources(e: Exact): Resources {
  const scalar = new Map<string, number>();
  const names = [...e.keys()].filter((k) => k !== CPU && k !== MEMORY && k !== EPHEMERAL_STORAGE && k !== PODS);
  if (names.length > 1) names.sort();
  for (const k of names) {
    const v = e.get(k)!;
    const value = ceilDiv(v, NANO_PER_UNIT);
    if (value !== 0) scalar.set(k, value);
  }
  return {
    milliCPU: ceilDiv(e.get(CPU) ?? 0n, NANO_PER_MILLI),
    memory: ceilDiv(e.get(MEMORY) ?? 0n, NANO_PER_UNIT),
    ephemeralStorage: ceilDiv(e.get(EPHEMERAL_STORAGE) ?? 0n, NANO_PER_UNIT),
    scalar,
  };
}

/** The pod's requests (Fit's filter view). */
export function podRequests(spec: PodSpec): Resources {
  return toResources(podRequestsExact(spec, false));
}

/** The pod's requests with the scheduler's defaults for unset cpu/memory (the scoring view). */
export function podNonZeroRequests(spec: PodSpec): Resources {
  return toResources(podRequestsExact(spec, true));
}

/** A node's allocatable: the resources plus the pod count limit. */
export interface Allocatable extends Resources {
  readonly pods: number;
}

export function allocatableOf(list: ResourceList): Allocatable {
  const e = exact(list);
  return { ...toResources(e), pods: ceilDiv(e.get(PODS) ?? 0n, NANO_PER_UNIT) };
}

/** Amount of a named resource (cpu in millicores). */
export function amountOf(r: Resources, name: string): number {
  switch (name) {
    case CPU:
      return r.milliCPU;
    case MEMORY:
      return r.memory;
    case EPHEMERAL_STORAGE:
      return r.ephemeralStorage;
    default:
      return r.scalar.get(name) ?? 0;
  }
}

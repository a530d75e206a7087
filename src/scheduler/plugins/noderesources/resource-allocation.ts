// Shared scoring of the NodeResources plugins (noderesources/resource_allocation.go and the
// strategies least_allocated.go, most_allocated.go, requested_to_capacity_ratio.go): per resource,
// the node's requested amount after adding the pod against its allocatable, folded by a scorer.
import type { ResourceSpec, UtilizationShapePoint } from "../../config/args.js";
import { MAX_NODE_SCORE } from "../../framework/plugin.js";
import type { NodeInfo } from "../../node-info.js";
import { amountOf, CPU, EPHEMERAL_STORAGE, MEMORY, type Resources } from "../../resources.js";

/** (requested per resource, allocatable per resource) -> node score. */
export type ResourceScorer = (requested: readonly number[], allocatable: readonly number[]) => number;

/** How each configured resource is read from a node: 0 cpu, 1 memory, 2 ephemeral-storage, 3 other (scalar). */
export function resourceKinds(resources: readonly ResourceSpec[]): Int8Array {
  return Int8Array.from(resources.map((r) => (r.name === CPU ? 0 : r.name === MEMORY ? 1 : r.name === EPHEMERAL_STORAGE ? 2 : 3)));
}

/** The pod's request of each configured resource. */
export function podRequestList(pod: Resources, resources: readonly ResourceSpec[]): number[] {
  return resources.map((r) => amountOf(pod, r.name));
}

/**
 * resourceAllocationScorer.score. `useRequested` reads the node's plain requests (BalancedAllocation);
 * otherwise cpu and memory are read from the non-zero sums (Fit's strategies). A resource the pod does
 * not request and that is not cpu/memory/ephemeral-storage is left out, as is one the node lacks.
 */
export function scoreNode(
  node: NodeInfo,
  podRequests: readonly number[],
  resources: readonly ResourceSpec[],
  kinds: Int8Array,
  useRequested: boolean,
  scorer: ResourceScorer,
  requestedBuf: number[],
  allocatableBuf: number[],
): number {
  for (let i = 0; i < kinds.length; i++) {
    const podRequest = podRequests[i]!;
    let alloc = 0;
    let req = 0;
    switch (kinds[i]) {
      case 0:
        alloc = node.allocMilliCPU;
        req = (useRequested ? node.reqMilliCPU : node.nonZeroMilliCPU) + podRequest;
        break;
      case 1:
        alloc = node.allocMemory;
        req = (useRequested ? node.reqMemory : node.nonZeroMemory) + podRequest;
        break;
      case 2:
        alloc = node.allocEphemeral;
        req = node.reqEphemeral + podRequest;
        break;
      default: {
        if (podRequest === 0) break;
        const name = resources[i]!.name;
        alloc = node.allocScalar.get(name) ?? 0;
        req = (node.reqScalar.get(name) ?? 0) + podRequest;
      }
    }
    allocatableBuf[i] = alloc;
    requestedBuf[i] = alloc === 0 ? 0 : req;
  }
  return scorer(requestedBuf, allocatableBuf);
}

function weightedAverage(resources: readonly ResourceSpec[], perResource: (requested: number, capacity: number) => number): ResourceScorer {
  return (requested, allocatable) => {
    let nodeScore = 0;
    let weightSum = 0;
    for (let i = 0; i < requested.length; i++) {
      if (allocatable[i] === 0) continue;
      const weight = resources[i]!.weight;
      nodeScore += perResource(requested[i]!, allocatable[i]!) * weight;
      weightSum += weight;
    }
    return weightSum === 0 ? 0 : Math.trunc(nodeScore / weightSum);
  };
}

/** LeastAllocated: (capacity - requested) / capacity, 0 when over-committed. */
export function leastAllocatedScorer(resources: readonly ResourceSpec[]): ResourceScorer {
  return weightedAverage(resources, (requested, capacity) => {
    if (capacity === 0 || requested > capacity) return 0;
    return Math.trunc(((capacity - requested) * MAX_NODE_SCORE) / capacity);
  });
}

/** MostAllocated: requested / capacity, capped at full. */
export function mostAllocatedScorer(resources: readonly ResourceSpec[]): ResourceScorer {
  return weightedAverage(resources, (requested, capacity) => {
    if (capacity === 0) return 0;
    return Math.trunc((Math.min(requested, capacity) * MAX_NODE_SCORE) / capacity);
  });
}

const MAX_UTILIZATION = 100;
/** config.MaxCustomPriorityScore: shape scores are 0-10 and are scaled to MaxNodeScore. */
const MAX_CUSTOM_PRIORITY_SCORE = 10;

/** helper.BuildBrokenLinearFunction over (utilization, score) points sorted by utilization. */
function brokenLinear(shape: readonly { u: number; s: number }[]): (p: number) => number {
  return (p) => {
    for (let i = 0; i < shape.length; i++) {
      if (p <= shape[i]!.u) {
        if (i === 0) return shape[0]!.s;
        const a = shape[i - 1]!;
        const b = shape[i]!;
        return a.s + Math.trunc(((b.s - a.s) * (p - a.u)) / (b.u - a.u));
      }
    }
    return shape[shape.length - 1]!.s;
  };
}

/** RequestedToCapacityRatio: a piecewise-linear function of utilization; resources scoring 0 do not count. */
export function requestedToCapacityRatioScorer(resources: readonly ResourceSpec[], shape: readonly UtilizationShapePoint[]): ResourceScorer {
  const fn = brokenLinear(shape.map((p) => ({ u: p.utilization, s: p.score * (MAX_NODE_SCORE / MAX_CUSTOM_PRIORITY_SCORE) })));
  const perResource = (requested: number, capacity: number): number =>
    capacity === 0 || requested > capacity ? fn(MAX_UTILIZATION) : fn(Math.trunc((requested * MAX_UTILIZATION) / capacity));
  return (requested, allocatable) => {
    let nodeScore = 0;
    let weightSum = 0;
    for (let i = 0; i < requested.length; i++) {
      if (allocatable[i] === 0) continue;
      const weight = resources[i]!.weight;
      const s = perResource(requested[i]!, allocatable[i]!);
      if (s > 0) {
        nodeScore += s * weight;
        weightSum += weight;
      }
    }
    return weightSum === 0 ? 0 : Math.round(nodeScore / weightSum);
  };
}

/** BalancedAllocation: 1 - the standard deviation of the requested fractions (capped at 1). */
export const balancedScorer: ResourceScorer = (requested, allocatable) => {
  const fractions: number[] = [];
  let total = 0;
  for (let i = 0; i < requested.length; i++) {
    if (allocatable[i] === 0) continue;
    const f = Math.min(requested[i]! / allocatable[i]!, 1);
    total += f;
    fractions.push(f);
  }
  let std = 0;
  if (fractions.length === 2) std = Math.abs((fractions[0]! - fractions[1]!) / 2);
  else if (fractions.length > 2) {
    const mean = total / fractions.length;
    let sum = 0;
    for (const f of fractions) sum += (f - mean) * (f - mean);
    std = Math.sqrt(sum / fractions.length);
  }
  return Math.trunc((1 - std) * MAX_NODE_SCORE);
};

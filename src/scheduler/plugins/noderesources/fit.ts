// NodeResourcesFit: the pod's requests must fit the node's allocatable minus what its pods request,
// and the node must have room for one more pod; nodes are scored by the configured strategy
// (LeastAllocated by default) over the non-zero requests.
import { ScoringStrategyType, type NodeResourcesFitArgs } from "../../config/args.js";
import type { Plugin, StateData } from "../../framework/plugin.js";
import type { NodeInfo } from "../../node-info.js";
import type { Resources } from "../../resources.js";
import { unschedulable } from "../../status.js";
import { PluginName } from "../names.js";
import {
  leastAllocatedScorer,
  mostAllocatedScorer,
  podRequestList,
  requestedToCapacityRatioScorer,
  resourceKinds,
  scoreNode,
  type ResourceScorer,
} from "./resource-allocation.js";

export interface InsufficientResource {
  readonly resource: string;
  readonly reason: string;
}

/** v1helper.IsExtendedResourceName: a prefixed name outside kubernetes.io/ (and not a quota requests. name). */
export function isExtendedResourceName(name: string): boolean {
  return name.includes("/") && !name.startsWith("kubernetes.io/") && !name.startsWith("requests.");
}

/** The common case without allocating: the pod fits (fitsRequest finds nothing). */
function fitsQuickly(req: Resources, node: NodeInfo): boolean {
  if (node.pods.length + 1 > node.allocPods || req.scalar.size > 0) return false;
  return (
    req.milliCPU <= node.allocMilliCPU - node.reqMilliCPU &&
    req.memory <= node.allocMemory - node.reqMemory &&
    req.ephemeralStorage <= node.allocEphemeral - node.reqEphemeral
  );
}

/** fitsRequest: every shortfall, in upstream's order (pods, cpu, memory, ephemeral-storage, then the rest). */
export function insufficientResources(
  req: Resources,
  node: NodeInfo,
  ignored: ReadonlySet<string> = new Set(),
  ignoredGroups: ReadonlySet<string> = new Set(),
): InsufficientResource[] {
  const out: InsufficientResource[] = [];
  if (node.pods.length + 1 > node.allocPods) out.push({ resource: "pods", reason: "Too many pods" });
  if (req.milliCPU === 0 && req.memory === 0 && req.ephemeralStorage === 0 && req.scalar.size === 0) return out;
  if (req.milliCPU > 0 && req.milliCPU > node.allocMilliCPU - node.reqMilliCPU) out.push({ resource: "cpu", reason: "Insufficient cpu" });
  if (req.memory > 0 && req.memory > node.allocMemory - node.reqMemory) out.push({ resource: "memory", reason: "Insufficient memory" });
  if (req.ephemeralStorage > 0 && req.ephemeralStorage > node.allocEphemeral - node.reqEphemeral) {
    out.push({ resource: "ephemeral-storage", reason: "Insufficient ephemeral-storage" });
  }
  for (const [name, quantity] of req.scalar) {
    if (quantity === 0) continue;
    if (isExtendedResourceName(name) && (ignored.has(name) || ignoredGroups.has(name.split("/")[0]!))) continue;
    if (quantity > (node.allocScalar.get(name) ?? 0) - (node.reqScalar.get(name) ?? 0)) out.push({ resource: name, reason: `Insufficient ${name}` });
  }
  return out;
}

class PodRequests implements StateData {
  constructor(readonly list: readonly number[]) {}
  clone(): StateData {
    return this;
  }
}

export function strategyScorer(args: NodeResourcesFitArgs): ResourceScorer {
  const s = args.scoringStrategy;
  switch (s.type) {
    case ScoringStrategyType.MOST_ALLOCATED:
      return mostAllocatedScorer(s.resources);
    case ScoringStrategyType.REQUESTED_TO_CAPACITY_RATIO:
      return requestedToCapacityRatioScorer(s.resources, s.shape);
    default:
      return leastAllocatedScorer(s.resources);
  }
}

export function fitPlugin(args: NodeResourcesFitArgs): Plugin {
  const name = PluginName.NODE_RESOURCES_FIT;
  const ignored = new Set(args.ignoredResources);
  const ignoredGroups = new Set(args.ignoredResourceGroups);
  const resources = args.scoringStrategy.resources;
  const kinds = resourceKinds(resources);
  const scorer = strategyScorer(args);
  const reqBuf: number[] = [];
  const allocBuf: number[] = [];
  return {
    name,
    preFilter() {
      return { status: null };
    },
    filter(state, node) {
      if (fitsQuickly(state.pod.requests, node)) return null;
      const short = insufficientResources(state.pod.requests, node, ignored, ignoredGroups);
      return short.length === 0 ? null : unschedulable(name, ...short.map((s) => s.reason));
    },
    preScore(state) {
      state.data.set(name, new PodRequests(podRequestList(state.pod.nonZeroRequests, resources)));
      return null;
    },
    score(state, node) {
      const list = state.read<PodRequests>(name)?.list ?? podRequestList(state.pod.nonZeroRequests, resources);
      return scoreNode(node, list, resources, kinds, false, scorer, reqBuf, allocBuf);
    },
  };
}

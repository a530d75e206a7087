// A pod as the scheduler sees it (framework.PodInfo): requests, host ports and affinity terms parsed
// once and cached per (immutable, store-frozen) pod object.
import type { Pod } from "kubernetes-types/core/v1.js";
import type { Labels } from "../k8s/selector.js";
import { affinityTerm, weightedAffinityTerm, type AffinityTerm, type WeightedAffinityTerm } from "./affinity-term.js";
import { podHostPorts, type HostPort } from "./host-ports.js";
import { podNonZeroRequests, podRequests, type Resources } from "./resources.js";

export interface PodInfo {
  readonly pod: Pod;
  /** "namespace/name" */
  readonly key: string;
  readonly namespace: string;
  readonly name: string;
  readonly labels: Labels;
  readonly priority: number;
  readonly requests: Resources;
  /** Requests with the scheduler's cpu/memory defaults for containers that state none. */
  readonly nonZeroRequests: Resources;
  readonly hostPorts: readonly HostPort[];
  readonly requiredAffinityTerms: readonly AffinityTerm[];
  readonly requiredAntiAffinityTerms: readonly AffinityTerm[];
  readonly preferredAffinityTerms: readonly WeightedAffinityTerm[];
  readonly preferredAntiAffinityTerms: readonly WeightedAffinityTerm[];
  /** spec.affinity.podAffinity or podAntiAffinity is set (NodeInfo.PodsWithAffinity). */
  readonly hasPodAffinity: boolean;
  readonly hasRequiredAntiAffinity: boolean;
  /** metadata.deletionTimestamp is set. */
  readonly terminating: boolean;
}

const cache = new WeakMap<object, PodInfo>();

export function podKey(pod: Pod): string {
  return `${pod.metadata?.namespace ?? "default"}/${pod.metadata?.name ?? ""}`;
}

export function podInfo(pod: Pod): PodInfo {
  const hit = cache.get(pod);
  if (hit !== undefined) return hit;
  const namespace = pod.metadata?.namespace ?? "default";
  const spec = pod.spec ?? { containers: [] };
  const pa = spec.affinity?.podAffinity;
  const paa = spec.affinity?.podAntiAffinity;
  const info: PodInfo = {
    pod,
    key: podKey(pod),
    namespace,
    name: pod.metadata?.name ?? "",
    labels: pod.metadata?.labels ?? {},
    priority: spec.priority ?? 0,
    requests: podRequests(spec),
    nonZeroRequests: podNonZeroRequests(spec),
    hostPorts: podHostPorts(pod),
    requiredAffinityTerms: (pa?.requiredDuringSchedulingIgnoredDuringExecution ?? []).map((t) => affinityTerm(namespace, t)),
    requiredAntiAffinityTerms: (paa?.requiredDuringSchedulingIgnoredDuringExecution ?? []).map((t) => affinityTerm(namespace, t)),
    preferredAffinityTerms: (pa?.preferredDuringSchedulingIgnoredDuringExecution ?? []).map((t) => weightedAffinityTerm(namespace, t)),
    preferredAntiAffinityTerms: (paa?.preferredDuringSchedulingIgnoredDuringExecution ?? []).map((t) => weightedAffinityTerm(namespace, t)),
    hasPodAffinity: pa !== undefined || paa !== undefined,
    hasRequiredAntiAffinity: (paa?.requiredDuringSchedulingIgnoredDuringExecution ?? []).length > 0,
    terminating: pod.metadata?.deletionTimestamp !== undefined,
  };
  cache.set(pod, info);
  return info;
}

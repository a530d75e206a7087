// InterPodAffinity's PreFilter and Filter (interpodaffinity/filtering.go): counts, per topology pair,
// the existing pods whose required anti-affinity matches the incoming pod and the existing pods that
// match the incoming pod's required (anti-)affinity terms; a node is rejected in this order: pod
// affinity unmet, pod anti-affinity hit, an existing pod's anti-affinity hit.
import type { Labels } from "../../../k8s/selector.js";
import { matchesAllTerms, mergeNamespaces, type AffinityTerm } from "../../affinity-term.js";
import type { CycleState, Handle, StateData } from "../../framework/plugin.js";
import type { NodeInfo } from "../../node-info.js";
import type { PodInfo } from "../../pod-info.js";
import { SKIP_STATUS, unresolvable, unschedulable, type Status } from "../../status.js";
import { TopologyCounts } from "./topology-counts.js";

export const ERR_REASON_EXISTING_ANTI_AFFINITY = "node(s) didn't satisfy existing pods anti-affinity rules";
export const ERR_REASON_AFFINITY = "node(s) didn't match pod affinity rules";
export const ERR_REASON_ANTI_AFFINITY = "node(s) didn't match pod anti-affinity rules";

export class FilterState implements StateData {
  constructor(
    readonly pod: PodInfo,
    readonly affinityTerms: readonly AffinityTerm[],
    readonly antiAffinityTerms: readonly AffinityTerm[],
    readonly namespaceLabels: Labels,
    readonly existingAntiAffinity: TopologyCounts,
    readonly affinityCounts: TopologyCounts,
    readonly antiAffinityCounts: TopologyCounts,
  ) {}

  clone(): FilterState {
    return new FilterState(
      this.pod,
      this.affinityTerms,
      this.antiAffinityTerms,
      this.namespaceLabels,
      this.existingAntiAffinity.clone(),
      this.affinityCounts.clone(),
      this.antiAffinityCounts.clone(),
    );
  }

  /** preFilterState.updateWithPod: `other` added (+1) to or removed (-1) from `node`. */
  updateWithPod(other: PodInfo, node: NodeInfo, delta: 1 | -1): void {
    this.existingAntiAffinity.updateWithAntiAffinityTerms(other.requiredAntiAffinityTerms, this.pod, this.namespaceLabels, node.labels, delta);
    this.affinityCounts.updateWithAffinityTerms(this.affinityTerms, other, node.labels, delta);
    this.antiAffinityCounts.updateWithAntiAffinityTerms(this.antiAffinityTerms, other, null, node.labels, delta);
  }
}

export function preFilter(name: string, state: CycleState, handle: Handle): Status | null {
  const pod = state.pod;
  const namespaces = handle.cache.namespaces;
  const affinityTerms = pod.requiredAffinityTerms.map((t) => mergeNamespaces(t, namespaces));
  const antiAffinityTerms = pod.requiredAntiAffinityTerms.map((t) => mergeNamespaces(t, namespaces));
  const nsLabels = namespaces.get(pod.namespace) ?? {};
  const existing = new TopologyCounts();
  for (const node of handle.cache.withRequiredAntiAffinity()) {
    for (const other of node.podsWithRequiredAntiAffinity) existing.updateWithAntiAffinityTerms(other.requiredAntiAffinityTerms, pod, nsLabels, node.labels, 1);
  }
  const affinity = new TopologyCounts();
  const anti = new TopologyCounts();
  const hasAffinity = affinityTerms.length > 0;
  const hasAnti = antiAffinityTerms.length > 0;
  if (hasAffinity || hasAnti) {
    const nodes = handle.cache.list();
    for (let i = 0; i < nodes.length; i++) {
      const node = nodes[i]!;
      const pods = node.pods;
      for (let j = 0; j < pods.length; j++) {
        if (hasAffinity) affinity.updateWithAffinityTerms(affinityTerms, pods[j]!, node.labels, 1);
        if (hasAnti) anti.updateWithAntiAffinityTerms(antiAffinityTerms, pods[j]!, null, node.labels, 1);
      }
    }
  }
  if (existing.size === 0 && affinityTerms.length === 0 && antiAffinityTerms.length === 0) return SKIP_STATUS;
  state.data.set(name, new FilterState(pod, affinityTerms, antiAffinityTerms, nsLabels, existing, affinity, anti));
  return null;
}

function satisfiesPodAffinity(s: FilterState, node: NodeInfo): boolean {
  let podsExist = true;
  for (const t of s.affinityTerms) {
    const value = node.labels[t.topologyKey];
    if (value === undefined) return false; // every topology label must exist on the node
    if (s.affinityCounts.get(t.topologyKey, value) <= 0) podsExist = false;
  }
  if (podsExist) return true;
  // The first pod of a group with affinity to itself: nothing in the cluster matches the terms
  // yet, but the pod matches its own terms, so it may go anywhere that has the topology labels.
  return s.affinityCounts.size === 0 && matchesAllTerms(s.affinityTerms, s.pod.namespace, s.pod.labels);
}

function satisfiesPodAntiAffinity(s: FilterState, node: NodeInfo): boolean {
  if (s.antiAffinityCounts.size === 0) return true;
  for (const t of s.antiAffinityTerms) {
    const value = node.labels[t.topologyKey];
    if (value !== undefined && s.antiAffinityCounts.get(t.topologyKey, value) > 0) return false;
  }
  return true;
}

function satisfiesExistingPodsAntiAffinity(s: FilterState, node: NodeInfo): boolean {
  if (s.existingAntiAffinity.size === 0) return true;
  const labels = node.labels;
  for (const key in labels) if (s.existingAntiAffinity.get(key, labels[key]!) > 0) return false;
  return true;
}

/** The three rejections of the plugin (statuses are immutable, so one object each serves every node). */
export function rejections(name: string): { affinity: Status; anti: Status; existing: Status } {
  return {
    affinity: unresolvable(name, ERR_REASON_AFFINITY),
    anti: unschedulable(name, ERR_REASON_ANTI_AFFINITY),
    existing: unschedulable(name, ERR_REASON_EXISTING_ANTI_AFFINITY),
  };
}

export function filter(name: string, state: CycleState, node: NodeInfo, reject: ReturnType<typeof rejections>): Status | null {
  const s = state.read<FilterState>(name);
  if (s === undefined) return null;
  if (!satisfiesPodAffinity(s, node)) return reject.affinity;
  if (!satisfiesPodAntiAffinity(s, node)) return reject.anti;
  if (!satisfiesExistingPodsAntiAffinity(s, node)) return reject.existing;
  return null;
}

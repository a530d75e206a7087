// InterPodAffinity's PreScore/Score/NormalizeScore (interpodaffinity/scoring.go): every topology
// domain collects the weights of the incoming pod's preferred terms matched by pods there (minus for
// anti-affinity), of existing pods' preferred terms the incoming pod matches, and hardPodAffinityWeight
// for existing pods' required affinity it matches; scores are min-max normalized to 0-100.
import type { Labels } from "../../../k8s/selector.js";
import type { InterPodAffinityArgs } from "../../config/args.js";
import { mergeNamespaces, termMatches, type AffinityTerm } from "../../affinity-term.js";
import { MAX_NODE_SCORE, type CycleState, type Handle, type StateData } from "../../framework/plugin.js";
import type { NodeInfo } from "../../node-info.js";
import type { PodInfo } from "../../pod-info.js";
import { SKIP_STATUS, type Status } from "../../status.js";

class TopologyScore implements StateData {
  /** topologyKey -> value -> score */
  readonly byKey = new Map<string, Map<string, number>>();
  clone(): StateData {
    return this;
  }

  add(term: AffinityTerm, weight: number, pod: PodInfo, nsLabels: Labels | null, nodeLabels: Labels): void {
    if (!termMatches(term, pod.namespace, pod.labels, nsLabels)) return;
    const value = nodeLabels[term.topologyKey];
    if (value === undefined) return;
    let values = this.byKey.get(term.topologyKey);
    if (values === undefined) {
      values = new Map();
      this.byKey.set(term.topologyKey, values);
    }
    values.set(value, (values.get(value) ?? 0) + weight);
  }
}

export function preScore(name: string, state: CycleState, nodes: readonly NodeInfo[], handle: Handle, args: InterPodAffinityArgs): Status | null {
  if (nodes.length === 0) return SKIP_STATUS;
  const pod = state.pod;
  const hasConstraints = pod.preferredAffinityTerms.length > 0 || pod.preferredAntiAffinityTerms.length > 0;
  if (args.ignorePreferredTermsOfExistingPods && !hasConstraints) return SKIP_STATUS;
  const namespaces = handle.cache.namespaces;
  const affinity = pod.preferredAffinityTerms.map((t) => mergeNamespaces(t, namespaces));
  const anti = pod.preferredAntiAffinityTerms.map((t) => mergeNamespaces(t, namespaces));
  const nsLabels = namespaces.get(pod.namespace) ?? {};
  const scores = new TopologyScore();
  const candidates = hasConstraints ? handle.cache.list() : handle.cache.withPodAffinity();
  for (const node of candidates) {
    const labels = node.labels;
    if (!hasAnyKey(labels)) continue;
    for (const existing of hasConstraints ? node.pods : node.podsWithAffinity) {
      if (!hasConstraints && existing.requiredAffinityTerms.length === 0 && existing.preferredAffinityTerms.length === 0 && existing.preferredAntiAffinityTerms.length === 0) {
        continue; // nothing of this pod can score (e.g. only required anti-affinity)
      }
      for (const t of affinity) scores.add(t, t.weight, existing, null, labels);
      for (const t of anti) scores.add(t, -t.weight, existing, null, labels);
      if (args.hardPodAffinityWeight > 0) {
        for (const t of existing.requiredAffinityTerms) scores.add(t, args.hardPodAffinityWeight, pod, nsLabels, labels);
      }
      for (const t of existing.preferredAffinityTerms) scores.add(t, t.weight, pod, nsLabels, labels);
      for (const t of existing.preferredAntiAffinityTerms) scores.add(t, -t.weight, pod, nsLabels, labels);
    }
  }
  if (scores.byKey.size === 0) return SKIP_STATUS;
  state.data.set(name, scores);
  return null;
}

function hasAnyKey(labels: Labels): boolean {
  for (const _ in labels) return true;
  return false;
}

export function score(name: string, state: CycleState, node: NodeInfo): number {
  const s = state.read<TopologyScore>(name);
  if (s === undefined) return 0;
  let total = 0;
  for (const [key, values] of s.byKey) {
    const value = node.labels[key];
    if (value !== undefined) total += values.get(value) ?? 0;
  }
  return total;
}

export function normalizeScore(scores: number[]): void {
  let min = Infinity;
  let max = -Infinity;
  for (const s of scores) {
    if (s > max) max = s;
    if (s < min) min = s;
  }
  const diff = max - min;
  for (let i = 0; i < scores.length; i++) scores[i] = diff > 0 ? Math.trunc((MAX_NODE_SCORE * (scores[i]! - min)) / diff) : 0;
}

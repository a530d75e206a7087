// Counters keyed by topology pair (topologyKey, node's value for it), as interpodaffinity's
// topologyToMatchedTermCount: entries that drop to zero disappear.
import type { Labels } from "../../../k8s/selector.js";
import { termMatches, matchesAllTerms, type AffinityTerm } from "../../affinity-term.js";
import type { PodInfo } from "../../pod-info.js";

export const pairKey = (key: string, value: string): string => `${key}\u0000${value}`;

export class TopologyCounts {
  readonly map = new Map<string, number>();

  get size(): number {
    return this.map.size;
  }

  get(key: string, value: string): number {
    return this.map.get(pairKey(key, value)) ?? 0;
  }

  /** Adds `delta` to the node's pair for `key`; nothing when the node lacks the label. */
  update(nodeLabels: Labels, key: string, delta: number): void {
    const value = nodeLabels[key];
    if (value === undefined) return;
    const k = pairKey(key, value);
    const next = (this.map.get(k) ?? 0) + delta;
    if (next === 0) this.map.delete(k);
    else this.map.set(k, next);
  }

  /** For every anti-affinity term `pod` matches (updateWithAntiAffinityTerms). */
  updateWithAntiAffinityTerms(terms: readonly AffinityTerm[], pod: PodInfo, nsLabels: Labels | null, nodeLabels: Labels, delta: number): void {
    for (const t of terms) if (termMatches(t, pod.namespace, pod.labels, nsLabels)) this.update(nodeLabels, t.topologyKey, delta);
  }

  /** For every affinity term, when `pod` matches all of them (updateWithAffinityTerms). */
  updateWithAffinityTerms(terms: readonly AffinityTerm[], pod: PodInfo, nodeLabels: Labels, delta: number): void {
    if (!matchesAllTerms(terms, pod.namespace, pod.labels)) return;
    for (const t of terms) this.update(nodeLabels, t.topologyKey, delta);
  }

  clone(): TopologyCounts {
    const c = new TopologyCounts();
    for (const [k, v] of this.map) c.map.set(k, v);
    return c;
  }
}

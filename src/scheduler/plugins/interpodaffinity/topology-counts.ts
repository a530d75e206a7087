// Counters keyed by topology pair (topologyKey, node's value for it), as interpodaffinity's
// topologyToMatchedTermCount: entries that drop to zero disappear. Nested maps (key -> value -> count)
// avoid building a string per lookup in the per-node filter loop.
import type { Labels } from "../../../k8s/selector.js";
import { termMatches, matchesAllTerms, type AffinityTerm } from "../../affinity-term.js";
import type { PodInfo } from "../../pod-info.js";

export const pairKey = (key: string, value: string): string => `${key}\u0000${value}`;

export class TopologyCounts {
  private readonly byKey = new Map<string, Map<string, number>>();
  private pairs = 0;

  /** Number of (key, value) pairs with a non-zero count. */
  get size(): number {
    return this.pairs;
  }

  get(key: string, value: string): number {
    return this.byKey.get(key)?.get(value) ?? 0;
  }

  /** Adds `delta` to the node's pair for `key`; nothing when the node lacks the label. */
  update(nodeLabels: Labels, key: string, delta: number): void {
    const value = nodeLabels[key];
    if (value === undefined) return;
    let values = this.byKey.get(key);
    if (values === undefined) {
      values = new Map();
      this.byKey.set(key, values);
    }
    const prev = values.get(value) ?? 0;
    const next = prev + delta;
    if (next === 0) {
      values.delete(value);
      if (values.size === 0) this.byKey.delete(key);
    } else values.set(value, next);
    if (prev === 0 && next !== 0) this.pairs++;
    else if (prev !== 0 && next === 0) this.pairs--;
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
    for (const [k, values] of this.byKey) c.byKey.set(k, new Map(values));
    c.pairs = this.pairs;
    return c;
  }
}

// PodTopologySpread's PreFilter and Filter (podtopologyspread/filtering.go): matching pods are counted
// per topology domain over the nodes that carry every topology key and pass the inclusion policies;
// a node fails when placing the pod there would make its domain exceed the global minimum by more
// than maxSkew (the minimum counts as 0 while fewer than minDomains domains exist).
import type { CycleState, Handle, StateData } from "../../framework/plugin.js";
import type { NodeInfo } from "../../node-info.js";
import { requiredNodeAffinity } from "../../node-selector.js";
import type { PodInfo } from "../../pod-info.js";
import { SKIP_STATUS, unresolvable, unschedulable, type Status } from "../../status.js";
import { pairKey } from "../interpodaffinity/topology-counts.js";
import { countMatching, hasAllTopologyKeys, nodeIncluded, type SpreadConstraint } from "./constraints.js";

export const ERR_REASON_CONSTRAINTS_NOT_MATCH = "node(s) didn't match pod topology spread constraints";
export const ERR_REASON_NODE_LABEL_NOT_MATCH = ERR_REASON_CONSTRAINTS_NOT_MATCH + " (missing required label)";

const UNSET = 2147483647;

/** The two domains with the fewest matching pods of a topology key (criticalPaths). */
class CriticalPaths {
  v0 = "";
  n0 = UNSET;
  v1 = "";
  n1 = UNSET;

  update(value: string, num: number): void {
    const i = value === this.v0 ? 0 : value === this.v1 ? 1 : -1;
    if (i >= 0) {
      if (i === 0) this.n0 = num;
      else this.n1 = num;
      if (this.n0 > this.n1) this.swap();
    } else if (num < this.n0) {
      this.v1 = this.v0;
      this.n1 = this.n0;
      this.v0 = value;
      this.n0 = num;
    } else if (num < this.n1) {
      this.v1 = value;
      this.n1 = num;
    }
  }

  private swap(): void {
    [this.v0, this.v1, this.n0, this.n1] = [this.v1, this.v0, this.n1, this.n0];
  }

  clone(): CriticalPaths {
    const c = new CriticalPaths();
    c.v0 = this.v0;
    c.n0 = this.n0;
    c.v1 = this.v1;
    c.n1 = this.n1;
    return c;
  }
}

export class SpreadFilterState implements StateData {
  constructor(
    readonly constraints: readonly SpreadConstraint[],
    readonly matchNum: Map<string, number>,
    readonly criticalPaths: Map<string, CriticalPaths>,
    readonly domainsNum: Map<string, number>,
  ) {}

  clone(): SpreadFilterState {
    const paths = new Map<string, CriticalPaths>();
    for (const [k, v] of this.criticalPaths) paths.set(k, v.clone());
    return new SpreadFilterState(this.constraints, new Map(this.matchNum), paths, new Map(this.domainsNum));
  }

  /** preFilterState.updateWithPod, for preemption dry runs. */
  updateWithPod(other: PodInfo, preemptor: PodInfo, node: NodeInfo, delta: 1 | -1): void {
    if (other.namespace !== preemptor.namespace || !hasAllTopologyKeys(node.labels, this.constraints)) return;
    const required = requiredNodeAffinity(preemptor.pod);
    for (const c of this.constraints) {
      if (!c.selector.matches(other.labels) || !nodeIncluded(c, preemptor, node, required)) continue;
      const value = node.labels[c.topologyKey]!;
      const k = pairKey(c.topologyKey, value);
      const n = (this.matchNum.get(k) ?? 0) + delta;
      this.matchNum.set(k, n);
      this.criticalPaths.get(c.topologyKey)?.update(value, n);
    }
  }
}

export function calcFilterState(pod: PodInfo, constraints: readonly SpreadConstraint[], handle: Handle): SpreadFilterState {
  const required = requiredNodeAffinity(pod.pod);
  const matchNum = new Map<string, number>();
  const pairs: { key: string; value: string; k: string }[] = [];
  const perNode = new Map<string, { key: string; value: string; count: number }>();
  for (const node of handle.cache.list()) {
    if (!hasAllTopologyKeys(node.labels, constraints)) continue;
    perNode.clear();
    for (const c of constraints) {
      if (!nodeIncluded(c, pod, node, required)) continue;
      const value = node.labels[c.topologyKey]!;
      // Two constraints on one key share the node's entry; the later one's count wins, as upstream.
      perNode.set(pairKey(c.topologyKey, value), { key: c.topologyKey, value, count: countMatching(node.pods, c.selector, pod.namespace) });
    }
    for (const [k, e] of perNode) {
      const prev = matchNum.get(k);
      if (prev === undefined) pairs.push({ key: e.key, value: e.value, k });
      matchNum.set(k, (prev ?? 0) + e.count);
    }
  }
  const domainsNum = new Map<string, number>();
  const paths = new Map<string, CriticalPaths>();
  for (const c of constraints) paths.set(c.topologyKey, new CriticalPaths());
  for (const p of pairs) {
    domainsNum.set(p.key, (domainsNum.get(p.key) ?? 0) + 1);
    paths.get(p.key)!.update(p.value, matchNum.get(p.k)!);
  }
  return new SpreadFilterState(constraints, matchNum, paths, domainsNum);
}

export function preFilter(name: string, state: CycleState, constraints: readonly SpreadConstraint[], handle: Handle): Status | null {
  if (constraints.length === 0) return SKIP_STATUS;
  state.data.set(name, calcFilterState(state.pod, constraints, handle));
  return null;
}

export function filter(name: string, state: CycleState, node: NodeInfo): Status | null {
  const s = state.read<SpreadFilterState>(name);
  if (s === undefined || s.constraints.length === 0) return null;
  const pod = state.pod;
  for (const c of s.constraints) {
    const value = node.labels[c.topologyKey];
    if (value === undefined) return unresolvable(name, ERR_REASON_NODE_LABEL_NOT_MATCH);
    const paths = s.criticalPaths.get(c.topologyKey);
    if (paths === undefined) continue;
    let min = paths.n0;
    if ((s.domainsNum.get(c.topologyKey) ?? 0) < c.minDomains) min = 0;
    const self = c.selector.matches(pod.labels) ? 1 : 0;
    const skew = (s.matchNum.get(pairKey(c.topologyKey, value)) ?? 0) + self - min;
    if (skew > c.maxSkew) return unschedulable(name, ERR_REASON_CONSTRAINTS_NOT_MATCH);
  }
  return null;
}

// PodTopologySpread's PreScore/Score/NormalizeScore (podtopologyspread/scoring.go): a node's raw score
// is, over the soft constraints whose key it has, matching pods in its domain x log(domains + 2) plus
// maxSkew - 1; normalized so that the emptiest domain gets 100.
import type { CycleState, Handle, StateData } from "../../framework/plugin.js";
import { MAX_NODE_SCORE } from "../../framework/plugin.js";
import type { NodeInfo } from "../../node-info.js";
import { requiredNodeAffinity } from "../../node-selector.js";
import { SKIP_STATUS, type Status } from "../../status.js";
import { pairKey } from "../interpodaffinity/topology-counts.js";
import { countMatching, hasAllTopologyKeys, HOSTNAME, nodeIncluded, type SpreadConstraint } from "./constraints.js";

class SpreadScoreState implements StateData {
  constructor(
    readonly constraints: readonly SpreadConstraint[],
    readonly ignored: ReadonlySet<string>,
    readonly pairCounts: Map<string, number>,
    readonly weights: readonly number[],
  ) {}
  clone(): StateData {
    return this;
  }
}

/**
 * `requireAllTopologies`: nodes lacking a topology key are ignored (pod-given constraints, or
 * defaults that are not the system's); with the system defaults a node without a zone still spreads by hostname.
 */
export function preScore(
  name: string,
  state: CycleState,
  filtered: readonly NodeInfo[],
  constraints: readonly SpreadConstraint[],
  requireAllTopologies: boolean,
  handle: Handle,
): Status | null {
  const all = handle.cache.list();
  if (all.length === 0 || constraints.length === 0) return SKIP_STATUS;
  const pod = state.pod;
  const ignored = new Set<string>();
  const pairCounts = new Map<string, number>();
  const topoSize = constraints.map(() => 0);
  for (const node of filtered) {
    if (requireAllTopologies && !hasAllTopologyKeys(node.labels, constraints)) {
      ignored.add(node.name);
      continue;
    }
    constraints.forEach((c, i) => {
      if (c.topologyKey === HOSTNAME) return;
      const k = pairKey(c.topologyKey, node.labels[c.topologyKey] ?? "");
      if (!pairCounts.has(k)) {
        pairCounts.set(k, 0);
        topoSize[i]!++;
      }
    });
  }
  const weights = constraints.map((c, i) => Math.log((c.topologyKey === HOSTNAME ? filtered.length - ignored.size : topoSize[i]!) + 2));
  const required = requiredNodeAffinity(pod.pod);
  const onlyHostname = constraints.every((c) => c.topologyKey === HOSTNAME);
  if (!onlyHostname) {
    for (const node of all) {
      if (requireAllTopologies && !hasAllTopologyKeys(node.labels, constraints)) continue;
      for (const c of constraints) {
        if (!nodeIncluded(c, pod, node, required)) continue;
        const k = pairKey(c.topologyKey, node.labels[c.topologyKey] ?? "");
        const cur = pairCounts.get(k);
        if (cur === undefined) continue; // per-node (hostname) counts are taken in Score
        pairCounts.set(k, cur + countMatching(node.pods, c.selector, pod.namespace));
      }
    }
  }
  state.data.set(name, new SpreadScoreState(constraints, ignored, pairCounts, weights));
  return null;
}

export function score(name: string, state: CycleState, node: NodeInfo): number {
  const s = state.read<SpreadScoreState>(name);
  if (s === undefined || s.ignored.has(node.name)) return 0;
  let total = 0;
  s.constraints.forEach((c, i) => {
    const value = node.labels[c.topologyKey];
    if (value === undefined) return;
    const cnt = c.topologyKey === HOSTNAME ? countMatching(node.pods, c.selector, state.pod.namespace) : (s.pairCounts.get(pairKey(c.topologyKey, value)) ?? 0);
    total += cnt * s.weights[i]! + (c.maxSkew - 1);
  });
  return Math.round(total);
}

export function normalizeScore(name: string, state: CycleState, nodes: readonly NodeInfo[], scores: number[]): void {
  const s = state.read<SpreadScoreState>(name);
  if (s === undefined) return;
  let min = Infinity;
  let max = 0;
  nodes.forEach((n, i) => {
    if (s.ignored.has(n.name)) return;
    const v = scores[i]!;
    if (v < min) min = v;
    if (v > max) max = v;
  });
  nodes.forEach((n, i) => {
    if (s.ignored.has(n.name)) scores[i] = 0;
    else if (max === 0) scores[i] = MAX_NODE_SCORE;
    else scores[i] = Math.trunc((MAX_NODE_SCORE * (max + min - scores[i]!)) / max);
  });
}

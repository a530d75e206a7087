// Spread constraints as PodTopologySpread evaluates them (podtopologyspread/common.go): the pod's own
// constraints of one whenUnsatisfiable kind, or the cluster defaults with the pod's group selector;
// matchLabelKeys merged into the selector; minDomains and the node inclusion policies defaulted.
import type { TopologySpreadConstraint } from "kubernetes-types/core/v1.js";
import type { Labels } from "../../../k8s/selector.js";
import { termSelector, type TermSelector } from "../../affinity-term.js";
import type { NodeInfo } from "../../node-info.js";
import type { PodInfo } from "../../pod-info.js";
import type { RequiredNodeAffinity } from "../../node-selector.js";
import { doNotSchedule, findUntoleratedTaint } from "../../taints.js";

export const HOSTNAME = "kubernetes.io/hostname";

export interface SpreadConstraint {
  readonly maxSkew: number;
  readonly topologyKey: string;
  readonly selector: TermSelector;
  readonly minDomains: number;
  readonly honorNodeAffinity: boolean;
  readonly honorNodeTaints: boolean;
}

/** Adds key=value requirements to a selector (mergeLabelSetWithSelector); "nothing" stays nothing. */
function withLabels(base: TermSelector, extra: Record<string, string>): TermSelector {
  const entries = Object.entries(extra);
  if (entries.length === 0 || base.nothing) return base;
  return {
    matches: (l) => entries.every(([k, v]) => l[k] === v) && base.matches(l),
    everything: false,
    nothing: false,
  };
}

/** filterTopologySpreadConstraints: the constraints of the given kind, selector from the constraint or `selector`. */
export function spreadConstraints(
  list: readonly TopologySpreadConstraint[],
  podLabels: Labels,
  action: "DoNotSchedule" | "ScheduleAnyway",
  selector: TermSelector | null = null,
): SpreadConstraint[] {
  const out: SpreadConstraint[] = [];
  for (const c of list) {
    if (c.whenUnsatisfiable !== action) continue;
    const matchLabels: Record<string, string> = {};
    for (const key of c.matchLabelKeys ?? []) {
      const v = podLabels[key];
      if (v !== undefined) matchLabels[key] = v;
    }
    out.push({
      maxSkew: c.maxSkew,
      topologyKey: c.topologyKey,
      selector: selector ?? withLabels(termSelector(c.labelSelector), matchLabels),
      minDomains: c.minDomains ?? 1,
      honorNodeAffinity: (c.nodeAffinityPolicy ?? "Honor") === "Honor",
      honorNodeTaints: (c.nodeTaintsPolicy ?? "Ignore") === "Honor",
    });
  }
  return out;
}

/** nodeLabelsMatchSpreadConstraints: the node has every constraint's topology key. */
export function hasAllTopologyKeys(labels: Labels, constraints: readonly SpreadConstraint[]): boolean {
  for (const c of constraints) if (labels[c.topologyKey] === undefined) return false;
  return true;
}

/** matchNodeInclusionPolicies: whether the node counts for this constraint. */
export function nodeIncluded(c: SpreadConstraint, pod: PodInfo, node: NodeInfo, required: RequiredNodeAffinity): boolean {
  if (c.honorNodeAffinity && !required.match(node)) return false;
  if (c.honorNodeTaints && findUntoleratedTaint(node.taints, pod.pod.spec?.tolerations ?? [], doNotSchedule) !== null) return false;
  return true;
}

/** countPodsMatchSelector: pods of the namespace matching the selector, terminating ones left out; 0 for an empty selector. */
export function countMatching(pods: readonly PodInfo[], selector: TermSelector, namespace: string): number {
  if (selector.everything) return 0;
  let n = 0;
  for (const p of pods) if (!p.terminating && p.namespace === namespace && selector.matches(p.labels)) n++;
  return n;
}

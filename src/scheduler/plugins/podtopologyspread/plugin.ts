// PodTopologySpread: whenUnsatisfiable DoNotSchedule constraints filter nodes, ScheduleAnyway ones score
// them; a pod with no constraints of its own gets the profile's defaults (with the System defaulting:
// hostname maxSkew 3 and zone maxSkew 5, ScheduleAnyway) over the group its Services/ReplicaSet select.
import { DefaultingType, SYSTEM_DEFAULT_CONSTRAINTS, type PodTopologySpreadArgs } from "../../config/args.js";
import type { CycleState, Handle, Plugin } from "../../framework/plugin.js";
import { PluginName } from "../names.js";
import { spreadConstraints, type SpreadConstraint } from "./constraints.js";
import { defaultSelector } from "./default-selector.js";
import { filter, preFilter, SpreadFilterState } from "./filtering.js";
import { normalizeScore, preScore, score } from "./scoring.js";

export function podTopologySpreadPlugin(handle: Handle, args: PodTopologySpreadArgs): Plugin {
  const name = PluginName.POD_TOPOLOGY_SPREAD;
  const scoreKey = name + "/score";
  const systemDefaulted = args.defaultingType === DefaultingType.SYSTEM;
  const defaults = systemDefaulted ? SYSTEM_DEFAULT_CONSTRAINTS : args.defaultConstraints;

  const constraintsFor = (state: CycleState, action: "DoNotSchedule" | "ScheduleAnyway"): SpreadConstraint[] => {
    const pod = state.pod;
    const own = pod.pod.spec?.topologySpreadConstraints ?? [];
    if (own.length > 0) return spreadConstraints(own, pod.labels, action);
    if (spreadConstraints(defaults, pod.labels, action).length === 0) return [];
    const selector = defaultSelector(pod, handle.store);
    return selector === null ? [] : spreadConstraints(defaults, pod.labels, action, selector);
  };

  return {
    name,
    preFilter: (state) => ({ status: preFilter(name, state, constraintsFor(state, "DoNotSchedule"), handle) }),
    addPod: (state, pod, node) => state.read<SpreadFilterState>(name)?.updateWithPod(pod, state.pod, node, 1),
    removePod: (state, pod, node) => state.read<SpreadFilterState>(name)?.updateWithPod(pod, state.pod, node, -1),
    filter: (state, node) => filter(name, state, node),
    preScore: (state, nodes) => {
      const requireAll = (state.pod.pod.spec?.topologySpreadConstraints ?? []).length > 0 || !systemDefaulted;
      return preScore(scoreKey, state, nodes, constraintsFor(state, "ScheduleAnyway"), requireAll, handle);
    },
    score: (state, node) => score(scoreKey, state, node),
    normalizeScore: (state, nodes, scores) => normalizeScore(scoreKey, state, nodes, scores),
  };
}

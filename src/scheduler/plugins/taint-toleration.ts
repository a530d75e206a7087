// TaintToleration: NoSchedule/NoExecute taints the pod does not tolerate keep it off a node; each
// untolerated PreferNoSchedule taint lowers the node's score (normalized, reversed).
import type { Toleration } from "kubernetes-types/core/v1.js";
import { MAX_NODE_SCORE, type Handle, type Plugin, type StateData } from "../framework/plugin.js";
import { defaultNormalizeScore } from "../framework/normalize.js";
import { unresolvable } from "../status.js";
import { doNotSchedule, findUntoleratedTaint, TaintEffect, tolerationsTolerateTaint } from "../taints.js";
import { hidesTaintInReason } from "../version.js";
import { PluginName } from "./names.js";

class PreferTolerations implements StateData {
  constructor(readonly tolerations: readonly Toleration[]) {}
  clone(): StateData {
    return this;
  }
}

export function taintTolerationPlugin(handle: Handle): Plugin {
  const name = PluginName.TAINT_TOLERATION;
  const hide = hidesTaintInReason(handle.version);
  return {
    name,
    filter(state, node) {
      const taint = findUntoleratedTaint(node.taints, state.pod.pod.spec?.tolerations ?? [], doNotSchedule);
      if (taint === null) return null;
      return unresolvable(name, hide ? "node(s) had untolerated taint(s)" : `node(s) had untolerated taint {${taint.key}: ${taint.value ?? ""}}`);
    },
    preScore(state) {
      const all = state.pod.pod.spec?.tolerations ?? [];
      state.data.set(name, new PreferTolerations(all.filter((t) => (t.effect ?? "") === "" || t.effect === TaintEffect.PREFER_NO_SCHEDULE)));
      return null;
    },
    score(state, node) {
      const tolerations = state.read<PreferTolerations>(name)?.tolerations ?? [];
      let count = 0;
      for (const taint of node.taints) {
        if (taint.effect === TaintEffect.PREFER_NO_SCHEDULE && !tolerationsTolerateTaint(tolerations, taint)) count++;
      }
      return count;
    },
    normalizeScore(_state, _nodes, scores) {
      defaultNormalizeScore(MAX_NODE_SCORE, true, scores);
    },
  };
}

// NodeUnschedulable: a cordoned node (spec.unschedulable) takes only pods that tolerate
// node.kubernetes.io/unschedulable:NoSchedule.
import type { Plugin } from "../framework/plugin.js";
import { unresolvable } from "../status.js";
import { tolerationsTolerateTaint } from "../taints.js";
import { PluginName } from "./names.js";

export const ERR_REASON_UNSCHEDULABLE = "node(s) were unschedulable";
const UNSCHEDULABLE_TAINT = { key: "node.kubernetes.io/unschedulable", effect: "NoSchedule" } as const;

export function nodeUnschedulablePlugin(): Plugin {
  const name = PluginName.NODE_UNSCHEDULABLE;
  const rejected = unresolvable(name, ERR_REASON_UNSCHEDULABLE);
  return {
    name,
    filter(state, node) {
      if (!node.unschedulable) return null;
      if (tolerationsTolerateTaint(state.pod.pod.spec?.tolerations ?? [], UNSCHEDULABLE_TAINT)) return null;
      return rejected;
    },
  };
}

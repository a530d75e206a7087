// NodeName: a pod that names a node fits only that node.
import type { Plugin } from "../framework/plugin.js";
import { unresolvable } from "../status.js";
import { PluginName } from "./names.js";

export const ERR_REASON_NODE_NAME = "node(s) didn't match the requested node name";

export function nodeNamePlugin(): Plugin {
  const name = PluginName.NODE_NAME;
  const rejected = unresolvable(name, ERR_REASON_NODE_NAME);
  return {
    name,
    filter(state, node) {
      const want = state.pod.pod.spec?.nodeName ?? "";
      return want === "" || want === node.name ? null : rejected;
    },
  };
}

// NodePorts: a pod asking for host ports fits only nodes where no other pod holds them.
import type { Plugin, StateData } from "../framework/plugin.js";
import type { HostPort } from "../host-ports.js";
import { SKIP_STATUS, unschedulable } from "../status.js";
import { PluginName } from "./names.js";

export const ERR_REASON_PORTS = "node(s) didn't have free ports for the requested pod ports";

class WantedPorts implements StateData {
  constructor(readonly ports: readonly HostPort[]) {}
  clone(): StateData {
    return this;
  }
}

export function nodePortsPlugin(): Plugin {
  const name = PluginName.NODE_PORTS;
  const rejected = unschedulable(name, ERR_REASON_PORTS);
  return {
    name,
    preFilter(state) {
      const ports = state.pod.hostPorts;
      if (ports.length === 0) return { status: SKIP_STATUS };
      state.data.set(name, new WantedPorts(ports));
      return { status: null };
    },
    filter(state, node) {
      const wanted = state.read<WantedPorts>(name)?.ports ?? state.pod.hostPorts;
      for (const p of wanted) if (node.usedPorts.conflicts(p)) return rejected;
      return null;
    },
  };
}

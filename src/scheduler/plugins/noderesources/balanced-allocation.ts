// NodeResourcesBalancedAllocation: favours nodes whose cpu and memory (by default) would be used in
// equal proportion after placing the pod: 100 x (1 - standard deviation of the used fractions).
import type { BalancedAllocationArgs } from "../../config/args.js";
import type { Plugin, StateData } from "../../framework/plugin.js";
import { PluginName } from "../names.js";
import { balancedScorer, podRequestList, resourceKinds, scoreNode } from "./resource-allocation.js";

class PodRequests implements StateData {
  constructor(readonly list: readonly number[]) {}
  clone(): StateData {
    return this;
  }
}

export function balancedAllocationPlugin(args: BalancedAllocationArgs): Plugin {
  const name = PluginName.NODE_RESOURCES_BALANCED_ALLOCATION;
  const resources = args.resources;
  const kinds = resourceKinds(resources);
  const reqBuf: number[] = [];
  const allocBuf: number[] = [];
  return {
    name,
    preScore(state) {
      state.data.set(name, new PodRequests(podRequestList(state.pod.requests, resources)));
      return null;
    },
    score(state, node) {
      const list = state.read<PodRequests>(name)?.list ?? podRequestList(state.pod.requests, resources);
      return scoreNode(node, list, resources, kinds, true, balancedScorer, reqBuf, allocBuf);
    },
  };
}

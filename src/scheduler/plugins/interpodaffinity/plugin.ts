// InterPodAffinity: required pod (anti-)affinity filters nodes, preferred terms and existing pods'
// terms score them.
import type { InterPodAffinityArgs } from "../../config/args.js";
import type { Handle, Plugin } from "../../framework/plugin.js";
import { PluginName } from "../names.js";
import { filter, FilterState, preFilter, rejections } from "./filtering.js";
import { normalizeScore, preScore, score } from "./scoring.js";

export function interPodAffinityPlugin(handle: Handle, args: InterPodAffinityArgs): Plugin {
  const name = PluginName.INTER_POD_AFFINITY;
  const scoreKey = name + "/score";
  const reject = rejections(name);
  return {
    name,
    preFilter: (state) => ({ status: preFilter(name, state, handle) }),
    addPod: (state, pod, node) => state.read<FilterState>(name)?.updateWithPod(pod, node, 1),
    removePod: (state, pod, node) => state.read<FilterState>(name)?.updateWithPod(pod, node, -1),
    filter: (state, node) => filter(name, state, node, reject),
    preScore: (state, nodes) => preScore(scoreKey, state, nodes, handle, args),
    score: (state, node) => score(scoreKey, state, node),
    normalizeScore: (_state, _nodes, scores) => normalizeScore(scores),
  };
}

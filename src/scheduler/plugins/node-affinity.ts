// NodeAffinity: nodeSelector and required node affinity filter nodes; preferred terms score them by
// the sum of matching weights (normalized to 0-100). A required term that names nodes through
// matchFields metadata.name narrows the candidates already in PreFilter. The profile may add an
// affinity of its own (NodeAffinityArgs.addedAffinity), enforced on every pod.
import type { NodeAffinity as NodeAffinitySpec } from "kubernetes-types/core/v1.js";
import type { NodeAffinityArgs } from "../config/args.js";
import { MAX_NODE_SCORE, type Plugin, type StateData } from "../framework/plugin.js";
import { defaultNormalizeScore } from "../framework/normalize.js";
import { compileNodeSelectorTerms, preferredTerms, requiredNodeAffinity, type PreferredTerms, type RequiredNodeAffinity } from "../node-selector.js";
import { SKIP_STATUS, unresolvable } from "../status.js";
import { PluginName } from "./names.js";

export const ERR_REASON_POD = "node(s) didn't match Pod's node affinity/selector";
export const ERR_REASON_ENFORCED = "node(s) didn't match scheduler-enforced node affinity";
export const ERR_REASON_CONFLICT = "pod affinity terms conflict";

class Required implements StateData {
  constructor(readonly affinity: RequiredNodeAffinity) {}
  clone(): StateData {
    return this;
  }
}

class Preferred implements StateData {
  constructor(readonly terms: PreferredTerms | null) {}
  clone(): StateData {
    return this;
  }
}

/** Node names the required terms restrict the pod to, from matchFields metadata.name In; null = no restriction. */
function namedNodes(spec: NodeAffinitySpec | undefined): Set<string> | null {
  const terms = spec?.requiredDuringSchedulingIgnoredDuringExecution?.nodeSelectorTerms ?? [];
  if (terms.length === 0) return null;
  let union: Set<string> | null = null;
  for (const t of terms) {
    let names: Set<string> | null = null;
    for (const r of t.matchFields ?? []) {
      if (r.key !== "metadata.name" || r.operator !== "In") continue;
      const s = new Set(r.values ?? []);
      names = names === null ? s : new Set([...names].filter((n: string) => s.has(n)));
    }
    // A term without a metadata.name restriction admits every node: the terms are ORed.
    if (names === null) return null;
    union = union === null ? names : new Set([...union, ...names]);
  }
  return union;
}

export function nodeAffinityPlugin(args: NodeAffinityArgs = {}): Plugin {
  const name = PluginName.NODE_AFFINITY;
  const added = args.addedAffinity;
  const addedRequired = added?.requiredDuringSchedulingIgnoredDuringExecution;
  const addedSelector = addedRequired === undefined ? null : compileNodeSelectorTerms(addedRequired.nodeSelectorTerms ?? []);
  const addedPreferred = added?.preferredDuringSchedulingIgnoredDuringExecution;
  const addedTerms = addedPreferred === undefined ? null : preferredTerms(addedPreferred);
  const rejectedEnforced = unresolvable(name, ERR_REASON_ENFORCED);
  const rejectedPod = unresolvable(name, ERR_REASON_POD);
  return {
    name,
    preFilter(state) {
      const pod = state.pod.pod;
      const spec = pod.spec?.affinity?.nodeAffinity;
      const required = requiredNodeAffinity(pod);
      if (!required.present && addedSelector === null) return { status: SKIP_STATUS };
      state.data.set(name, new Required(required));
      const names = namedNodes(spec);
      if (names === null) return { status: null };
      if (names.size === 0) return { status: unresolvable(name, ERR_REASON_CONFLICT) };
      return { status: null, nodeNames: names };
    },
    filter(state, node) {
      if (addedSelector !== null && !addedSelector(node)) return rejectedEnforced;
      const required = state.read<Required>(name)?.affinity ?? requiredNodeAffinity(state.pod.pod);
      return required.match(node) ? null : rejectedPod;
    },
    preScore(state) {
      const preferred = state.pod.pod.spec?.affinity?.nodeAffinity?.preferredDuringSchedulingIgnoredDuringExecution;
      if (preferred === undefined && addedTerms === null) return SKIP_STATUS;
      state.data.set(name + "/score", new Preferred(preferred === undefined ? null : preferredTerms(preferred)));
      return null;
    },
    score(state, node) {
      let count = addedTerms?.score(node) ?? 0;
      count += state.read<Preferred>(name + "/score")?.terms?.score(node) ?? 0;
      return count;
    },
    normalizeScore(_state, _nodes, scores) {
      defaultNormalizeScore(MAX_NODE_SCORE, false, scores);
    },
  };
}

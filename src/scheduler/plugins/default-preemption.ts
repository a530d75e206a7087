// DefaultPreemption (PostFilter; framework/preemption + plugins/defaultpreemption): when no node fits,
// find nodes where evicting lower-priority pods would make room. Nodes rejected as
// UnschedulableAndUnresolvable are "not helpful"; on the others a dry run removes every lower-priority
// pod, re-runs the filters, then reprieves as many pods as possible (PDB-violating ones first, most
// important first). The best candidate is picked by upstream's criteria; without one, the message
// is a second "0/N nodes are available: ..." histogram prefixed with "preemption: ".
import type { PodDisruptionBudget } from "kubernetes-types/policy/v1.js";
import type { DefaultPreemptionArgs } from "../config/args.js";
import { compileSelector } from "../../k8s/selector.js";
import type { CycleState, FilterRunner, Handle, Plugin, PostFilterOutcome } from "../framework/plugin.js";
import { fitErrorMessage } from "../fit-error.js";
import type { NodeInfo } from "../node-info.js";
import type { PodInfo } from "../pod-info.js";
import { Code, status, unresolvable, unschedulable, type Status } from "../status.js";
import { PluginName } from "./names.js";

const NOT_HELPFUL = "Preemption is not helpful for scheduling";
const NO_VICTIMS = "No preemption victims found for incoming pod";

interface Candidate {
  readonly node: string;
  readonly victims: readonly PodInfo[];
  readonly pdbViolations: number;
}

const startTime = (p: PodInfo): string => p.pod.status?.startTime ?? p.pod.metadata?.creationTimestamp ?? "";

/** util.MoreImportantPod: higher priority first, then the one that started earlier. */
function moreImportant(a: PodInfo, b: PodInfo): number {
  if (a.priority !== b.priority) return b.priority - a.priority;
  const sa = startTime(a);
  const sb = startTime(b);
  return sa < sb ? -1 : sa > sb ? 1 : 0;
}

/** filterPodsWithPDBViolation: victims whose eviction would exceed a budget's disruptionsAllowed. */
function splitByPdb(victims: readonly PodInfo[], pdbs: readonly PodDisruptionBudget[]): { violating: PodInfo[]; other: PodInfo[] } {
  const allowed = pdbs.map((p) => p.status?.disruptionsAllowed ?? 0);
  const selectors = pdbs.map((p) => (p.spec?.selector === undefined ? null : compileSelector(p.spec.selector)));
  const violating: PodInfo[] = [];
  const other: PodInfo[] = [];
  for (const v of victims) {
    let violated = false;
    if (Object.keys(v.labels).length > 0) {
      pdbs.forEach((pdb, i) => {
        const sel = selectors[i];
        if (pdb.metadata?.namespace !== v.namespace || sel === null || sel === undefined || sel.error !== null || sel.isEmpty) return;
        if (!sel.matches(v.labels) || pdb.status?.disruptedPods?.[v.name] !== undefined) return;
        allowed[i]!--;
        if (allowed[i]! < 0) violated = true;
      });
    }
    (violated ? violating : other).push(v);
  }
  return { violating, other };
}

export function defaultPreemptionPlugin(handle: Handle, runner: FilterRunner, args: DefaultPreemptionArgs): Plugin {
  const name = PluginName.DEFAULT_PREEMPTION;
  const noVictims = unresolvable(name, NO_VICTIMS);
  const notHelpful = unresolvable(name, NOT_HELPFUL);

  /** SelectVictimsOnNode, on copies of the cycle state and the node (made only when there are lower-priority pods). */
  function selectVictims(original: CycleState, originalNode: NodeInfo, pdbs: readonly PodDisruptionBudget[]): Candidate | Status {
    const potential = originalNode.pods.filter((p) => p.priority < original.pod.priority);
    if (potential.length === 0) return noVictims;
    const state = original.clone();
    const node = originalNode.clone();
    for (const v of potential) {
      node.removePod(v.key);
      runner.removePod(state, v, node);
    }
    const fits = runner.runFilters(state, node);
    if (fits !== null) return fits;
    potential.sort(moreImportant);
    const { violating, other } = splitByPdb(potential, pdbs);
    const victims: PodInfo[] = [];
    let violations = 0;
    const reprieve = (v: PodInfo): boolean => {
      node.addPod(v);
      runner.addPod(state, v, node);
      if (runner.runFilters(state, node) === null) return true;
      node.removePod(v.key);
      runner.removePod(state, v, node);
      victims.push(v);
      return false;
    };
    for (const v of violating) if (!reprieve(v)) violations++;
    for (const v of other) reprieve(v);
    return { node: node.name, victims, pdbViolations: violations };
  }

  /** pickOneNodeForPreemption: fewest PDB violations, lowest top victim priority, lowest priority sum, fewest victims, latest start. */
  function pick(candidates: readonly Candidate[]): Candidate {
    const keyOf = (c: Candidate): (number | string)[] => {
      const top = Math.max(...c.victims.map((v) => v.priority));
      const sum = c.victims.reduce((s, v) => s + v.priority + 2147483648, 0);
      const earliestTop = c.victims
        .filter((v) => v.priority === top)
        .map(startTime)
        .sort()[0] ?? "";
      return [c.pdbViolations, top, sum, c.victims.length, earliestTop];
    };
    let best = candidates[0]!;
    let bestKey = keyOf(best);
    for (const c of candidates.slice(1)) {
      const k = keyOf(c);
      for (let i = 0; i < k.length; i++) {
        const a = k[i]!;
        const b = bestKey[i]!;
        if (a === b) continue;
        // The last criterion prefers the latest start; the others the smallest value.
        const better = i === k.length - 1 ? a > b : a < b;
        if (better) {
          best = c;
          bestKey = k;
        }
        break;
      }
    }
    return best;
  }

  return {
    name,
    postFilter(state, statuses): PostFilterOutcome {
      const pod = state.pod;
      if (pod.pod.spec?.preemptionPolicy === "Never") return { status: unschedulable(name, "preemption: not eligible due to preemptionPolicy=Never.") };
      const all = handle.cache.list();
      const results = new Map<string, Status>();
      const potential: NodeInfo[] = [];
      for (const n of all) {
        if (statuses.get(n.name)?.code === Code.UNSCHEDULABLE_AND_UNRESOLVABLE) results.set(n.name, notHelpful);
        else potential.push(n);
      }
      const candidates: Candidate[] = [];
      if (potential.length > 0) {
        const pdbs = handle.store.list("PodDisruptionBudget");
        const count = potential.length;
        // GetOffsetAndNumCandidates
        let wanted = Math.trunc((count * args.minCandidateNodesPercentage) / 100);
        if (wanted < args.minCandidateNodesAbsolute) wanted = args.minCandidateNodesAbsolute;
        if (wanted > count) wanted = count;
        const offset = handle.rng.nextInt(count);
        let nonViolating = 0;
        for (let i = 0; i < count; i++) {
          const node = potential[(offset + i) % count]!;
          const outcome = selectVictims(state, node, pdbs);
          if ("victims" in outcome) {
            if (outcome.victims.length === 0) {
              results.set(node.name, status(Code.ERROR, name, `expected at least one victim pod on node "${node.name}"`));
              continue;
            }
            candidates.push(outcome);
            if (outcome.pdbViolations === 0) nonViolating++;
            if (nonViolating > 0 && candidates.length >= wanted) break;
          } else results.set(node.name, outcome);
        }
      }
      if (candidates.length === 0) {
        const message = fitErrorMessage(results.size, results.values(), "", "");
        return { status: unschedulable(name, `preemption: ${message}`) };
      }
      const ordered = [...candidates.filter((c) => c.pdbViolations === 0), ...candidates.filter((c) => c.pdbViolations > 0)];
      const chosen = pick(ordered);
      return { status: status(Code.SUCCESS, name), nominatedNode: chosen.node, victims: chosen.victims };
    },
  };
}

// One scheduling cycle of one pod (schedule_one.go schedulePod): PreFilter, Filter over the nodes
// starting where the previous cycle stopped until enough feasible nodes are found
// (percentageOfNodesToScore), PostFilter (preemption) when none fits, otherwise PreScore/Score and
// selectHost. Decides; binding is the caller's.
import type { SeededRng } from "../util/rng.js";
import type { SchedulerCache } from "./cache.js";
import { fitErrorMessage } from "./fit-error.js";
import type { Framework, ScoreRun } from "./framework/framework.js";
import { CycleState, type PostFilterOutcome } from "./framework/plugin.js";
import type { NodeInfo } from "./node-info.js";
import type { PodInfo } from "./pod-info.js";
import { numFeasibleNodesToFind, selectHost } from "./select-host.js";
import { Code, isRejected, status, statusMessage, type Status } from "./status.js";

export const ERR_NO_NODES_AVAILABLE = "no nodes available to schedule pods";
export const FILTERED_BY_PREFILTER = "node is filtered out by the prefilter result";

export interface CycleOutcome {
  /** The chosen node, or null when the pod stays pending. */
  readonly node: string | null;
  /** The FailedScheduling message when node is null. */
  readonly message: string | null;
  /** Every rejected node and why, in the order the nodes were evaluated. */
  readonly rejected: ReadonlyMap<string, Status>;
  /** Nodes that passed every filter, in evaluation order. */
  readonly feasible: readonly NodeInfo[];
  /** Scores of the feasible nodes (null when none or one was feasible). */
  readonly scores: ScoreRun | null;
  /** Plugins that rejected the pod somewhere (for requeueing). */
  readonly unschedulablePlugins: ReadonlySet<string>;
  readonly postFilter: PostFilterOutcome | null;
}

/** The scheduler's rotating start index, shared by all cycles. */
export interface CycleCursor {
  nextStartNodeIndex: number;
}

function failed(message: string, rejected: Map<string, Status>, plugins: Set<string>, postFilter: PostFilterOutcome | null): CycleOutcome {
  return { node: null, message, rejected, feasible: [], scores: null, unschedulablePlugins: plugins, postFilter };
}

export function scheduleCycle(
  fwk: Framework,
  cache: SchedulerCache,
  pod: PodInfo,
  rng: SeededRng,
  cursor: CycleCursor,
  percentageOfNodesToScore: number,
): CycleOutcome {
  const all = cache.list();
  const rejected = new Map<string, Status>();
  const plugins = new Set<string>();
  if (all.length === 0) return failed(ERR_NO_NODES_AVAILABLE, rejected, plugins, null);
  const state = new CycleState(pod);

  const pre = fwk.runPreFilter(state);
  if (pre.status !== null) {
    if (!isRejected(pre.status)) return failed(statusMessage(pre.status), rejected, plugins, null);
    for (const n of all) rejected.set(n.name, pre.status);
    if (pre.status.plugin !== "") plugins.add(pre.status.plugin);
    const post = fwk.runPostFilter(state, rejected);
    const msg = fitErrorMessage(all.length, [], statusMessage(pre.status), post === null ? "" : statusMessage(post.status));
    return failed(msg, rejected, plugins, post);
  }

  let nodes: readonly NodeInfo[] = all;
  if (pre.nodeNames !== null) {
    const kept: NodeInfo[] = [];
    for (const n of all) {
      if (pre.nodeNames.has(n.name)) kept.push(n);
      else rejected.set(n.name, status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, "", FILTERED_BY_PREFILTER));
    }
    nodes = kept;
  }

  const feasible: NodeInfo[] = [];
  if (nodes.length > 0) {
    const want = fwk.hasScorePlugins ? numFeasibleNodesToFind(percentageOfNodesToScore, nodes.length) : 1;
    const start = cursor.nextStartNodeIndex;
    const active = fwk.activeFilters(state);
    for (let i = 0; i < nodes.length && feasible.length < want; i++) {
      const node = nodes[(start + i) % nodes.length]!;
      const s = fwk.runFilters(state, node, active);
      if (s === null) feasible.push(node);
      else {
        if (s.code === Code.ERROR) return failed(statusMessage(s), rejected, plugins, null);
        rejected.set(node.name, s);
        plugins.add(s.plugin);
      }
    }
    // Every node has the same chance of being looked at first across pods (processed = feasible + rejected).
    cursor.nextStartNodeIndex = (start + feasible.length + rejected.size) % nodes.length;
  }

  if (feasible.length === 0) {
    const post = fwk.runPostFilter(state, rejected);
    const msg = fitErrorMessage(all.length, rejected.values(), "", post === null ? "" : statusMessage(post.status));
    return failed(msg, rejected, plugins, post);
  }
  if (feasible.length === 1) {
    return { node: feasible[0]!.name, message: null, rejected, feasible, scores: null, unschedulablePlugins: plugins, postFilter: null };
  }
  fwk.runPreScore(state, feasible);
  const scores = fwk.runScore(state, feasible);
  const chosen = feasible[selectHost(scores.totals, rng)]!;
  return { node: chosen.name, message: null, rejected, feasible, scores, unschedulablePlugins: plugins, postFilter: null };
}

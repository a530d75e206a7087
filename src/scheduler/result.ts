// What one scheduling attempt of a pod produced, in the shape `cnisim schedule -o json` prints:
// the node (or null and the FailedScheduling message), each evaluated node's filter outcome and,
// when several nodes fit, each one's weighted total and per-plugin normalized (0-100) scores.
import type { CycleOutcome } from "./schedule-one.js";
import type { NodeInfo } from "./node-info.js";

export interface FilterOutcome {
  ok: boolean;
  /** The rejecting plugin's reasons (exact upstream strings). */
  reasons?: string[];
  plugin?: string;
}

export interface NodeScore {
  /** Sum of weight x normalized score over the score plugins that ran. */
  total: number;
  /** Normalized 0-100 score per plugin, before weighting. */
  plugins: Record<string, number>;
}

export interface ScheduleResult {
  /** "namespace/name" */
  pod: string;
  node: string | null;
  message: string | null;
  filter: Record<string, FilterOutcome>;
  scores: Record<string, NodeScore>;
  /** Set when preemption evicted pods to make room on this node. */
  nominatedNode?: string;
}

export function buildResult(pod: string, outcome: CycleOutcome, order: readonly NodeInfo[]): ScheduleResult {
  const filter: Record<string, FilterOutcome> = {};
  const feasible = new Set(outcome.feasible.map((n) => n.name));
  for (const n of order) {
    const s = outcome.rejected.get(n.name);
    if (s !== undefined) {
      const f: FilterOutcome = { ok: false, reasons: [...s.reasons] };
      if (s.plugin !== "") f.plugin = s.plugin;
      filter[n.name] = f;
    } else if (feasible.has(n.name)) filter[n.name] = { ok: true };
  }
  const scores: Record<string, NodeScore> = {};
  if (outcome.scores !== null) {
    outcome.feasible.forEach((n, i) => {
      const plugins: Record<string, number> = {};
      for (const [name, list] of outcome.scores!.byPlugin) plugins[name] = list[i]!;
      scores[n.name] = { total: outcome.scores!.totals[i]!, plugins };
    });
  }
  const result: ScheduleResult = { pod, node: outcome.node, message: outcome.message, filter, scores };
  if (outcome.postFilter?.nominatedNode !== undefined) result.nominatedNode = outcome.postFilter.nominatedNode;
  return result;
}

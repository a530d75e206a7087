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

/**
 * The result of one attempt. `filter` and `scores` are computed on first read (they are enumerable,
 * so JSON.stringify and deep comparisons see them), which keeps large clusters cheap when only the
 * placement is looked at.
 */
export function buildResult(pod: string, outcome: CycleOutcome, order: readonly NodeInfo[]): ScheduleResult {
  const result = { pod, node: outcome.node, message: outcome.message } as ScheduleResult;
  lazy(result, "filter", () => filterOutcomes(outcome, order));
  lazy(result, "scores", () => nodeScores(outcome));
  if (outcome.postFilter?.nominatedNode !== undefined) result.nominatedNode = outcome.postFilter.nominatedNode;
  return result;
}

function lazy<K extends "filter" | "scores">(target: ScheduleResult, key: K, compute: () => ScheduleResult[K]): void {
  Object.defineProperty(target, key, {
    enumerable: true,
    configurable: true,
    get: () => {
      const value = compute();
      Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
      return value;
    },
    set: (value: ScheduleResult[K]) => Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true }),
  });
}

/** Evaluated nodes in scheduling order: rejected ones with their reasons, feasible ones ok. */
function filterOutcomes(outcome: CycleOutcome, order: readonly NodeInfo[]): Record<string, FilterOutcome> {
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
  return filter;
}

function nodeScores(outcome: CycleOutcome): Record<string, NodeScore> {
  const scores: Record<string, NodeScore> = {};
  if (outcome.scores === null) return scores;
  const run = outcome.scores;
  outcome.feasible.forEach((n, i) => {
    const plugins: Record<string, number> = {};
    for (const [name, list] of run.byPlugin) plugins[name] = list[i]!;
    scores[n.name] = { total: run.totals[i]!, plugins };
  });
  return scores;
}

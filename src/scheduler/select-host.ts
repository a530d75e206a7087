// How many feasible nodes the scheduler looks for before it stops filtering (numFeasibleNodesToFind,
// percentageOfNodesToScore) and how it picks among the best-scored ones (selectHost).
import type { SeededRng } from "../util/rng.js";

/** Clusters smaller than this are always searched completely. */
export const MIN_FEASIBLE_NODES_TO_FIND = 100;
export const MIN_FEASIBLE_NODES_PERCENTAGE_TO_FIND = 5;

/** 0 = adaptive: 50% minus one point per 125 nodes, never under 5% nor under 100 nodes. */
export function numFeasibleNodesToFind(percentage: number, numAllNodes: number): number {
  if (numAllNodes < MIN_FEASIBLE_NODES_TO_FIND) return numAllNodes;
  let p = percentage;
  if (p === 0) {
    p = 50 - Math.trunc(numAllNodes / 125);
    if (p < MIN_FEASIBLE_NODES_PERCENTAGE_TO_FIND) p = MIN_FEASIBLE_NODES_PERCENTAGE_TO_FIND;
  }
  const n = Math.trunc((numAllNodes * p) / 100);
  return n < MIN_FEASIBLE_NODES_TO_FIND ? MIN_FEASIBLE_NODES_TO_FIND : n;
}

/**
 * The index of a node with the highest total; ties are broken uniformly at random by reservoir
 * sampling over the tied nodes in order (each later tie replaces the choice with probability 1/count).
 */
export function selectHost(totals: readonly number[], rng: SeededRng): number {
  let best = 0;
  let count = 1;
  for (let i = 1; i < totals.length; i++) {
    const t = totals[i]!;
    if (t > totals[best]!) {
      best = i;
      count = 1;
    } else if (t === totals[best]!) {
      count++;
      if (rng.nextInt(count) === 0) best = i;
    }
  }
  return best;
}

// Taints and tolerations (core/v1 Toleration.ToleratesTaint and v1helper.FindMatchingUntoleratedTaint).
import type { Taint, Toleration } from "kubernetes-types/core/v1.js";

export const TaintEffect = { NO_SCHEDULE: "NoSchedule", PREFER_NO_SCHEDULE: "PreferNoSchedule", NO_EXECUTE: "NoExecute" } as const;

/** Empty effect matches every effect; empty key with Exists matches every key; empty operator means Equal. */
export function toleratesTaint(t: Toleration, taint: Taint): boolean {
  if ((t.effect ?? "") !== "" && t.effect !== taint.effect) return false;
  if ((t.key ?? "") !== "" && t.key !== taint.key) return false;
  switch (t.operator ?? "") {
    case "":
    case "Equal":
      return (t.value ?? "") === (taint.value ?? "");
    case "Exists":
      return true;
    default:
      return false;
  }
}

export function tolerationsTolerateTaint(tolerations: readonly Toleration[], taint: Taint): boolean {
  for (const t of tolerations) if (toleratesTaint(t, taint)) return true;
  return false;
}

/** NoSchedule and NoExecute: the taints that keep a pod off a node (helper.DoNotScheduleTaintsFilterFunc). */
export const doNotSchedule = (t: Taint): boolean => t.effect === TaintEffect.NO_SCHEDULE || t.effect === TaintEffect.NO_EXECUTE;

/** The first taint (in the node's order) that passes `filter` and is not tolerated; null when none. */
export function findUntoleratedTaint(taints: readonly Taint[], tolerations: readonly Toleration[], filter: (t: Taint) => boolean): Taint | null {
  for (const taint of taints) {
    if (!filter(taint)) continue;
    if (!tolerationsTolerateTaint(tolerations, taint)) return taint;
  }
  return null;
}

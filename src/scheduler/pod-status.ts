// The pod status fields the scheduler writes as the API server's binding and status updates would:
// the PodScheduled condition (lastTransitionTime kept while the status stays the same) and nominatedNodeName.
import type { Pod, PodCondition, PodStatus } from "kubernetes-types/core/v1.js";

/** kubernetes-types marks status read-only (clients do not write it); the scheduler is the server side here. */
export function mutableStatus(p: Pod): PodStatus {
  const w = p as { status?: PodStatus };
  return (w.status ??= {});
}

export function setCondition(p: Pod, c: PodCondition, now: string | undefined): void {
  const status = mutableStatus(p);
  const list: PodCondition[] = (status.conditions ??= []);
  const i = list.findIndex((x) => x.type === c.type);
  const prev = i >= 0 ? list[i] : undefined;
  const next: PodCondition = { ...c };
  const changed = prev === undefined || prev.status !== c.status;
  const since = changed ? now : prev?.lastTransitionTime;
  if (since !== undefined) next.lastTransitionTime = since;
  if (i >= 0) list[i] = next;
  else list.push(next);
}

// kubectl cordon / uncordon (drain.CordonHelper): set or clear spec.unschedulable on a node and say
// whether anything changed.
import { ok, type Result } from "../util/result.js";
import type { ObjectStore, StoreError } from "../k8s/index.js";

export type CordonOutcome = "cordoned" | "already cordoned" | "uncordoned" | "already uncordoned";

export function setCordon(store: ObjectStore, nodeName: string, cordon: boolean): Result<CordonOutcome, StoreError> {
  const node = store.get("Node", undefined, nodeName);
  const current = node?.spec?.unschedulable === true;
  if (node !== undefined && current === cordon) return ok(cordon ? "already cordoned" : "already uncordoned");
  const r = store.modify("Node", undefined, nodeName, (n) => {
    const spec = (n.spec ??= {});
    if (cordon) spec.unschedulable = true;
    else delete spec.unschedulable;
  });
  return r.ok ? ok(cordon ? "cordoned" : "uncordoned") : r;
}

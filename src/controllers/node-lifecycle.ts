// The node lifecycle controller's TaintNodesByCondition part that the lab exercises: a cordoned
// node (spec.unschedulable) carries node.kubernetes.io/unschedulable:NoSchedule, removed again on
// uncordon.
import type { Taint } from "kubernetes-types/core/v1.js";
import type { ControllerContext } from "./context.js";

export const UNSCHEDULABLE_TAINT: Readonly<Taint> = { key: "node.kubernetes.io/unschedulable", effect: "NoSchedule" };

export class NodeLifecycleController {
  constructor(private readonly ctx: ControllerContext) {}

  sync(): void {
    for (const node of this.ctx.store.list("Node")) {
      const cordoned = node.spec?.unschedulable === true;
      const taints = node.spec?.taints ?? [];
      const has = taints.some((t) => t.key === UNSCHEDULABLE_TAINT.key && t.effect === UNSCHEDULABLE_TAINT.effect);
      if (cordoned === has) continue;
      const now = this.ctx.wall.timestamp();
      this.ctx.store.modify("Node", undefined, node.metadata.name, (n) => {
        const spec = (n.spec ??= {});
        const rest = (spec.taints ?? []).filter((t) => !(t.key === UNSCHEDULABLE_TAINT.key && t.effect === UNSCHEDULABLE_TAINT.effect));
        spec.taints = cordoned ? [...rest, { ...UNSCHEDULABLE_TAINT, timeAdded: now }] : rest;
        if (spec.taints.length === 0) delete spec.taints;
      });
    }
  }
}

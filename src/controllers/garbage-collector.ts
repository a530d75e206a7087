// Background cascading deletion (the garbage collector) and namespace deletion (the namespace
// controller): an object whose controlling owner no longer exists is deleted (pods gracefully);
// a namespace being deleted loses all its objects and goes once its last pod has gone.
import { KIND_NAMES, type KindName, type KubeObject } from "../k8s/index.js";
import type { ControllerContext } from "./context.js";
import { deletePod } from "./pod-deletion.js";
import { controllerOf, isTerminating } from "./objects.js";

const OWNED_KINDS: readonly KindName[] = ["ReplicaSet", "Pod"];
const NAMESPACED: readonly KindName[] = KIND_NAMES.filter((k) => k !== "Namespace" && k !== "Node");

export class GarbageCollector {
  constructor(private readonly ctx: ControllerContext) {}

  sync(): void {
    this.collectOrphans();
    this.finishNamespaces();
  }

  private ownerExists(obj: KubeObject): boolean {
    const ref = controllerOf(obj);
    if (ref === undefined) return true;
    if (!(KIND_NAMES as readonly string[]).includes(ref.kind)) return true;
    const owner = this.ctx.store.get(ref.kind as KindName, obj.metadata.namespace, ref.name);
    return owner !== undefined && owner.metadata.uid === ref.uid;
  }

  private collectOrphans(): void {
    for (const kind of OWNED_KINDS) {
      for (const obj of this.ctx.store.list(kind)) {
        if (this.ownerExists(obj)) continue;
        if (obj.kind === "Pod") {
          if (!isTerminating(obj)) deletePod(this.ctx, obj);
        } else this.ctx.store.delete(kind, obj.metadata.namespace, obj.metadata.name);
      }
    }
  }

  private finishNamespaces(): void {
    for (const ns of this.ctx.store.list("Namespace")) {
      if (!isTerminating(ns)) continue;
      const name = ns.metadata.name;
      let left = 0;
      for (const kind of NAMESPACED) {
        for (const obj of this.ctx.store.list(kind, { namespace: name })) {
          left++;
          if (obj.kind === "Pod") deletePod(this.ctx, obj);
          else this.ctx.store.delete(kind, name, obj.metadata.name);
        }
      }
      if (left === 0) this.ctx.store.delete("Namespace", undefined, name);
    }
  }
}

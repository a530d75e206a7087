// The ReplicaSet controller: keeps spec.replicas active pods (creating them from the template,
// deleting the least valuable ones first as upstream ranks them) and reports status
// (replicas, fullyLabeledReplicas, readyReplicas, availableReplicas).
import type { ReplicaSetStatus } from "kubernetes-types/apps/v1.js";
import { compileSelector } from "../k8s/selector.js";
import type { KubeObject } from "../k8s/index.js";
import { NS_PER_SECOND } from "./clock.js";
import type { ControllerContext } from "./context.js";
import { deletePod } from "./pod-deletion.js";
import { podFromTemplate } from "./pod-template.js";
import { isActivePod, isControlledBy, isPodReady, podCondition, podPhase, writeStatus, type Pod } from "./objects.js";

type ReplicaSet = KubeObject<"ReplicaSet">;
const SOURCE = { component: "replicaset-controller" };

const PHASE_RANK: Record<string, number> = { Pending: 0, Unknown: 1, Running: 2 };

/** Upstream's ActivePodsWithRanks order: the pods to delete first come first. */
export function deletionOrder(pods: readonly Pod[], rank: (p: Pod) => number, readySince: (p: Pod) => number): Pod[] {
  const created = (p: Pod): string => p.metadata.creationTimestamp ?? "";
  return [...pods].sort((a, b) => {
    const boundA = (a.spec?.nodeName ?? "") !== "";
    const boundB = (b.spec?.nodeName ?? "") !== "";
    if (boundA !== boundB) return boundA ? 1 : -1;
    const pa = PHASE_RANK[podPhase(a)] ?? 0;
    const pb = PHASE_RANK[podPhase(b)] ?? 0;
    if (pa !== pb) return pa - pb;
    if (isPodReady(a) !== isPodReady(b)) return isPodReady(a) ? 1 : -1;
    if (rank(a) !== rank(b)) return rank(b) - rank(a);
    if (isPodReady(a) && isPodReady(b) && readySince(a) !== readySince(b)) return readySince(b) - readySince(a);
    const ra = restarts(a);
    const rb = restarts(b);
    if (ra !== rb) return rb - ra;
    if (created(a) !== created(b)) return created(a) > created(b) ? -1 : 1;
    return a.metadata.name < b.metadata.name ? -1 : 1;
  });
}

const restarts = (p: Pod): number => (p.status?.containerStatuses ?? []).reduce((n, c) => n + (c.restartCount ?? 0), 0);

export class ReplicaSetController {
  constructor(private readonly ctx: ControllerContext) {}

  sync(): void {
    for (const rs of this.ctx.store.list("ReplicaSet")) if (rs.metadata.deletionTimestamp === undefined) this.syncOne(rs);
  }

  /** Pods this ReplicaSet controls. */
  podsOf(rs: ReplicaSet): Pod[] {
    return this.ctx.store.list("Pod", { namespace: rs.metadata.namespace ?? "default", where: (p) => isControlledBy(p, rs) });
  }

  private readySince(p: Pod): number {
    return this.ctx.wall.nsOf(podCondition(p, "Ready")?.lastTransitionTime);
  }

  private syncOne(rs: ReplicaSet): void {
    const owned = this.podsOf(rs);
    const active = owned.filter(isActivePod);
    const want = rs.spec?.replicas ?? 1;
    if (active.length < want && rs.spec?.template !== undefined) {
      for (let i = active.length; i < want; i++) {
        const pod = podFromTemplate(this.ctx, rs.spec.template, rs, `${rs.metadata.name}-`);
        const added = this.ctx.store.add(pod);
        if (added.ok) this.ctx.events.record(rs, "Normal", "SuccessfulCreate", `Created pod: ${pod.metadata.name}`, SOURCE);
      }
    } else if (active.length > want) {
      const perNode = new Map<string, number>();
      for (const p of active) perNode.set(p.spec?.nodeName ?? "", (perNode.get(p.spec?.nodeName ?? "") ?? 0) + 1);
      const rank = (p: Pod): number => ((p.spec?.nodeName ?? "") === "" ? 0 : (perNode.get(p.spec!.nodeName!) ?? 0));
      for (const pod of deletionOrder(active, rank, (p) => this.readySince(p)).slice(0, active.length - want)) {
        if (deletePod(this.ctx, pod).ok) this.ctx.events.record(rs, "Normal", "SuccessfulDelete", `Deleted pod: ${pod.metadata.name}`, SOURCE);
      }
    }
    this.updateStatus(rs);
  }

  private updateStatus(rs: ReplicaSet): void {
    const active = this.podsOf(rs).filter(isActivePod);
    const templateLabels = compileSelector({ matchLabels: rs.spec?.template?.metadata?.labels ?? {} });
    const minReady = (rs.spec?.minReadySeconds ?? 0) * NS_PER_SECOND;
    const now = this.ctx.wall.clock.now;
    const ready = active.filter(isPodReady);
    const status: ReplicaSetStatus = {
      replicas: active.length,
      fullyLabeledReplicas: active.filter((p) => templateLabels.matches(p.metadata.labels ?? {})).length,
      readyReplicas: ready.length,
      availableReplicas: ready.filter((p) => minReady === 0 || now - this.readySince(p) >= minReady).length,
      observedGeneration: rs.metadata.generation ?? 1,
    };
    if (sameStatus(rs.status, status)) return;
    this.ctx.store.modify("ReplicaSet", rs.metadata.namespace, rs.metadata.name, (r) => {
      writeStatus(r, { ...r.status, ...status });
    });
  }
}

function sameStatus(a: ReplicaSetStatus | undefined, b: ReplicaSetStatus): boolean {
  return (
    a !== undefined &&
    a.replicas === b.replicas &&
    a.fullyLabeledReplicas === b.fullyLabeledReplicas &&
    a.readyReplicas === b.readyReplicas &&
    a.availableReplicas === b.availableReplicas &&
    a.observedGeneration === b.observedGeneration
  );
}

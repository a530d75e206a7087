// The Deployment controller: one ReplicaSet per pod template, named <deployment>-<pod-template-hash>,
// rolled out with the Recreate or RollingUpdate strategy (maxSurge / maxUnavailable as upstream
// resolves them), scaled, old ReplicaSets pruned beyond revisionHistoryLimit, and status kept.
// The algorithm follows pkg/controller/deployment (sync.go, rolling.go, recreate.go).
import type { DeploymentCondition, DeploymentStatus } from "kubernetes-types/apps/v1.js";
import type { PodTemplateSpec } from "kubernetes-types/core/v1.js";
import type { KubeObject } from "../k8s/index.js";
import type { ControllerContext } from "./context.js";
import { controllerRef, copy, isControlledBy, scaledValue, stableJson } from "./objects.js";
import { computeTemplateHash } from "./template-hash/compute-hash.js";

type Deployment = KubeObject<"Deployment">;
type ReplicaSet = KubeObject<"ReplicaSet">;

export const POD_TEMPLATE_HASH_LABEL = "pod-template-hash";
export const REVISION_ANNOTATION = "deployment.kubernetes.io/revision";
const DESIRED_ANNOTATION = "deployment.kubernetes.io/desired-replicas";
const MAX_ANNOTATION = "deployment.kubernetes.io/max-replicas";
const SOURCE = { component: "deployment-controller" };

const specReplicas = (rs: ReplicaSet): number => rs.spec?.replicas ?? 0;
const sum = (list: readonly ReplicaSet[], f: (rs: ReplicaSet) => number): number => list.reduce((n, rs) => n + f(rs), 0);
const byCreation = (a: ReplicaSet, b: ReplicaSet): number => {
  const ta = a.metadata.creationTimestamp ?? "";
  const tb = b.metadata.creationTimestamp ?? "";
  return ta !== tb ? (ta < tb ? -1 : 1) : a.metadata.name < b.metadata.name ? -1 : 1;
};


/** Templates equal apart from the pod-template-hash label (EqualIgnoreHash). */
function sameTemplate(a: PodTemplateSpec | undefined, b: PodTemplateSpec | undefined): boolean {
  const strip = (t: PodTemplateSpec | undefined): unknown => {
    if (t === undefined) return null;
    const labels = { ...t.metadata?.labels };
    delete labels[POD_TEMPLATE_HASH_LABEL];
    return { ...t, metadata: { ...t.metadata, labels } };
  };
  return stableJson(strip(a)) === stableJson(strip(b));
}

const revisionOf = (obj: KubeObject): number => Number(obj.metadata.annotations?.[REVISION_ANNOTATION] ?? "0") || 0;

/** maxSurge rounds up, maxUnavailable down; both 0 means maxUnavailable 1 (ResolveFenceposts). */
export function resolveFenceposts(d: Deployment): { maxSurge: number; maxUnavailable: number } {
  const replicas = d.spec?.replicas ?? 1;
  const ru = d.spec?.strategy?.rollingUpdate;
  const maxSurge = scaledValue(ru?.maxSurge, replicas, true, Math.ceil(replicas / 4));
  let maxUnavailable = scaledValue(ru?.maxUnavailable, replicas, false, Math.floor(replicas / 4));
  if (maxSurge === 0 && maxUnavailable === 0) maxUnavailable = 1;
  return { maxSurge, maxUnavailable: Math.min(maxUnavailable, replicas) };
}

export class DeploymentController {
  constructor(private readonly ctx: ControllerContext) {}

  sync(): void {
    for (const d of this.ctx.store.list("Deployment")) if (d.metadata.deletionTimestamp === undefined) this.syncOne(d);
  }

  replicaSetsOf(d: Deployment): ReplicaSet[] {
    return this.ctx.store.list("ReplicaSet", { namespace: d.metadata.namespace ?? "default", where: (rs) => isControlledBy(rs, d) }).sort(byCreation);
  }

  private syncOne(d: Deployment): void {
    if (d.spec?.paused === true) return;
    const all = this.replicaSetsOf(d);
    const existingNew = all.find((rs) => sameTemplate(rs.spec?.template, d.spec?.template));
    const olds = all.filter((rs) => rs !== existingNew);
    if (existingNew !== undefined && this.isScalingEvent(d, all)) {
      this.scale(d, existingNew, olds);
    } else if (d.spec?.strategy?.type === "Recreate") {
      this.recreate(d, existingNew, olds);
    } else {
      this.rolling(d, existingNew, olds);
    }
    const fresh = this.replicaSetsOf(d);
    const newRS = fresh.find((rs) => sameTemplate(rs.spec?.template, d.spec?.template));
    this.cleanup(d, fresh.filter((rs) => rs !== newRS));
    this.updateStatus(d, newRS, this.replicaSetsOf(d));
  }

  /** A replica count change of the Deployment not yet passed to its active ReplicaSets. */
  private isScalingEvent(d: Deployment, all: readonly ReplicaSet[]): boolean {
    const replicas = d.spec?.replicas ?? 1;
    return all.some((rs) => specReplicas(rs) > 0 && rs.metadata.annotations?.[DESIRED_ANNOTATION] !== undefined && Number(rs.metadata.annotations[DESIRED_ANNOTATION]) !== replicas);
  }

  private scale(d: Deployment, newRS: ReplicaSet, olds: readonly ReplicaSet[]): void {
    const replicas = d.spec?.replicas ?? 1;
    const activeOlds = olds.filter((rs) => specReplicas(rs) > 0);
    if (activeOlds.length === 0) {
      this.scaleReplicaSet(d, newRS, replicas);
      return;
    }
    // Proportional scaling, simplified: the new ReplicaSet absorbs the difference within the surge limit.
    const { maxSurge } = resolveFenceposts(d);
    const total = sum([newRS, ...activeOlds], specReplicas);
    const allowed = replicas + maxSurge;
    const target = Math.max(0, specReplicas(newRS) + Math.min(allowed - total, replicas - specReplicas(newRS)));
    this.scaleReplicaSet(d, newRS, target);
    for (const rs of activeOlds) this.scaleReplicaSet(d, rs, specReplicas(rs));
  }

  private getOrCreateNew(d: Deployment, existing: ReplicaSet | undefined, olds: readonly ReplicaSet[], replicas: number): ReplicaSet | undefined {
    const maxOldRevision = olds.reduce((m, rs) => Math.max(m, revisionOf(rs)), 0);
    if (existing !== undefined) {
      if (revisionOf(existing) <= maxOldRevision) {
        const revision = String(maxOldRevision + 1);
        const r = this.ctx.store.modify("ReplicaSet", existing.metadata.namespace, existing.metadata.name, (rs) => {
          (rs.metadata.annotations ??= {})[REVISION_ANNOTATION] = revision;
        });
        this.setDeploymentRevision(d, revision);
        return r.ok ? r.value : existing;
      }
      this.setDeploymentRevision(d, String(revisionOf(existing)));
      return existing;
    }
    const template = d.spec?.template;
    if (template === undefined) return undefined;
    let collisionCount = d.status?.collisionCount;
    for (let attempt = 0; attempt < 5; attempt++) {
      const hash = computeTemplateHash(template, collisionCount).hash;
      const name = `${d.metadata.name}-${hash}`;
      const clash = this.ctx.store.get("ReplicaSet", d.metadata.namespace, name);
      if (clash !== undefined) {
        collisionCount = (collisionCount ?? 0) + 1;
        const cc = collisionCount;
        this.ctx.store.modify("Deployment", d.metadata.namespace, d.metadata.name, (dd) => {
          dd.status = { ...dd.status, collisionCount: cc };
        });
        continue;
      }
      const revision = String(maxOldRevision + 1);
      const { maxSurge } = resolveFenceposts(d);
      const t = copy(template);
      const labels = { ...t.metadata?.labels, [POD_TEMPLATE_HASH_LABEL]: hash };
      const rs: ReplicaSet = {
        apiVersion: "apps/v1",
        kind: "ReplicaSet",
        metadata: {
          name,
          namespace: d.metadata.namespace ?? "default",
          labels,
          annotations: {
            [DESIRED_ANNOTATION]: String(d.spec?.replicas ?? 1),
            [MAX_ANNOTATION]: String((d.spec?.replicas ?? 1) + (d.spec?.strategy?.type === "Recreate" ? 0 : maxSurge)),
            [REVISION_ANNOTATION]: revision,
          },
          ownerReferences: [controllerRef(d)],
        },
        spec: {
          replicas,
          minReadySeconds: d.spec?.minReadySeconds ?? 0,
          selector: { ...d.spec?.selector, matchLabels: { ...d.spec?.selector?.matchLabels, [POD_TEMPLATE_HASH_LABEL]: hash } },
          template: { ...t, metadata: { ...t.metadata, labels } },
        },
      };
      const added = this.ctx.store.add(rs);
      if (!added.ok) return undefined;
      if (replicas > 0) this.ctx.events.record(d, "Normal", "ScalingReplicaSet", `Scaled up replica set ${name} to ${replicas}`, SOURCE);
      this.setDeploymentRevision(d, revision);
      return added.value;
    }
    return undefined;
  }

  private setDeploymentRevision(d: Deployment, revision: string): void {
    const current = this.ctx.store.get("Deployment", d.metadata.namespace, d.metadata.name);
    if (current === undefined || current.metadata.annotations?.[REVISION_ANNOTATION] === revision) return;
    this.ctx.store.modify("Deployment", d.metadata.namespace, d.metadata.name, (dd) => {
      (dd.metadata.annotations ??= {})[REVISION_ANNOTATION] = revision;
    });
  }

  private rolling(d: Deployment, existing: ReplicaSet | undefined, olds: readonly ReplicaSet[]): void {
    const replicas = d.spec?.replicas ?? 1;
    const { maxSurge, maxUnavailable } = resolveFenceposts(d);
    let initial = replicas;
    if (existing === undefined && sum(olds, specReplicas) > 0) {
      const current = sum(olds, specReplicas);
      initial = Math.max(0, Math.min(replicas + maxSurge - current, replicas));
    }
    const newRS = this.getOrCreateNew(d, existing, olds, initial);
    if (newRS === undefined) return;
    if (existing !== undefined && this.reconcileNew(d, newRS, olds, maxSurge)) return;
    this.reconcileOld(d, newRS, olds, maxUnavailable);
  }

  private reconcileNew(d: Deployment, newRS: ReplicaSet, olds: readonly ReplicaSet[], maxSurge: number): boolean {
    const replicas = d.spec?.replicas ?? 1;
    const have = specReplicas(newRS);
    if (have === replicas) return false;
    if (have > replicas) return this.scaleReplicaSet(d, newRS, replicas);
    const current = sum([newRS, ...olds], specReplicas);
    const maxTotal = replicas + maxSurge;
    if (current >= maxTotal) return false;
    return this.scaleReplicaSet(d, newRS, have + Math.min(maxTotal - current, replicas - have));
  }

  private reconcileOld(d: Deployment, newRS: ReplicaSet, olds: readonly ReplicaSet[], maxUnavailable: number): boolean {
    const replicas = d.spec?.replicas ?? 1;
    const live = (rs: ReplicaSet): ReplicaSet => this.ctx.store.get("ReplicaSet", rs.metadata.namespace, rs.metadata.name) ?? rs;
    let oldSets = olds.map(live);
    if (sum(oldSets, specReplicas) === 0) return false;
    const fresh = live(newRS);
    const minAvailable = replicas - maxUnavailable;
    const allPods = sum([fresh, ...oldSets], specReplicas);
    const newUnavailable = specReplicas(fresh) - (fresh.status?.availableReplicas ?? 0);
    const maxScaledDown = allPods - minAvailable - newUnavailable;
    if (maxScaledDown <= 0) return false;
    // Unhealthy replicas of old ReplicaSets go first.
    let cleaned = 0;
    for (const rs of [...oldSets].sort(byCreation)) {
      if (cleaned >= maxScaledDown) break;
      const unhealthy = specReplicas(rs) - (rs.status?.availableReplicas ?? 0);
      if (specReplicas(rs) === 0 || unhealthy <= 0) continue;
      const n = Math.min(maxScaledDown - cleaned, unhealthy);
      this.scaleReplicaSet(d, rs, specReplicas(rs) - n);
      cleaned += n;
    }
    oldSets = oldSets.map(live);
    const available = sum([fresh, ...oldSets], (rs) => rs.status?.availableReplicas ?? 0);
    let scaledDown = 0;
    if (available > minAvailable) {
      const total = available - minAvailable;
      for (const rs of [...oldSets].sort(byCreation)) {
        if (scaledDown >= total) break;
        if (specReplicas(rs) === 0) continue;
        const n = Math.min(specReplicas(rs), total - scaledDown);
        this.scaleReplicaSet(d, rs, specReplicas(rs) - n);
        scaledDown += n;
      }
    }
    return cleaned + scaledDown > 0;
  }

  private recreate(d: Deployment, existing: ReplicaSet | undefined, olds: readonly ReplicaSet[]): void {
    let scaledDown = false;
    for (const rs of olds) if (specReplicas(rs) > 0) scaledDown = this.scaleReplicaSet(d, rs, 0) || scaledDown;
    if (scaledDown) return;
    const oldPodsLeft = olds.some((rs) => (rs.status?.replicas ?? 0) > 0);
    if (oldPodsLeft) return;
    const newRS = this.getOrCreateNew(d, existing, olds, d.spec?.replicas ?? 1);
    if (newRS !== undefined && existing !== undefined) this.scaleReplicaSet(d, newRS, d.spec?.replicas ?? 1);
  }

  /** Sets replicas and the desired/max annotations; records "Scaled up|down replica set X to N from M". */
  private scaleReplicaSet(d: Deployment, rs: ReplicaSet, replicas: number): boolean {
    const current = this.ctx.store.get("ReplicaSet", rs.metadata.namespace, rs.metadata.name);
    if (current === undefined) return false;
    const desired = String(d.spec?.replicas ?? 1);
    const { maxSurge } = resolveFenceposts(d);
    const max = String((d.spec?.replicas ?? 1) + (d.spec?.strategy?.type === "Recreate" ? 0 : maxSurge));
    const old = specReplicas(current);
    const sizeChange = old !== replicas;
    const annotationsChange = current.metadata.annotations?.[DESIRED_ANNOTATION] !== desired || current.metadata.annotations?.[MAX_ANNOTATION] !== max;
    if (!sizeChange && !annotationsChange) return false;
    this.ctx.store.modify("ReplicaSet", rs.metadata.namespace, rs.metadata.name, (r) => {
      r.spec = { ...r.spec!, replicas };
      const a = (r.metadata.annotations ??= {});
      a[DESIRED_ANNOTATION] = desired;
      a[MAX_ANNOTATION] = max;
    });
    if (sizeChange) {
      const op = old < replicas ? "up" : "down";
      this.ctx.events.record(d, "Normal", "ScalingReplicaSet", `Scaled ${op} replica set ${rs.metadata.name} to ${replicas} from ${old}`, SOURCE);
    }
    return sizeChange;
  }

  /** Deletes the oldest empty old ReplicaSets beyond revisionHistoryLimit. */
  private cleanup(d: Deployment, olds: readonly ReplicaSet[]): void {
    const limit = d.spec?.revisionHistoryLimit ?? 10;
    const empty = olds.filter((rs) => specReplicas(rs) === 0 && (rs.status?.replicas ?? 0) === 0 && rs.metadata.deletionTimestamp === undefined).sort(byCreation);
    for (const rs of empty.slice(0, Math.max(0, empty.length - limit))) this.ctx.store.delete("ReplicaSet", rs.metadata.namespace, rs.metadata.name);
  }

  private updateStatus(d: Deployment, newRS: ReplicaSet | undefined, all: readonly ReplicaSet[]): void {
    const current = this.ctx.store.get("Deployment", d.metadata.namespace, d.metadata.name);
    if (current === undefined) return;
    const replicas = current.spec?.replicas ?? 1;
    const available = sum(all, (rs) => rs.status?.availableReplicas ?? 0);
    const { maxUnavailable } = resolveFenceposts(current);
    const now = this.ctx.wall.timestamp();
    const availableCondition: DeploymentCondition =
      available >= replicas - maxUnavailable
        ? { type: "Available", status: "True", reason: "MinimumReplicasAvailable", message: "Deployment has minimum availability." }
        : { type: "Available", status: "False", reason: "MinimumReplicasUnavailable", message: "Deployment does not have minimum availability." };
    const complete = newRS !== undefined && (newRS.status?.availableReplicas ?? 0) >= replicas && specReplicas(newRS) === replicas && all.every((rs) => rs === newRS || specReplicas(rs) === 0);
    const progressing: DeploymentCondition = complete
      ? { type: "Progressing", status: "True", reason: "NewReplicaSetAvailable", message: `ReplicaSet "${newRS.metadata.name}" has successfully progressed.` }
      : { type: "Progressing", status: "True", reason: "ReplicaSetUpdated", message: `ReplicaSet "${newRS?.metadata.name ?? ""}" is progressing.` };
    const status: DeploymentStatus = {
      ...(current.status?.collisionCount === undefined ? {} : { collisionCount: current.status.collisionCount }),
      observedGeneration: current.metadata.generation ?? 1,
      replicas: sum(all, (rs) => rs.status?.replicas ?? 0),
      updatedReplicas: newRS?.status?.replicas ?? 0,
      readyReplicas: sum(all, (rs) => rs.status?.readyReplicas ?? 0),
      availableReplicas: available,
      unavailableReplicas: Math.max(0, sum(all, specReplicas) - available),
      conditions: [availableCondition, progressing].map((c) => {
        const old = current.status?.conditions?.find((o) => o.type === c.type);
        const same = old !== undefined && old.status === c.status && old.reason === c.reason && old.message === c.message;
        return same ? old : { ...c, lastUpdateTime: now, lastTransitionTime: old?.status === c.status ? (old.lastTransitionTime ?? now) : now };
      }),
    };
    if (stableJson(current.status) === stableJson(status)) return;
    this.ctx.store.modify("Deployment", d.metadata.namespace, d.metadata.name, (dd) => {
      dd.status = status;
    });
  }
}

// PodDisruptionBudgets: the disruption controller's status (expectedPods, currentHealthy,
// desiredHealthy, disruptionsAllowed) and the Eviction API that consults it: 429 "Cannot evict
// pod as it would violate the pod's disruption budget." when no disruption is allowed, else the
// budget is charged and the pod deleted gracefully.
import type { PodDisruptionBudgetStatus } from "kubernetes-types/policy/v1.js";
import { compileSelector } from "../k8s/selector.js";
import type { KubeObject } from "../k8s/index.js";
import type { ControllerContext } from "./context.js";
import { deletePod } from "./pod-deletion.js";
import { controllerOf, isPodReady, isTerminating, podPhase, scaledValue, type Pod } from "./objects.js";

type Pdb = KubeObject<"PodDisruptionBudget">;

export const PDB_VIOLATION = "Cannot evict pod as it would violate the pod's disruption budget.";

export type EvictionResult =
  | { readonly ok: true }
  | { readonly ok: false; readonly code: 404 | 429 | 500; readonly reason: "NotFound" | "TooManyRequests" | "InternalError"; readonly message: string };

function podsOf(ctx: ControllerContext, pdb: Pdb): Pod[] {
  if (pdb.spec?.selector === undefined || pdb.spec.selector === null) return [];
  const sel = compileSelector(pdb.spec.selector);
  return ctx.store.list("Pod", { namespace: pdb.metadata.namespace ?? "default", labels: (l) => sel.matches(l) });
}

/** Replicas the pods' controllers want (Deployment over its ReplicaSet, as the disruption controller's finders do). */
function expectedScale(ctx: ControllerContext, pods: readonly Pod[]): number {
  const seen = new Set<string>();
  let total = 0;
  for (const pod of pods) {
    const ref = controllerOf(pod);
    if (ref === undefined || seen.has(ref.uid)) continue;
    seen.add(ref.uid);
    const ns = pod.metadata.namespace;
    if (ref.kind === "ReplicaSet") {
      const rs = ctx.store.get("ReplicaSet", ns, ref.name);
      const owner = rs === undefined ? undefined : controllerOf(rs);
      const d = owner?.kind === "Deployment" ? ctx.store.get("Deployment", ns, owner.name) : undefined;
      total += d?.spec?.replicas ?? rs?.spec?.replicas ?? 0;
    } else if (ref.kind === "DaemonSet") {
      total += ctx.store.get("DaemonSet", ns, ref.name)?.status?.desiredNumberScheduled ?? 0;
    }
  }
  return total;
}

export function computePdbStatus(ctx: ControllerContext, pdb: Pdb): PodDisruptionBudgetStatus {
  const pods = podsOf(ctx, pdb);
  const healthy = pods.filter((p) => !isTerminating(p) && isPodReady(p)).length;
  const { minAvailable, maxUnavailable } = pdb.spec ?? {};
  let expected: number;
  let desired: number;
  if (maxUnavailable !== undefined && maxUnavailable !== null) {
    expected = expectedScale(ctx, pods);
    desired = Math.max(0, expected - scaledValue(maxUnavailable, expected, true, 0));
  } else if (typeof minAvailable === "string" && minAvailable.endsWith("%")) {
    expected = expectedScale(ctx, pods);
    desired = scaledValue(minAvailable, expected, true, 0);
  } else {
    expected = pods.length;
    desired = scaledValue(minAvailable, expected, true, 0);
  }
  const allowed = Math.max(0, healthy - desired);
  return {
    observedGeneration: pdb.metadata.generation ?? 1,
    expectedPods: expected,
    currentHealthy: healthy,
    desiredHealthy: desired,
    disruptionsAllowed: allowed,
    conditions: [
      allowed > 0
        ? { type: "DisruptionAllowed", status: "True", reason: "SufficientPods", message: "", lastTransitionTime: ctx.wall.timestamp() }
        : { type: "DisruptionAllowed", status: "False", reason: "InsufficientPods", message: "", lastTransitionTime: ctx.wall.timestamp() },
    ],
  };
}

export class DisruptionController {
  constructor(private readonly ctx: ControllerContext) {}

  sync(): void {
    for (const pdb of this.ctx.store.list("PodDisruptionBudget")) this.syncOne(pdb);
  }

  syncOne(pdb: Pdb): void {
    const status = computePdbStatus(this.ctx, pdb);
    const old = pdb.status;
    const same =
      old !== undefined &&
      old.currentHealthy === status.currentHealthy &&
      old.desiredHealthy === status.desiredHealthy &&
      old.disruptionsAllowed === status.disruptionsAllowed &&
      old.expectedPods === status.expectedPods &&
      old.observedGeneration === status.observedGeneration;
    if (same) return;
    this.ctx.store.modify("PodDisruptionBudget", pdb.metadata.namespace, pdb.metadata.name, (p) => {
      const keep = old?.conditions?.[0]?.status === status.conditions![0]!.status ? old.conditions : status.conditions;
      p.status = { ...status, ...(keep === undefined ? {} : { conditions: keep }) };
    });
  }
}

/** POST pods/NAME/eviction (policy/v1), as the API server's eviction REST handler decides it. */
export function evictPod(ctx: ControllerContext, namespace: string, name: string): EvictionResult {
  const pod = ctx.store.get("Pod", namespace, name);
  if (pod === undefined) return { ok: false, code: 404, reason: "NotFound", message: `pods "${name}" not found` };
  if (isTerminating(pod)) return { ok: true };
  const phase = podPhase(pod);
  const pdbs = ctx.store.list("PodDisruptionBudget", {
    namespace,
    where: (p) => p.spec?.selector !== undefined && compileSelector(p.spec.selector).matches(pod.metadata.labels ?? {}),
  });
  if (phase === "Succeeded" || phase === "Failed" || phase === "Pending" || pdbs.length === 0) {
    deletePod(ctx, pod);
    return { ok: true };
  }
  if (pdbs.length > 1) {
    return { ok: false, code: 500, reason: "InternalError", message: "This pod has more than one PodDisruptionBudget, which the eviction subresource does not support." };
  }
  const pdb = pdbs[0]!;
  const status = computePdbStatus(ctx, pdb);
  const unhealthyOk = !isPodReady(pod) && (status.currentHealthy ?? 0) >= (status.desiredHealthy ?? 0);
  if (!unhealthyOk) {
    if ((status.disruptionsAllowed ?? 0) <= 0) return { ok: false, code: 429, reason: "TooManyRequests", message: PDB_VIOLATION };
    ctx.store.modify("PodDisruptionBudget", namespace, pdb.metadata.name, (p) => {
      const s = (p.status ??= { currentHealthy: 0, desiredHealthy: 0, disruptionsAllowed: 0, expectedPods: 0 });
      p.status = { ...s, disruptionsAllowed: Math.max(0, (status.disruptionsAllowed ?? 1) - 1), disruptedPods: { ...s.disruptedPods, [name]: ctx.wall.timestamp() } };
    });
  }
  deletePod(ctx, pod);
  return { ok: true };
}

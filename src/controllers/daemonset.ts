// The DaemonSet controller: one pod per node the pod may run on (nodeSelector, required node
// affinity, NoSchedule/NoExecute taints against its tolerations), created with the tolerations
// upstream adds to every daemon pod and a required node affinity naming the node (the default
// scheduler then binds it); pods on nodes that no longer qualify are deleted unless they
// tolerate the node's NoExecute taints. Status as `kubectl get ds` shows it.
import type { Affinity, PodSpec, Toleration } from "kubernetes-types/core/v1.js";
import type { DaemonSetStatus } from "kubernetes-types/apps/v1.js";
import type { KubeObject } from "../k8s/index.js";
import type { ControllerContext } from "./context.js";
import { deletePod } from "./pod-deletion.js";
import { podFromTemplate } from "./pod-template.js";
import { copy, isActivePod, isControlledBy, isPodReady, writeStatus, type Pod } from "./objects.js";
import { computeTemplateHash } from "./template-hash/compute-hash.js";
import { firstUntolerated, podFitsNodeAffinity, toleratesTaint } from "./tolerations.js";

type DaemonSet = KubeObject<"DaemonSet">;
type Node = KubeObject<"Node">;
const SOURCE = { component: "daemonset-controller" };

/** util.AddOrUpdateDaemonPodTolerations, in upstream's order. */
export function daemonPodTolerations(spec: PodSpec): Toleration[] {
  const extra: Toleration[] = [
    { key: "node.kubernetes.io/not-ready", operator: "Exists", effect: "NoExecute" },
    { key: "node.kubernetes.io/unreachable", operator: "Exists", effect: "NoExecute" },
    { key: "node.kubernetes.io/disk-pressure", operator: "Exists", effect: "NoSchedule" },
    { key: "node.kubernetes.io/memory-pressure", operator: "Exists", effect: "NoSchedule" },
    { key: "node.kubernetes.io/pid-pressure", operator: "Exists", effect: "NoSchedule" },
    { key: "node.kubernetes.io/unschedulable", operator: "Exists", effect: "NoSchedule" },
  ];
  if (spec.hostNetwork === true) extra.push({ key: "node.kubernetes.io/network-unavailable", operator: "Exists", effect: "NoSchedule" });
  const out = [...(spec.tolerations ?? [])];
  for (const t of extra) {
    const i = out.findIndex((o) => o.key === t.key && o.effect === t.effect);
    if (i >= 0) out[i] = t;
    else out.push(t);
  }
  return out;
}

/** ReplaceDaemonSetPodNodeNameNodeAffinity: the required node affinity becomes metadata.name In [node]. */
export function nodeNameAffinity(affinity: Affinity | undefined, node: string): Affinity {
  const required = { nodeSelectorTerms: [{ matchFields: [{ key: "metadata.name", operator: "In", values: [node] }] }] };
  const a = copy(affinity ?? {});
  a.nodeAffinity = { ...a.nodeAffinity, requiredDuringSchedulingIgnoredDuringExecution: required };
  return a;
}

/** The node a daemon pod is for: its binding, else the node its node affinity names. */
function targetNode(pod: Pod): string | undefined {
  if ((pod.spec?.nodeName ?? "") !== "") return pod.spec!.nodeName;
  const terms = pod.spec?.affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution?.nodeSelectorTerms ?? [];
  return terms[0]?.matchFields?.find((f) => f.key === "metadata.name")?.values?.[0];
}

export class DaemonSetController {
  constructor(private readonly ctx: ControllerContext) {}

  sync(): void {
    const nodes = this.ctx.store.list("Node");
    for (const ds of this.ctx.store.list("DaemonSet")) if (ds.metadata.deletionTimestamp === undefined) this.syncOne(ds, nodes);
  }

  /** (should run a new pod, may keep an existing one) for a node, as nodeShouldRunDaemonPod decides. */
  private placement(ds: DaemonSet, node: Node): { run: boolean; keep: boolean } {
    const spec = ds.spec!.template.spec ?? { containers: [] };
    const probe: Pod = { apiVersion: "v1", kind: "Pod", metadata: { name: "probe" }, spec: { ...spec, tolerations: daemonPodTolerations(spec) } };
    if ((spec.nodeName ?? "") !== "" && spec.nodeName !== node.metadata.name) return { run: false, keep: false };
    if (!podFitsNodeAffinity(probe, node)) return { run: false, keep: false };
    const taints = node.spec?.taints ?? [];
    const tolerations = probe.spec!.tolerations ?? [];
    if (firstUntolerated(taints, tolerations, (t) => t.effect === "NoSchedule" || t.effect === "NoExecute") === undefined) return { run: true, keep: true };
    const noExecuteOk = taints.filter((t) => t.effect === "NoExecute").every((t) => tolerations.some((tol) => toleratesTaint(tol, t)));
    return { run: false, keep: noExecuteOk };
  }

  private syncOne(ds: DaemonSet, nodes: readonly Node[]): void {
    const template = ds.spec?.template;
    if (template === undefined) return;
    const hash = computeTemplateHash(template, ds.status?.collisionCount).hash;
    const pods = this.ctx.store.list("Pod", { namespace: ds.metadata.namespace ?? "default", where: (p) => isControlledBy(p, ds) && isActivePod(p) });
    const byNode = new Map<string, Pod[]>();
    for (const p of pods) {
      const n = targetNode(p) ?? "";
      byNode.set(n, [...(byNode.get(n) ?? []), p]);
    }
    let desired = 0;
    let misscheduled = 0;
    for (const node of nodes) {
      const { run, keep } = this.placement(ds, node);
      const here = byNode.get(node.metadata.name) ?? [];
      if (run) desired++;
      if (run && here.length === 0) this.createPod(ds, node.metadata.name, hash);
      else if (!keep) {
        if (here.length > 0) misscheduled++;
        for (const p of here) if (deletePod(this.ctx, p).ok) this.ctx.events.record(ds, "Normal", "SuccessfulDelete", `Deleted pod: ${p.metadata.name}`, SOURCE);
      } else if (here.length > 1) {
        for (const p of here.slice(1)) deletePod(this.ctx, p);
      }
    }
    this.updateStatus(ds, desired, misscheduled, hash);
  }

  private createPod(ds: DaemonSet, node: string, hash: string): void {
    const template = copy(ds.spec!.template);
    template.metadata = {
      ...template.metadata,
      labels: { ...template.metadata?.labels, "controller-revision-hash": hash, "pod-template-generation": String(ds.metadata.generation ?? 1) },
    };
    const spec = template.spec ?? { containers: [] };
    spec.tolerations = daemonPodTolerations(spec);
    spec.affinity = nodeNameAffinity(spec.affinity, node);
    template.spec = spec;
    const pod = podFromTemplate(this.ctx, template, ds, `${ds.metadata.name}-`);
    if (this.ctx.store.add(pod).ok) this.ctx.events.record(ds, "Normal", "SuccessfulCreate", `Created pod: ${pod.metadata.name}`, SOURCE);
  }

  private updateStatus(ds: DaemonSet, desired: number, misscheduled: number, hash: string): void {
    const pods = this.ctx.store.list("Pod", { namespace: ds.metadata.namespace ?? "default", where: (p) => isControlledBy(p, ds) && isActivePod(p) });
    const scheduled = pods.filter((p) => (p.spec?.nodeName ?? "") !== "");
    const ready = scheduled.filter(isPodReady);
    const updated = scheduled.filter((p) => p.metadata.labels?.["controller-revision-hash"] === hash);
    const status: DaemonSetStatus = {
      currentNumberScheduled: new Set(pods.map(targetNode)).size,
      desiredNumberScheduled: desired,
      numberMisscheduled: misscheduled,
      numberReady: ready.length,
      numberAvailable: ready.length,
      numberUnavailable: Math.max(0, desired - ready.length),
      updatedNumberScheduled: updated.length,
      observedGeneration: ds.metadata.generation ?? 1,
    };
    const old = ds.status;
    if (old !== undefined && (Object.keys(status) as (keyof DaemonSetStatus)[]).every((k) => old[k] === status[k])) return;
    this.ctx.store.modify("DaemonSet", ds.metadata.namespace, ds.metadata.name, (d) => {
      writeStatus(d, { ...d.status, ...status });
    });
  }
}

// API-server defaulting (SetDefaults_* of k8s.io/kubernetes pkg/apis/*/v1) and the default
// admission plugins that matter here (Priority, DefaultTolerationSeconds). Functions mutate
// the object they are given; controllers creating pods from templates call defaultPod too.
import type { DaemonSet, Deployment, ReplicaSet } from "kubernetes-types/apps/v1.js";
import type { Container, Endpoints, Namespace, Pod, PodSpec, PodStatus, Service, Toleration } from "kubernetes-types/core/v1.js";
import type { NetworkPolicy } from "kubernetes-types/networking/v1.js";
import { parseQuantity, quantityMilliValue } from "./quantity.js";

/** Something defaulting could not do faithfully, reported as a warning at `path`. */
export interface DefaultsWarning {
  readonly path: string;
  readonly message: string;
}

/** Built-in PriorityClasses every cluster has (scheduling.k8s.io). */
export const SYSTEM_PRIORITY_CLASSES: Readonly<Record<string, number>> = {
  "system-node-critical": 2000001000,
  "system-cluster-critical": 2000000000,
};

/** The tolerations DefaultTolerationSeconds adds to every pod (300 s each). */
export const DEFAULT_NOT_READY_TOLERATION_SECONDS = 300;
const DEFAULT_TOLERATION_KEYS = ["node.kubernetes.io/not-ready", "node.kubernetes.io/unreachable"];

/** Always for ":latest" or untagged images, else IfNotPresent (SetDefaults_Container). */
export function defaultImagePullPolicy(image: string | undefined): string {
  if (image === undefined || image === "") return "IfNotPresent";
  if (image.includes("@")) return "IfNotPresent";
  const lastSlash = image.lastIndexOf("/");
  const colon = image.indexOf(":", lastSlash + 1);
  const tag = colon < 0 ? "" : image.slice(colon + 1);
  return tag === "" || tag === "latest" ? "Always" : "IfNotPresent";
}

function defaultContainer(c: Container): void {
  c.terminationMessagePath ??= "/dev/termination-log";
  c.terminationMessagePolicy ??= "File";
  c.imagePullPolicy ??= defaultImagePullPolicy(c.image);
  for (const port of c.ports ?? []) port.protocol ??= "TCP";
}

export function defaultPodSpec(spec: PodSpec): void {
  spec.dnsPolicy ??= "ClusterFirst";
  spec.restartPolicy ??= "Always";
  spec.terminationGracePeriodSeconds ??= 30;
  spec.schedulerName ??= "default-scheduler";
  spec.securityContext ??= {};
  for (const c of [...(spec.initContainers ?? []), ...(spec.containers ?? [])]) {
    defaultContainer(c);
    if (spec.hostNetwork === true) for (const port of c.ports ?? []) port.hostPort ??= port.containerPort;
  }
}

function tolerates(list: readonly Toleration[], key: string): boolean {
  return list.some(
    (t) => (t.key === key || ((t.key ?? "") === "" && t.operator === "Exists")) && (t.effect === "NoExecute" || (t.effect ?? "") === ""),
  );
}

/** BestEffort, Guaranteed or Burstable from cpu/memory requests and limits (upstream qos.GetPodQOS). */
export function podQosClass(spec: PodSpec): "BestEffort" | "Guaranteed" | "Burstable" {
  const containers = [...(spec.initContainers ?? []), ...(spec.containers ?? [])];
  const nonZero = (text: string | undefined): boolean => {
    if (text === undefined) return false;
    const q = parseQuantity(text);
    return q.ok && quantityMilliValue(q.value) !== 0;
  };
  let any = false;
  let guaranteed = true;
  for (const c of containers) {
    const req = c.resources?.requests ?? {};
    const lim = c.resources?.limits ?? {};
    for (const r of ["cpu", "memory"]) {
      if (nonZero(req[r]) || nonZero(lim[r])) any = true;
      if (!nonZero(lim[r]) || (req[r] !== undefined && !sameQuantity(req[r], lim[r]))) guaranteed = false;
    }
  }
  if (!any) return "BestEffort";
  return guaranteed ? "Guaranteed" : "Burstable";
}

function sameQuantity(a: string, b: string | undefined): boolean {
  if (b === undefined) return false;
  const qa = parseQuantity(a);
  const qb = parseQuantity(b);
  return qa.ok && qb.ok && quantityMilliValue(qa.value) === quantityMilliValue(qb.value);
}

/**
 * Defaults of a Pod object as created through the API: SetDefaults_Pod (requests default to
 * limits), the PodSpec defaults, and the Priority and DefaultTolerationSeconds admission plugins.
 * Returns a warning when the priority class is unknown, else null.
 */
export function defaultPod(pod: Pod): DefaultsWarning | null {
  const spec = (pod.spec ??= { containers: [] });
  for (const c of [...(spec.initContainers ?? []), ...(spec.containers ?? [])]) {
    const limits = c.resources?.limits;
    if (limits === undefined) continue;
    const resources = (c.resources ??= {});
    const requests = (resources.requests ??= {});
    for (const [name, value] of Object.entries(limits)) requests[name] ??= value;
  }
  defaultPodSpec(spec);
  // SetDefaults_Pod only: pod templates of workloads keep the field unset, as the API server stores them.
  spec.enableServiceLinks ??= true;
  let warning: DefaultsWarning | null = null;
  if (spec.priority === undefined) {
    const cls = spec.priorityClassName;
    const known = cls === undefined ? 0 : SYSTEM_PRIORITY_CLASSES[cls];
    if (known === undefined) {
      warning = { path: "spec.priorityClassName", message: `PriorityClass ${JSON.stringify(cls)} is not modelled; priority 0 is used` };
    }
    spec.priority = known ?? 0;
  }
  spec.preemptionPolicy ??= "PreemptLowerPriority";
  const tolerations = (spec.tolerations ??= []);
  for (const key of DEFAULT_TOLERATION_KEYS) {
    if (!tolerates(tolerations, key)) {
      tolerations.push({ key, operator: "Exists", effect: "NoExecute", tolerationSeconds: DEFAULT_NOT_READY_TOLERATION_SECONDS });
    }
  }
  // kubernetes-types marks status read-only (clients do not write it); the API server does.
  const status = ((pod as { status?: PodStatus }).status ??= {});
  status.phase ??= "Pending";
  status.qosClass ??= podQosClass(spec);
  return warning;
}

export function defaultService(svc: Service): void {
  const spec = (svc.spec ??= {});
  spec.type ??= "ClusterIP";
  spec.sessionAffinity ??= "None";
  if (spec.sessionAffinity === "ClientIP") {
    const cfg = (spec.sessionAffinityConfig ??= {});
    const client = (cfg.clientIP ??= {});
    client.timeoutSeconds ??= 10800;
  }
  for (const port of spec.ports ?? []) {
    port.protocol ??= "TCP";
    if (port.targetPort === undefined || port.targetPort === 0 || port.targetPort === "") port.targetPort = port.port;
  }
  if (spec.type === "NodePort" || spec.type === "LoadBalancer") spec.externalTrafficPolicy ??= "Cluster";
  if (spec.type === "LoadBalancer") spec.allocateLoadBalancerNodePorts ??= true;
  if (spec.type !== "ExternalName") {
    spec.internalTrafficPolicy ??= "Cluster";
    spec.ipFamilyPolicy ??= "SingleStack";
    spec.ipFamilies ??= ["IPv4"];
  }
}

export function defaultDeployment(d: Deployment): void {
  const spec = d.spec!;
  spec.replicas ??= 1;
  const strategy = (spec.strategy ??= {});
  strategy.type ??= "RollingUpdate";
  if (strategy.type === "RollingUpdate") {
    const ru = (strategy.rollingUpdate ??= {});
    ru.maxUnavailable ??= "25%";
    ru.maxSurge ??= "25%";
  }
  spec.revisionHistoryLimit ??= 10;
  spec.progressDeadlineSeconds ??= 600;
  if (spec.template.spec !== undefined) defaultPodSpec(spec.template.spec);
}

export function defaultReplicaSet(rs: ReplicaSet): void {
  const spec = rs.spec!;
  spec.replicas ??= 1;
  if (spec.template?.spec !== undefined) defaultPodSpec(spec.template.spec);
}

export function defaultDaemonSet(ds: DaemonSet): void {
  const spec = ds.spec!;
  const us = (spec.updateStrategy ??= {});
  us.type ??= "RollingUpdate";
  if (us.type === "RollingUpdate") {
    const ru = (us.rollingUpdate ??= {});
    ru.maxUnavailable ??= 1;
    ru.maxSurge ??= 0;
  }
  spec.revisionHistoryLimit ??= 10;
  if (spec.template.spec !== undefined) defaultPodSpec(spec.template.spec);
}

/** Ports default to TCP; policyTypes is left as written (the policy layer defaults it). */
export function defaultNetworkPolicy(np: NetworkPolicy): void {
  const spec = (np.spec ??= { podSelector: {} });
  spec.podSelector ??= {};
  for (const rule of [...(spec.ingress ?? []), ...(spec.egress ?? [])]) for (const port of rule.ports ?? []) port.protocol ??= "TCP";
}

/** Whether a loaded NetworkPolicy had policyTypes written (the loader never fills it in). */
export function policyTypesGiven(np: NetworkPolicy): boolean {
  return np.spec?.policyTypes !== undefined;
}

/** The API server labels every namespace with its name (kubernetes.io/metadata.name). */
export function defaultNamespace(ns: Namespace): void {
  const meta = (ns.metadata ??= {});
  const labels = (meta.labels ??= {});
  if (meta.name !== undefined) labels["kubernetes.io/metadata.name"] = meta.name;
  const spec = (ns.spec ??= {});
  spec.finalizers ??= ["kubernetes"];
  const status = (ns.status ??= {});
  status.phase ??= "Active";
}

export function defaultEndpoints(ep: Endpoints): void {
  for (const subset of ep.subsets ?? []) for (const port of subset.ports ?? []) port.protocol ??= "TCP";
}

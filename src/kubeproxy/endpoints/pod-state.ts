// The pod facts the endpoints controllers read: readiness (the Ready condition), the pod's IPv4
// address, terminal phases, and which pods belong in a service's endpoints at all
// (endpointsliceutil.ShouldPodBeInEndpoints), plus the service's equality selector.
import type { KubeObject } from "../../k8s/index.js";

export type Pod = KubeObject<"Pod">;
export type Service = KubeObject<"Service">;

export function isPodReady(pod: Pod): boolean {
  return pod.status?.conditions?.some((c) => c.type === "Ready" && c.status === "True") === true;
}

export function isPodTerminating(pod: Pod): boolean {
  return pod.metadata.deletionTimestamp !== undefined;
}

/** Succeeded or Failed: the containers will not run again. */
export function isPodTerminal(pod: Pod): boolean {
  const phase = pod.status?.phase;
  return phase === "Succeeded" || phase === "Failed";
}

/** The pod's IPv4 address ("" while it has none). */
export function podIPv4(pod: Pod): string {
  const ips = [pod.status?.podIP, ...(pod.status?.podIPs ?? []).map((p) => p.ip)];
  return ips.find((ip): ip is string => ip !== undefined && ip !== "" && !ip.includes(":")) ?? "";
}

export function shouldPodBeInEndpoints(pod: Pod, includeTerminating: boolean): boolean {
  if (isPodTerminal(pod)) return false;
  if (podIPv4(pod) === "") return false;
  return includeTerminating || !isPodTerminating(pod);
}

/** The service's selector as a predicate; null when it has none (endpoints are not managed). */
export function serviceSelector(svc: Service): ((labels: Readonly<Record<string, string>>) => boolean) | null {
  const sel = svc.spec?.selector;
  if (sel === undefined || Object.keys(sel).length === 0) return null;
  const entries = Object.entries(sel);
  return (labels) => entries.every(([k, v]) => labels[k] === v);
}

/** Pods of the service's namespace its selector picks, in namespace/name order. */
export function selectedPods(svc: Service, pods: readonly Pod[]): Pod[] {
  const match = serviceSelector(svc);
  if (match === null) return [];
  const ns = svc.metadata.namespace ?? "default";
  return pods.filter((p) => (p.metadata.namespace ?? "default") === ns && match(p.metadata.labels ?? {}));
}

// The resources the read-only API serves, by group and version: their plural and singular names,
// kind, scope and short names, as discovery lists them and as request paths name them.
import type { KindName } from "../k8s/index.js";

export interface ApiResource {
  readonly group: string;
  readonly version: string;
  /** Plural name in paths ("pods"). */
  readonly resource: string;
  readonly singular: string;
  readonly kind: string;
  /** The store kind holding the objects; null for metrics (computed, not stored). */
  readonly storeKind: KindName | null;
  readonly namespaced: boolean;
  readonly shortNames: readonly string[];
  readonly categories: readonly string[];
}

export const READ_VERBS: readonly string[] = ["get", "list"];

const r = (
  group: string,
  version: string,
  resource: string,
  kind: string,
  storeKind: KindName | null,
  namespaced: boolean,
  shortNames: readonly string[] = [],
  categories: readonly string[] = [],
): ApiResource => ({ group, version, resource, singular: kind.toLowerCase(), kind, storeKind, namespaced, shortNames, categories });

export const API_RESOURCES: readonly ApiResource[] = [
  r("", "v1", "endpoints", "Endpoints", "Endpoints", true, ["ep"]),
  r("", "v1", "events", "Event", "Event", true, ["ev"]),
  r("", "v1", "namespaces", "Namespace", "Namespace", false, ["ns"]),
  r("", "v1", "nodes", "Node", "Node", false, ["no"]),
  r("", "v1", "pods", "Pod", "Pod", true, ["po"], ["all"]),
  r("", "v1", "services", "Service", "Service", true, ["svc"], ["all"]),
  r("apps", "v1", "daemonsets", "DaemonSet", "DaemonSet", true, ["ds"], ["all"]),
  r("apps", "v1", "deployments", "Deployment", "Deployment", true, ["deploy"], ["all"]),
  r("apps", "v1", "replicasets", "ReplicaSet", "ReplicaSet", true, ["rs"], ["all"]),
  r("networking.k8s.io", "v1", "networkpolicies", "NetworkPolicy", "NetworkPolicy", true, ["netpol"]),
  r("policy", "v1", "poddisruptionbudgets", "PodDisruptionBudget", "PodDisruptionBudget", true, ["pdb"]),
  r("metrics.k8s.io", "v1beta1", "nodes", "NodeMetrics", null, false),
  r("metrics.k8s.io", "v1beta1", "pods", "PodMetrics", null, true),
];

/** Groups in the order /apis lists them, each with its one served version. */
export const API_GROUPS: readonly { readonly name: string; readonly version: string }[] = [
  { name: "apps", version: "v1" },
  { name: "networking.k8s.io", version: "v1" },
  { name: "policy", version: "v1" },
  { name: "metrics.k8s.io", version: "v1beta1" },
];

export function resourcesOf(group: string, version: string): ApiResource[] {
  return API_RESOURCES.filter((x) => x.group === group && x.version === version);
}

export function findResource(group: string, version: string, resource: string): ApiResource | undefined {
  return API_RESOURCES.find((x) => x.group === group && x.version === version && x.resource === resource);
}

/** "v1" for the core group, "apps/v1" otherwise. */
export const groupVersion = (group: string, version: string): string => (group === "" ? version : `${group}/${version}`);

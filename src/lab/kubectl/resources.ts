// The resource types kubectl commands name: every alias a user may type ("po", "deploy",
// "deployments.apps", ...) mapped to the stored kind, and the names kubectl prints for it
// ("deployment.apps/web created", `deployments.apps "web" not found`).
import { RESOURCE_NAMES, type KindName } from "../../k8s/index.js";

export interface ResourceType {
  readonly kind: KindName;
  /** Singular with group, as in "deployment.apps/web". */
  readonly singular: string;
  /** Plural with group, as in `deployments.apps "web"`. */
  readonly plural: string;
  readonly namespaced: boolean;
}

const TYPES: readonly (readonly [KindName, string, string, readonly string[]])[] = [
  ["Pod", "pod", "", ["po", "pod", "pods"]],
  ["Node", "node", "", ["no", "node", "nodes"]],
  ["Namespace", "namespace", "", ["ns", "namespace", "namespaces"]],
  ["Service", "service", "", ["svc", "service", "services"]],
  ["Endpoints", "endpoints", "", ["ep", "endpoints"]],
  ["Event", "event", "", ["ev", "event", "events"]],
  ["Deployment", "deployment", "apps", ["deploy", "deployment", "deployments"]],
  ["ReplicaSet", "replicaset", "apps", ["rs", "replicaset", "replicasets"]],
  ["DaemonSet", "daemonset", "apps", ["ds", "daemonset", "daemonsets"]],
  ["NetworkPolicy", "networkpolicy", "networking.k8s.io", ["netpol", "networkpolicy", "networkpolicies"]],
  ["PodDisruptionBudget", "poddisruptionbudget", "policy", ["pdb", "poddisruptionbudget", "poddisruptionbudgets"]],
  ["ConfigMap", "configmap", "", ["cm", "configmap", "configmaps"]],
];

const BY_ALIAS = new Map<string, ResourceType>();
const BY_KIND = new Map<KindName, ResourceType>();
for (const [kind, singular, group, aliases] of TYPES) {
  const t: ResourceType = {
    kind,
    singular: group === "" ? singular : `${singular}.${group}`,
    plural: RESOURCE_NAMES[kind],
    namespaced: kind !== "Node" && kind !== "Namespace",
  };
  BY_KIND.set(kind, t);
  for (const a of aliases) {
    BY_ALIAS.set(a, t);
    if (group !== "") BY_ALIAS.set(`${a}.${group}`, t);
  }
}

/** The type a user typed ("deploy", "deployments.apps", "Deployment"), or undefined. */
export function resourceType(text: string): ResourceType | undefined {
  return BY_ALIAS.get(text.toLowerCase());
}

export function resourceOfKind(kind: KindName): ResourceType {
  return BY_KIND.get(kind)!;
}

/** "TYPE/NAME" or "TYPE NAME" arguments: [type, names]. */
export function splitTypeAndNames(args: readonly string[]): { type: string; names: string[] } | null {
  if (args.length === 0) return null;
  const first = args[0]!;
  if (first.includes("/")) {
    const pairs = args.map((a) => a.split("/"));
    const type = pairs[0]![0]!;
    if (pairs.some((p) => p.length !== 2 || p[0] !== type)) return null;
    return { type, names: pairs.map((p) => p[1]!) };
  }
  return { type: first, names: args.slice(1) };
}

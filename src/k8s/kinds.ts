// The kinds cnisim loads: apiVersion, scope, field shape, semantic checks and defaults of each.
import type { Cluster } from "./cluster-types.js";
import { CLUSTER_API_VERSION } from "./cluster-types.js";
import { checkCluster } from "./checks/cluster.js";
import type { CheckContext } from "./checks/context.js";
import { checkConfigMap } from "./checks/configmap.js";
import { checkNetworkPolicy } from "./checks/networkpolicy.js";
import { checkNode, checkPod, checkPodDisruptionBudget } from "./checks/objects.js";
import { checkService } from "./checks/service.js";
import { checkDaemonSet, checkDeployment, checkReplicaSet } from "./checks/workloads.js";
import {
  defaultDaemonSet,
  defaultDeployment,
  defaultEndpoints,
  defaultNamespace,
  defaultNetworkPolicy,
  defaultPod,
  defaultReplicaSet,
  defaultService,
  type DefaultsWarning,
} from "./defaults.js";
import { configMapShape } from "./schema/configmap.js";
import { clusterShape } from "./schema/cluster.js";
import { eventShape, namespaceShape, nodeShape, podDisruptionBudgetShape } from "./schema/cluster-objects.js";
import { networkPolicyShape } from "./schema/networkpolicy.js";
import { podShape } from "./schema/pod.js";
import { endpointsShape, serviceShape } from "./schema/service.js";
import type { ObjectShape } from "./schema/shape.js";
import { daemonSetShape, deploymentShape, replicaSetShape } from "./schema/workloads.js";
import type { KindMap, KindName } from "./types.js";

export interface KindInfo<T> {
  readonly kind: string;
  readonly apiVersion: string;
  readonly namespaced: boolean;
  readonly shape: ObjectShape;
  readonly check?: (obj: T, ctx: CheckContext) => void;
  /** Mutates the object; returns a warning when something could not be defaulted faithfully. */
  readonly defaults?: (obj: T) => DefaultsWarning | null | void;
}

type Registry = { readonly [K in KindName]: KindInfo<KindMap[K]> } & { readonly Cluster: KindInfo<Cluster> };

export const KINDS: Registry = {
  Namespace: { kind: "Namespace", apiVersion: "v1", namespaced: false, shape: namespaceShape, defaults: defaultNamespace },
  Node: { kind: "Node", apiVersion: "v1", namespaced: false, shape: nodeShape, check: checkNode },
  Pod: { kind: "Pod", apiVersion: "v1", namespaced: true, shape: podShape, check: checkPod, defaults: defaultPod },
  Service: { kind: "Service", apiVersion: "v1", namespaced: true, shape: serviceShape, check: checkService, defaults: defaultService },
  Endpoints: { kind: "Endpoints", apiVersion: "v1", namespaced: true, shape: endpointsShape, defaults: defaultEndpoints },
  Event: { kind: "Event", apiVersion: "v1", namespaced: true, shape: eventShape },
  ConfigMap: { kind: "ConfigMap", apiVersion: "v1", namespaced: true, shape: configMapShape, check: checkConfigMap },
  Deployment: { kind: "Deployment", apiVersion: "apps/v1", namespaced: true, shape: deploymentShape, check: checkDeployment, defaults: defaultDeployment },
  ReplicaSet: { kind: "ReplicaSet", apiVersion: "apps/v1", namespaced: true, shape: replicaSetShape, check: checkReplicaSet, defaults: defaultReplicaSet },
  DaemonSet: { kind: "DaemonSet", apiVersion: "apps/v1", namespaced: true, shape: daemonSetShape, check: checkDaemonSet, defaults: defaultDaemonSet },
  NetworkPolicy: {
    kind: "NetworkPolicy",
    apiVersion: "networking.k8s.io/v1",
    namespaced: true,
    shape: networkPolicyShape,
    check: checkNetworkPolicy,
    defaults: defaultNetworkPolicy,
  },
  PodDisruptionBudget: {
    kind: "PodDisruptionBudget",
    apiVersion: "policy/v1",
    namespaced: true,
    shape: podDisruptionBudgetShape,
    check: checkPodDisruptionBudget,
  },
  Cluster: { kind: "Cluster", apiVersion: CLUSTER_API_VERSION, namespaced: false, shape: clusterShape, check: checkCluster },
};

export function kindInfo(kind: string): KindInfo<unknown> | undefined {
  return Object.prototype.hasOwnProperty.call(KINDS, kind) ? (KINDS[kind as keyof Registry] as KindInfo<unknown>) : undefined;
}

/** API groups served by a Kubernetes API server itself (as opposed to CRDs such as projectcalico.org). */
const BUILTIN_GROUPS = new Set([
  "",
  "apps",
  "batch",
  "extensions",
  "networking.k8s.io",
  "policy",
  "autoscaling",
  "rbac.authorization.k8s.io",
  "storage.k8s.io",
  "scheduling.k8s.io",
  "discovery.k8s.io",
  "events.k8s.io",
  "coordination.k8s.io",
  "node.k8s.io",
  "admissionregistration.k8s.io",
  "apiextensions.k8s.io",
  "apiregistration.k8s.io",
  "certificates.k8s.io",
]);

export function apiGroupOf(apiVersion: string): string {
  const slash = apiVersion.indexOf("/");
  return slash < 0 ? "" : apiVersion.slice(0, slash);
}

export function isBuiltinGroup(apiVersion: string): boolean {
  return BUILTIN_GROUPS.has(apiGroupOf(apiVersion));
}

// The Kubernetes object kinds cnisim loads, keyed by kind, with the guarantees the loader
// gives: apiVersion and kind set, metadata.name present (and metadata.namespace for
// namespaced kinds, after defaulting).
import type { DaemonSet, Deployment, ReplicaSet } from "kubernetes-types/apps/v1.js";
import type { ConfigMap, Endpoints, Event, Namespace, Node, Pod, Service } from "kubernetes-types/core/v1.js";
import type { ObjectMeta } from "kubernetes-types/meta/v1.js";
import type { NetworkPolicy } from "kubernetes-types/networking/v1.js";
import type { PodDisruptionBudget } from "kubernetes-types/policy/v1.js";

export interface KindMap {
  Namespace: Namespace;
  Node: Node;
  Pod: Pod;
  Deployment: Deployment;
  ReplicaSet: ReplicaSet;
  DaemonSet: DaemonSet;
  Service: Service;
  Endpoints: Endpoints;
  NetworkPolicy: NetworkPolicy;
  PodDisruptionBudget: PodDisruptionBudget;
  Event: Event;
  ConfigMap: ConfigMap;
}

export type KindName = keyof KindMap;

export const KIND_NAMES: readonly KindName[] = [
  "Namespace",
  "Node",
  "Pod",
  "Deployment",
  "ReplicaSet",
  "DaemonSet",
  "Service",
  "Endpoints",
  "NetworkPolicy",
  "PodDisruptionBudget",
  "Event",
  "ConfigMap",
];

export type NamedMeta = ObjectMeta & { name: string };

/** A loaded object of kind K (a union over all kinds when K is left open). */
export type KubeObject<K extends KindName = KindName> = K extends KindName
  ? KindMap[K] & { apiVersion: string; kind: K; metadata: NamedMeta }
  : never;

/** Kinds without a namespace. */
export const CLUSTER_SCOPED: ReadonlySet<string> = new Set(["Namespace", "Node", "Cluster"]);

/** "Kind ns/name", or "Kind name" for cluster-scoped kinds. */
export function objectLabel(kind: string, namespace: string | undefined, name: string): string {
  return CLUSTER_SCOPED.has(kind) || namespace === undefined ? `${kind} ${name}` : `${kind} ${namespace}/${name}`;
}

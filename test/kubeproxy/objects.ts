// Kubernetes objects for kube-proxy tests: pods with an address and readiness as the kubelet
// reports them, services as a user writes them (after the API server's defaults).
import type { ContainerPort, ServicePort } from "kubernetes-types/core/v1.js";
import type { KubeObject } from "../../src/k8s/index.js";

export type PodObject = KubeObject<"Pod">;
export type ServiceObject = KubeObject<"Service">;

export interface PodOptions {
  readonly namespace?: string;
  readonly labels?: Record<string, string>;
  readonly node?: string;
  readonly ready?: boolean;
  readonly ports?: ContainerPort[];
  readonly terminating?: boolean;
}

export function podObject(name: string, ip: string, o: PodOptions = {}): PodObject {
  const pod = {
    apiVersion: "v1",
    kind: "Pod",
    metadata: {
      name,
      namespace: o.namespace ?? "default",
      labels: o.labels ?? { app: "web" },
      uid: `uid-${name}`,
      ...(o.terminating === true ? { deletionTimestamp: "2024-01-01T00:00:00Z" } : {}),
    },
    spec: { nodeName: o.node ?? "node-a", containers: [{ name: "c", image: "nginx", ...(o.ports !== undefined ? { ports: o.ports } : {}) }] },
    status: {
      phase: "Running",
      ...(ip !== "" ? { podIP: ip, podIPs: [{ ip }] } : {}),
      conditions: [{ type: "Ready", status: o.ready === false ? "False" : "True" }],
    },
  };
  return pod as PodObject;
}

export interface ServiceOptions {
  readonly namespace?: string;
  readonly type?: "ClusterIP" | "NodePort" | "LoadBalancer";
  readonly clusterIP?: string;
  readonly selector?: Record<string, string> | null;
  readonly ports?: ServicePort[];
  readonly externalTrafficPolicy?: "Cluster" | "Local";
  readonly affinitySeconds?: number;
  readonly publishNotReadyAddresses?: boolean;
}

export function serviceObject(name: string, o: ServiceOptions = {}): ServiceObject {
  const type = o.type ?? "ClusterIP";
  return {
    apiVersion: "v1",
    kind: "Service",
    metadata: { name, namespace: o.namespace ?? "default" },
    spec: {
      type,
      ...(o.clusterIP !== undefined ? { clusterIP: o.clusterIP, clusterIPs: [o.clusterIP] } : {}),
      ...(o.selector === null ? {} : { selector: o.selector ?? { app: "web" } }),
      ports: o.ports ?? [{ name: "http", port: 80, protocol: "TCP", targetPort: 8080 }],
      sessionAffinity: o.affinitySeconds !== undefined ? "ClientIP" : "None",
      ...(o.affinitySeconds !== undefined ? { sessionAffinityConfig: { clientIP: { timeoutSeconds: o.affinitySeconds } } } : {}),
      ...(type !== "ClusterIP" ? { externalTrafficPolicy: o.externalTrafficPolicy ?? "Cluster" } : {}),
      ...(o.publishNotReadyAddresses === true ? { publishNotReadyAddresses: true } : {}),
      internalTrafficPolicy: "Cluster",
    },
  };
}

// Node objects as a cluster has them: a Cluster node merged with an optional Node object of
// the same name (the Node object adds to / overrides labels, taints and allocatable), plus what
// kubelet and kubeadm put on every node (well-known labels, control-plane label and taint,
// addresses, a Ready condition).
import type { Node, NodeAddress, Taint } from "kubernetes-types/core/v1.js";
import { CLUSTER_DEFAULTS } from "./cluster-defaults.js";
import type { Cluster, ClusterNodeSpec } from "./cluster-types.js";
import type { KubeObject } from "./types.js";

export const CONTROL_PLANE_LABEL = "node-role.kubernetes.io/control-plane";
export const CONTROL_PLANE_TAINT: Readonly<Taint> = { key: CONTROL_PLANE_LABEL, effect: "NoSchedule" };

/**
 * Allocatable of a node that states none. cpu 2 and memory 3750Mi reproduce the seed lab's
 * `kubectl top node` percentages (kubectl truncates usage/allocatable x 100): 97m = 4%, 49m and
 * 45m = 2% need 1940m < cpu <= 2250m, i.e. 2 cores; 1328Mi = 35%, 912Mi and 926Mi = 24% need
 * 3704Mi < memory <= 3794Mi: a 4 GiB VM (MemTotal about 3.8 GiB after the kernel's own reservations)
 * minus the kubelet's default 100Mi eviction threshold.
 * pods 110 is the kubelet's default maxPods.
 */
export const DEFAULT_ALLOCATABLE: Readonly<Record<string, string>> = { cpu: "2", memory: "3750Mi", pods: "110" };

/** Labels the kubelet sets on every node (amd64 Linux), and kubeadm's control-plane labels. */
export function wellKnownNodeLabels(name: string, controlPlane: boolean): Record<string, string> {
  const labels: Record<string, string> = {
    "beta.kubernetes.io/arch": "amd64",
    "beta.kubernetes.io/os": "linux",
    "kubernetes.io/arch": "amd64",
    "kubernetes.io/hostname": name,
    "kubernetes.io/os": "linux",
  };
  if (controlPlane) {
    labels[CONTROL_PLANE_LABEL] = "";
    labels["node.kubernetes.io/exclude-from-external-load-balancers"] = "";
  }
  return labels;
}

/** Taints merged by (key, effect); a later one replaces the value of an earlier one. */
export function mergeTaints(...lists: readonly (readonly Taint[] | undefined)[]): Taint[] {
  const out: Taint[] = [];
  for (const list of lists) {
    for (const t of list ?? []) {
      const i = out.findIndex((x) => x.key === t.key && x.effect === t.effect);
      if (i >= 0) out[i] = { ...t };
      else out.push({ ...t });
    }
  }
  return out;
}

function isControlPlane(spec: ClusterNodeSpec | undefined, node: Node | undefined): boolean {
  if (spec !== undefined) return spec.role === "control-plane";
  return node?.metadata?.labels?.[CONTROL_PLANE_LABEL] !== undefined;
}

/** One merged Node object; `spec` or `node` may be missing, not both. */
export function mergeNode(spec: ClusterNodeSpec | undefined, node: Node | undefined, kubernetesVersion: string): KubeObject<"Node"> {
  const name = spec?.name ?? node?.metadata?.name ?? "";
  const controlPlane = isControlPlane(spec, node);
  const labels = { ...wellKnownNodeLabels(name, controlPlane), ...spec?.labels, ...node?.metadata?.labels };
  const taints = mergeTaints(controlPlane ? [CONTROL_PLANE_TAINT] : [], spec?.taints, node?.spec?.taints);
  const allocatable = { ...DEFAULT_ALLOCATABLE, ...spec?.allocatable, ...node?.status?.allocatable };
  const addresses: NodeAddress[] =
    spec !== undefined
      ? [
          { type: "InternalIP", address: spec.ip },
          { type: "Hostname", address: name },
        ]
      : [...(node?.status?.addresses ?? [{ type: "Hostname", address: name }])];
  const merged: KubeObject<"Node"> = {
    ...node,
    apiVersion: "v1",
    kind: "Node",
    metadata: { ...node?.metadata, name, labels },
    spec: { ...node?.spec, taints },
    status: {
      ...node?.status,
      capacity: { ...allocatable, ...node?.status?.capacity },
      allocatable,
      addresses,
      conditions: node?.status?.conditions ?? [
        { type: "Ready", status: "True", reason: "KubeletReady", message: "kubelet is posting ready status" },
      ],
      nodeInfo: node?.status?.nodeInfo ?? {
        architecture: "amd64",
        operatingSystem: "linux",
        kubeletVersion: kubernetesVersion,
        kubeProxyVersion: kubernetesVersion,
        containerRuntimeVersion: "",
        kernelVersion: "",
        osImage: "",
        machineID: "",
        systemUUID: "",
        bootID: "",
      },
    },
  };
  if (taints.length === 0) delete merged.spec!.taints;
  return merged;
}

/** Every node of the cluster as a merged Node object: Cluster nodes first (in their order), then Node objects naming no Cluster node. */
export function clusterNodeObjects(cluster: Cluster | undefined, nodes: readonly Node[]): KubeObject<"Node">[] {
  const version = cluster?.spec.kubernetesVersion ?? CLUSTER_DEFAULTS.kubernetesVersion;
  const byName = new Map(nodes.map((n) => [n.metadata?.name ?? "", n]));
  const out = (cluster?.spec.nodes ?? []).map((spec) => mergeNode(spec, byName.get(spec.name), version));
  const named = new Set(out.map((n) => n.metadata.name));
  for (const n of nodes) if (!named.has(n.metadata?.name ?? "")) out.push(mergeNode(undefined, n, version));
  return out;
}

// cnisim's own Cluster object (apiVersion cnisim.io/v1alpha1, kind Cluster), in the style of
// kind's cluster config: the underlay, nodes, external hosts, CNI and kube-proxy settings.
import type { ObjectMeta } from "kubernetes-types/meta/v1.js";
import type { Taint } from "kubernetes-types/core/v1.js";

export const CLUSTER_API_VERSION = "cnisim.io/v1alpha1";

export const CNI_PLUGINS = ["calico", "flannel", "canal", "bridge", "macvlan"] as const;
export type CniPluginName = (typeof CNI_PLUGINS)[number];

/** Encapsulation / routing modes per plugin; the first one is the default. */
export const CNI_MODES: Readonly<Record<CniPluginName, readonly string[]>> = {
  calico: ["ipip", "vxlan", "vxlanCrossSubnet", "none"],
  flannel: ["vxlan", "host-gw"],
  canal: ["vxlan", "host-gw"],
  bridge: [],
  macvlan: [],
};

export const DATAPLANES = ["iptables", "ebpf"] as const;
export type Dataplane = (typeof DATAPLANES)[number];

export const NODE_ROLES = ["control-plane", "worker"] as const;
export type NodeRole = (typeof NODE_ROLES)[number];

export interface ClusterNodeSpec {
  name: string;
  role?: NodeRole;
  ip: string;
  labels?: Record<string, string>;
  taints?: Taint[];
  allocatable?: Record<string, string>;
}

export interface ClusterSpec {
  /** Kubernetes version whose behaviour (e.g. scheduler wording) is emulated; default v1.30.2 as in the seed lab. */
  kubernetesVersion?: string;
  underlay: {
    subnet: string;
    gateway?: string;
    /** queue: the NIC's transmit queue in bytes (a quantity such as 4Mi), tail-dropped when full. */
    link?: { bandwidth?: string | number; latency?: string | number; mtu?: number; queue?: string | number };
  };
  nodes: ClusterNodeSpec[];
  externalHosts?: { name: string; ip: string }[];
  cni: {
    plugin: CniPluginName;
    mode?: string;
    dataplane?: Dataplane;
    podCIDR?: string;
    blockSize?: number;
    mtu?: number;
  };
  serviceCIDR?: string;
  kubeProxy?: { mode?: string; clusterCIDR?: string; nodePortRange?: string };
  /** Add-ons as kubeadm installs them; dns (CoreDNS as kube-system/kube-dns) defaults to true. */
  addons?: { dns?: boolean };
  /** CPU cost model overrides, validated by the metrics layer (src/metrics/README.md). */
  costModel?: unknown;
  seed?: number;
}

export interface Cluster {
  apiVersion: typeof CLUSTER_API_VERSION;
  kind: "Cluster";
  metadata: ObjectMeta & { name: string };
  spec: ClusterSpec;
}

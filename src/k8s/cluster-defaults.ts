// Defaults of the Cluster object and where each number comes from.
import type { CniPluginName } from "./cluster-types.js";

export const CLUSTER_DEFAULTS = {
  /** The seed lab's cluster reports v1.30.2 (`kubectl get node`). */
  kubernetesVersion: "v1.30.2",
  bandwidth: "10Gbps",
  latency: "50us",
  /** Ethernet. */
  mtu: 1500,
  /** The NIC's transmit queue in bytes: txqueuelen 1000 frames of a 1500-byte MTU (1514 bytes each). */
  queue: 1_514_000,
  /** kubeadm's default --service-cidr. */
  serviceCIDR: "10.96.0.0/12",
  /** kube-apiserver's default --service-node-port-range. */
  nodePortRange: "30000-32767",
  kubeProxyMode: "iptables",
  dataplane: "iptables",
  seed: 1,
} as const;

/** Default pod pools: Calico's manifest (CALICO_IPV4POOL_CIDR), kube-flannel.yml's net-conf.json, docker0. */
export const DEFAULT_POD_CIDR: Readonly<Record<CniPluginName, string | null>> = {
  calico: "192.168.0.0/16",
  flannel: "10.244.0.0/16",
  canal: "10.244.0.0/16",
  bridge: "172.17.0.0/16",
  macvlan: null, // the underlay subnet: macvlan pods live on it
};

/** Per-node block prefix: Calico IPPool blockSize 26, flannel SubnetLen 24; null = one shared range. */
export const DEFAULT_BLOCK_SIZE: Readonly<Record<CniPluginName, number | null>> = {
  calico: 26,
  flannel: 24,
  canal: 24,
  bridge: null,
  macvlan: null,
};

/** Allowed block sizes: Calico accepts 20..32 for IPv4; flannel needs room for cni0 and pods. */
export const BLOCK_SIZE_RANGE: Readonly<Record<CniPluginName, readonly [number, number] | null>> = {
  calico: [20, 32],
  flannel: [16, 30],
  canal: [16, 30],
  bridge: null,
  macvlan: null,
};

/** Bytes an encapsulation adds to every packet (outer IPv4 20; VXLAN 8+8+20+14 = 50). */
export const ENCAP_OVERHEAD: Readonly<Record<string, number>> = {
  ipip: 20,
  vxlan: 50,
  vxlanCrossSubnet: 50,
  none: 0,
  "host-gw": 0,
  "": 0,
};

/** Service ranges wider than /12 are refused by kube-apiserver. */
export const MIN_SERVICE_PREFIX = 12;

/** Parses a port range as kube-apiserver does: "30000-32767", "30000+2767" or "30000". */
export function parsePortRange(text: string): { min: number; max: number } | null {
  const m = /^(\d+)(?:([-+])(\d+))?$/.exec(text);
  if (m === null) return null;
  const base = Number(m[1]);
  const other = m[3] === undefined ? undefined : Number(m[3]);
  const max = other === undefined ? base : m[2] === "+" ? base + other : other;
  if (base < 1 || max > 65535 || max < base) return null;
  return { min: base, max };
}

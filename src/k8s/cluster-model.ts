// The normalized cluster other layers build from: nodes with numeric allocatable and integer
// addresses, and the network settings of the Cluster object with every default resolved.
import type { Node, Taint } from "kubernetes-types/core/v1.js";
import { parseIPv4 } from "../util/ip.js";
import { parseIpv4Network, prefixContains, type Ipv4Prefix } from "./addresses.js";
import { CLUSTER_DEFAULTS, DEFAULT_BLOCK_SIZE, DEFAULT_POD_CIDR, ENCAP_OVERHEAD, parsePortRange } from "./cluster-defaults.js";
import { CNI_MODES, type Cluster, type CniPluginName, type Dataplane, type NodeRole } from "./cluster-types.js";
import { parseBandwidth, parseDuration, parseQueueBytes } from "./netunits.js";
import { CONTROL_PLANE_LABEL, clusterNodeObjects } from "./node-merge.js";
import { parseQuantity, quantityMilliValue, quantityValue } from "./quantity.js";
import { err, ok, type Result } from "../util/result.js";

export interface Allocatable {
  readonly cpuMilli: number;
  readonly memoryBytes: number;
  readonly pods: number;
  /** Every other resource (ephemeral-storage, hugepages-*, extended resources) as an integer value. */
  readonly scalar: Readonly<Record<string, number>>;
}

export interface NodeModel {
  readonly name: string;
  readonly role: NodeRole;
  /** Underlay (InternalIP) address as text and as an unsigned 32-bit integer; "" / null when unknown. */
  readonly ip: string;
  readonly ipInt: number | null;
  readonly labels: Readonly<Record<string, string>>;
  readonly taints: readonly Taint[];
  readonly allocatable: Allocatable;
  readonly unschedulable: boolean;
}

export interface Prefix extends Ipv4Prefix {
  readonly text: string;
}

export interface NetworkModel {
  readonly underlay: {
    readonly subnet: Prefix;
    readonly gateway: number;
    readonly link: { readonly bandwidthBps: number; readonly latencyNs: number; readonly mtu: number; readonly queueBytes: number };
  };
  readonly externalHosts: readonly { readonly name: string; readonly ip: string; readonly ipInt: number; readonly onUnderlay: boolean }[];
  readonly cni: {
    readonly plugin: CniPluginName;
    /** ipip, vxlan, ... (the plugin's default when not given); null for bridge and macvlan. */
    readonly mode: string | null;
    readonly dataplane: Dataplane;
    readonly podCIDR: Prefix;
    /** Per-node block prefix length; null when the plugin has one shared range. */
    readonly blockSize: number | null;
    /** Pod interface MTU: given, or the link MTU minus the encapsulation overhead. */
    readonly mtu: number;
    readonly encapOverhead: number;
  };
  readonly serviceCIDR: Prefix;
  readonly kubeProxy: { readonly mode: "iptables"; readonly clusterCIDR: Prefix | null; readonly nodePortRange: { readonly min: number; readonly max: number } };
  /** Add-ons: dns = the cluster DNS (CoreDNS behind kube-system/kube-dns) is installed. */
  readonly addons: { readonly dns: boolean };
}

export interface ClusterModel {
  readonly name: string;
  readonly kubernetesVersion: string;
  readonly seed: number;
  readonly nodes: readonly NodeModel[];
  /** Null when only Node objects were given (no Cluster file). */
  readonly network: NetworkModel | null;
}

function quantities(list: Readonly<Record<string, string>>): Allocatable {
  const value = (name: string, milli: boolean): number => {
    const text = list[name];
    if (text === undefined) return 0;
    const q = parseQuantity(text);
    return q.ok ? (milli ? quantityMilliValue(q.value) : quantityValue(q.value)) : 0;
  };
  const scalar: Record<string, number> = {};
  for (const name of Object.keys(list).sort()) if (name !== "cpu" && name !== "memory" && name !== "pods") scalar[name] = value(name, false);
  return { cpuMilli: value("cpu", true), memoryBytes: value("memory", false), pods: value("pods", false), scalar };
}

/** The numeric view of a (merged) Node object. */
export function nodeModel(node: Node): NodeModel {
  const labels = node.metadata?.labels ?? {};
  const ip = node.status?.addresses?.find((a) => a.type === "InternalIP")?.address ?? "";
  return {
    name: node.metadata?.name ?? "",
    role: labels[CONTROL_PLANE_LABEL] !== undefined ? "control-plane" : "worker",
    ip,
    ipInt: ip === "" ? null : parseIPv4(ip),
    labels,
    taints: node.spec?.taints ?? [],
    allocatable: quantities(node.status?.allocatable ?? {}),
    unschedulable: node.spec?.unschedulable === true,
  };
}

/** Raised inside this module for a Cluster the loader would have rejected; buildClusterModel returns it as an error. */
class InvalidCluster extends Error {}

function prefix(text: string): Prefix {
  const r = parseIpv4Network(text);
  if ("error" in r) throw new InvalidCluster(r.error);
  return { ...r.prefix, text };
}

function unwrap<T>(r: { ok: true; value: T } | { ok: false; error: string }): T {
  if (!r.ok) throw new InvalidCluster(r.error);
  return r.value;
}

function ipv4(text: string): number {
  const v = parseIPv4(text);
  if (v === null) throw new InvalidCluster(`invalid IPv4 address ${JSON.stringify(text)}`);
  return v;
}

function portRange(text: string): { min: number; max: number } {
  const r = parsePortRange(text);
  if (r === null) throw new InvalidCluster(`invalid port range ${JSON.stringify(text)}`);
  return r;
}

function networkModel(c: Cluster): NetworkModel {
  const s = c.spec;
  const subnet = prefix(s.underlay.subnet);
  const plugin = s.cni.plugin;
  const mode = s.cni.mode ?? CNI_MODES[plugin][0] ?? null;
  const overhead = ENCAP_OVERHEAD[mode ?? ""] ?? 0;
  const linkMtu = s.underlay.link?.mtu ?? CLUSTER_DEFAULTS.mtu;
  const podCIDR = prefix(s.cni.podCIDR ?? DEFAULT_POD_CIDR[plugin] ?? s.underlay.subnet);
  return {
    underlay: {
      subnet,
      gateway: s.underlay.gateway === undefined ? (subnet.address + 1) >>> 0 : ipv4(s.underlay.gateway),
      link: {
        bandwidthBps: unwrap(parseBandwidth(s.underlay.link?.bandwidth ?? CLUSTER_DEFAULTS.bandwidth)),
        latencyNs: unwrap(parseDuration(s.underlay.link?.latency ?? CLUSTER_DEFAULTS.latency)),
        mtu: linkMtu,
        queueBytes: unwrap(parseQueueBytes(s.underlay.link?.queue ?? CLUSTER_DEFAULTS.queue, linkMtu)),
      },
    },
    externalHosts: (s.externalHosts ?? []).map((h) => {
      const ipInt = ipv4(h.ip);
      return { name: h.name, ip: h.ip, ipInt, onUnderlay: prefixContains(subnet, ipInt) };
    }),
    cni: {
      plugin,
      mode,
      dataplane: s.cni.dataplane ?? CLUSTER_DEFAULTS.dataplane,
      podCIDR,
      blockSize: DEFAULT_BLOCK_SIZE[plugin] === null ? null : (s.cni.blockSize ?? DEFAULT_BLOCK_SIZE[plugin]),
      mtu: s.cni.mtu ?? linkMtu - overhead,
      encapOverhead: overhead,
    },
    serviceCIDR: prefix(s.serviceCIDR ?? CLUSTER_DEFAULTS.serviceCIDR),
    kubeProxy: {
      mode: "iptables",
      clusterCIDR: s.kubeProxy?.clusterCIDR === undefined ? null : prefix(s.kubeProxy.clusterCIDR),
      nodePortRange: portRange(s.kubeProxy?.nodePortRange ?? CLUSTER_DEFAULTS.nodePortRange),
    },
    addons: { dns: s.addons?.dns ?? true },
  };
}

/**
 * Builds the normalized cluster from a Cluster object (if any) and the Node objects loaded
 * with it. Fails only for a Cluster the loader would have rejected.
 */
export function buildClusterModel(cluster: Cluster | undefined, nodes: readonly Node[] = []): Result<ClusterModel, string> {
  try {
    return ok({
      name: cluster?.metadata.name ?? "cluster",
      kubernetesVersion: cluster?.spec.kubernetesVersion ?? CLUSTER_DEFAULTS.kubernetesVersion,
      seed: cluster?.spec.seed ?? CLUSTER_DEFAULTS.seed,
      nodes: clusterNodeObjects(cluster, nodes).map(nodeModel),
      network: cluster === undefined ? null : networkModel(cluster),
    });
  } catch (e) {
    if (e instanceof InvalidCluster) return err(`Cluster ${cluster?.metadata.name}: ${e.message}`);
    throw e;
  }
}

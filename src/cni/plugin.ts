// The CNI plugin contract the cluster builder drives: per node setup (devices, routes, iptables),
// a start once every node exists (BGP sessions, flanneld's peer programming), per pod setup inside a
// network namespace the runtime created (address from the plugin's IPAM, interfaces, routes) and
// teardown, plus what the plugin enforces (policy personality) and says about itself.
import type { EndpointSlice } from "kubernetes-types/discovery/v1.js";
import type { KubeObject } from "../k8s/types.js";
import type { NetDevice } from "../net/device.js";
import type { EthernetDevice } from "../net/ethernet.js";
import type { NetNamespace } from "../net/stack/namespace.js";
import type { NetWorld } from "../net/world.js";
import type { NetworkModel } from "../k8s/cluster-model.js";
import type { PolicyCompiler } from "../policy/compiler.js";
import type { Result } from "../util/result.js";
import type { SeededRng } from "../util/rng.js";
import type { Ipam } from "./ipam/types.js";

/** Where NetworkPolicy is enforced: iptables FORWARD chains, eBPF programs at tc hooks, or nowhere. */
export const PolicyEnforcement = { IPTABLES: "iptables", EBPF: "ebpf", NONE: "none" } as const;
export type PolicyEnforcement = (typeof PolicyEnforcement)[keyof typeof PolicyEnforcement];

/** A cluster node as the plugin sees it: its host namespace and underlay interface. */
export interface CniNode {
  readonly name: string;
  /** Position in the Cluster file (flannel subnets and MACs follow it). */
  readonly index: number;
  /** Underlay address (eth0). */
  readonly ip: number;
  readonly ns: NetNamespace;
  readonly uplink: EthernetDevice;
}

export interface CniPodRequest {
  /** "namespace/name". */
  readonly key: string;
  readonly namespace: string;
  readonly name: string;
  /** IPAM handle (the pod key, or the kubelet's "ns/name/uid"). */
  readonly handle: string;
  readonly node: CniNode;
  /** The pod's network namespace (created by the runtime, with lo only). */
  readonly ns: NetNamespace;
  /** Address the pod asks for (ipAddrs annotation or status.podIP), null for any. */
  readonly requested: number | null;
  /** Published ports (containers[].ports[].hostPort), for plugins that publish them (bridge). */
  readonly hostPorts: readonly HostPort[];
}

export interface HostPort {
  readonly hostPort: number;
  readonly containerPort: number;
  /** "tcp" | "udp" | "sctp" */
  readonly protocol: string;
}

export interface CniPodResult {
  readonly ip: number;
  /** eth0 inside the pod. */
  readonly podInterface: NetDevice;
  /** The host side (cali*, veth*), null when there is none (macvlan). */
  readonly hostInterface: NetDevice | null;
}

export interface CniError {
  /** What failed: "pod web/web1", "node worker31", "cni". */
  readonly subject: string;
  readonly reason: string;
}

/** What a plugin is given when the cluster is built. */
export interface CniContext {
  readonly world: NetWorld;
  readonly network: NetworkModel;
  /** Every node, in Cluster file order (filled before any setupNode call). */
  readonly nodes: readonly CniNode[];
  /** The compiled NetworkPolicy state the plugin enforces (ignored by plugins without policy). */
  readonly policy: PolicyCompiler;
  /** Random choices the plugin makes (MAC addresses): a stream of the cluster's seeded RNG. */
  readonly rng: SeededRng;
}

export interface CniPlugin {
  /** "calico-ipip", "flannel-vxlan", ... */
  readonly name: string;
  readonly policyEnforcement: PolicyEnforcement;
  /** MTU of pod interfaces (host MTU minus the encapsulation overhead). */
  readonly podMtu: number;
  /** The plugin's address management (shared with the kubelets' allocator, see ipam/pod-ip-allocator.ts). */
  readonly ipam: Ipam;
  /** What the plugin programs, one line per item, for `describe`-style output. */
  describe(): string[];
  /** Loud notices for the user (e.g. flannel: NetworkPolicies have no effect). */
  notices(): string[];
  setupNode(node: CniNode): Result<void, CniError>;
  /** Once every node is set up: peers, sessions, routes to the other nodes. */
  start(): Result<void, CniError>;
  setupPod(req: CniPodRequest): Result<CniPodResult, CniError>;
  teardownPod(key: string): void;
  /** Addresses a node holds besides its underlay one (tunl0, flannel.1, cni0), for policy's node identities. */
  nodeAddresses(node: string): number[];
  /** True when the plugin's dataplane does the Service translation itself (kube-proxy is not run). */
  readonly replacesKubeProxy?: boolean;
  /** With replacesKubeProxy: the Services and EndpointSlices changed. */
  syncServices?(services: readonly KubeObject<"Service">[], slices: readonly EndpointSlice[]): void;
}

export function formatCniError(e: CniError): string {
  return `${e.subject}: ${e.reason}`;
}

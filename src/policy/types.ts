// Shapes of the policy world (namespaces, pods, nodes) as the policy layer sees them, IP protocol
// numbers, and the options that differ between dataplane personalities.
import type { Labels } from "../k8s/selector.js";

/** IANA protocol numbers of the protocols NetworkPolicy names, plus ICMP for rules without ports. */
export const IpProto = { ICMP: 1, TCP: 6, UDP: 17, SCTP: 132 } as const;
export type IpProtoName = keyof typeof IpProto;

/** Protocols a NetworkPolicyPort may name. */
export const POLICY_PROTOCOLS = ["TCP", "UDP", "SCTP"] as const;
export type PolicyProtocol = (typeof POLICY_PROTOCOLS)[number];

export function protoName(proto: number): string {
  for (const [name, num] of Object.entries(IpProto)) if (num === proto) return name;
  return `proto-${proto}`;
}

/** The label the API server puts on every namespace (immutable, equal to the namespace name). */
export const NAMESPACE_NAME_LABEL = "kubernetes.io/metadata.name";

export type ContainerPortInfo = {
  readonly name: string | null;
  readonly port: number;
  readonly protocol: PolicyProtocol;
};

export type NamespaceInfo = {
  readonly name: string;
  /** Effective labels: as given, plus kubernetes.io/metadata.name. */
  readonly labels: Labels;
};

export type PodInfo = {
  /** "namespace/name" */
  readonly key: string;
  readonly namespace: string;
  readonly name: string;
  readonly labels: Labels;
  /** IPv4 address as an unsigned 32-bit integer. */
  readonly ip: number;
  readonly node: string;
  readonly ports: readonly ContainerPortInfo[];
};

export type NodeInfo = {
  readonly name: string;
  /** Every address of the node: underlay interfaces and tunnel devices (tunl0, vxlan, cilium_host). */
  readonly ips: readonly number[];
};

/**
 * Whether an ipBlock peer matches addresses that belong to the cluster (pod IPs, node IPs).
 * The NetworkPolicy API leaves this to implementations: the Kubernetes documentation says ipBlock
 * "should be cluster-external IPs, since Pod IPs are ephemeral" (kubernetes/website#10151).
 * - Cilium: no. Pods and nodes carry their own identities and a CIDR rule never selects them
 *   ("Cilium doesn't support using ipBlock statements to match on pod IPs", cilium/cilium#19601,
 *   also #14497; node IPs only with policy-cidr-match-mode=nodes, kubermatic/kubeone#4005).
 * - Calico: yes. ipBlock becomes a plain CIDR match on the packet address, so it also matches pod
 *   and node addresses (projectcalico/calico#6634 "ipBlock matches cluster internal IPs"). The
 *   upstream e2e cases "should allow egress access to server in CIDR block" and "should enforce
 *   except clause while egress access to server in CIDR block" expect this behaviour.
 */
export type PolicyOptions = {
  readonly ipBlockSelectsClusterAddresses: boolean;
};

export const Personality = { EBPF: "ebpf", IPTABLES: "iptables" } as const;
export type Personality = (typeof Personality)[keyof typeof Personality];

/** Cilium's reading for the eBPF personality, Calico's for the iptables one. */
export function policyOptionsFor(personality: Personality): PolicyOptions {
  return { ipBlockSelectsClusterAddresses: personality === Personality.IPTABLES };
}

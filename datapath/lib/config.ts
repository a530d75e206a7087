// Per-node datapath configuration: what Cilium compiles into node_config.h / ep_config.h (node
// addresses, router MAC, tunnel mode, NAT port range) plus the two personality switches of cnisim
// (how policy treats established flows, how NodePort reaches a remote backend).

/** Encapsulation the datapath builds for pod traffic to other nodes. */
export const EncapKind = { NONE: 0, VXLAN: 1, IPIP: 2 } as const;
export type EncapKind = (typeof EncapKind)[keyof typeof EncapKind];

/**
 * The conntrack switch of policy enforcement. RECHECK_ESTABLISHED: forward packets of established flows
 * are looked up in the policy map again (Cilium). ACCEPT_ESTABLISHED: only new flows are checked, as with
 * iptables CNIs that accept ESTABLISHED first (Calico's default). Replies pass in both modes.
 */
export const PolicyCtMode = { RECHECK_ESTABLISHED: 0, ACCEPT_ESTABLISHED: 1 } as const;
export type PolicyCtMode = (typeof PolicyCtMode)[keyof typeof PolicyCtMode];

/**
 * How NodePort traffic reaches a backend on another node. TUNNEL: encapsulated to the backend's node with
 * the client address kept; replies come back through the tunnel (Calico eBPF). SNAT: source rewritten to
 * this node's address and port (Cilium's default SNAT mode), so replies return here natively.
 */
export const NodePortMode = { TUNNEL: 0, SNAT: 1 } as const;
export type NodePortMode = (typeof NodePortMode)[keyof typeof NodePortMode];

export interface DatapathConfig {
  readonly nodeName: string;
  /** This node's IPv4 addresses (NodePort frontends, host identity, masquerade source = the first). */
  readonly nodeIps: Uint32Array;
  /** Source MAC of frames the datapath delivers to endpoints (Cilium's router/node MAC). */
  readonly routerMac: number;
  readonly encap: EncapKind;
  /** VXLAN UDP destination port (4789 IANA, 8472 Linux/Cilium/flannel). */
  readonly tunnelPort: number;
  /** VXLAN network identifier, unless vniFromIdentity. */
  readonly vni: number;
  /** Cilium carries the source security identity in the VNI. */
  readonly vniFromIdentity: boolean;
  readonly policyCtMode: PolicyCtMode;
  readonly nodePortMode: NodePortMode;
  /** Masquerade pod traffic leaving through the host netdev (eBPF masquerade). */
  readonly masquerade: boolean;
  /** Destinations inside this prefix are not masqueraded (the cluster's pod CIDR); length 0 = no such prefix. */
  readonly nonMasqueradeAddr: number;
  readonly nonMasqueradeLen: number;
  /** Source ports the SNAT engine allocates from (Cilium: NODEPORT_PORT_MIN_NAT .. MAX_NAT). */
  readonly snatPortMin: number;
  readonly snatPortMax: number;
}

export type DatapathConfigInput = Partial<Omit<DatapathConfig, "nodeIps">> & {
  nodeName: string;
  nodeIps: readonly number[];
  routerMac: number;
};

/** Builds a config; unset fields take the defaults (no encapsulation, Cilium's policy and NAT numbers). */
export function datapathConfig(input: DatapathConfigInput): DatapathConfig {
  return {
    encap: EncapKind.NONE,
    tunnelPort: 8472,
    vni: 1,
    vniFromIdentity: false,
    policyCtMode: PolicyCtMode.RECHECK_ESTABLISHED,
    nodePortMode: NodePortMode.TUNNEL,
    masquerade: false,
    nonMasqueradeAddr: 0,
    nonMasqueradeLen: 0,
    snatPortMin: 32768,
    snatPortMax: 65535,
    ...input,
    nodeIps: Uint32Array.from(input.nodeIps, (a) => a >>> 0),
  };
}

/** True when addr is one of this node's addresses. */
export function isNodeIp(config: DatapathConfig, addr: number): boolean {
  const ips = config.nodeIps;
  for (let i = 0; i < ips.length; i++) if (ips[i] === addr) return true;
  return false;
}

// Drop reasons and trace (observation) points: stable numeric codes used in drop/trace records and ledgers.
// APPEND-ONLY: never renumber, rename or remove a row; a retired code goes to RETIRED_DROP_CODES and is
// never reused. Codes below 1000 are Cilium's (bpf/lib/drop_reasons.h, `upstream` names the macro) and are
// used only where the meaning matches; emulator-only causes start at 1000.

export interface CodeRow {
  readonly code: number;
  readonly name: string;
  readonly description: string;
  /** Cilium's macro for this code, when the code is Cilium's. */
  readonly upstream?: string;
}

export const DROP_REASONS = [
  { code: 132, name: "INVALID_SOURCE_IP", upstream: "DROP_INVALID_SIP", description: "Source IP is not the endpoint's own address (spoofed or stale)" },
  { code: 133, name: "POLICY_DENIED", upstream: "DROP_POLICY", description: "No policy allows this traffic for an isolated endpoint" },
  { code: 134, name: "INVALID_PACKET", upstream: "DROP_INVALID", description: "Malformed or truncated packet" },
  { code: 135, name: "CT_INVALID_HEADER", upstream: "DROP_CT_INVALID_HDR", description: "Connection tracking could not read the L4 header (truncated or invalid)" },
  { code: 136, name: "FRAG_NEEDED", upstream: "DROP_FRAG_NEEDED", description: "Packet larger than the path MTU with Don't Fragment set; ICMP fragmentation-needed returned" },
  { code: 137, name: "CT_UNKNOWN_PROTO", upstream: "DROP_CT_UNKNOWN_PROTO", description: "Connection tracking does not handle this L4 protocol" },
  { code: 139, name: "UNKNOWN_L3", upstream: "DROP_UNKNOWN_L3", description: "Unsupported L3 protocol (EtherType)" },
  { code: 141, name: "WRITE_ERROR", upstream: "DROP_WRITE_ERROR", description: "Rewriting the packet failed (e.g. NAT or encapsulation beyond the buffer)" },
  { code: 142, name: "UNKNOWN_L4", upstream: "DROP_UNKNOWN_L4", description: "Unsupported L4 protocol" },
  { code: 143, name: "UNKNOWN_ICMP4_CODE", upstream: "DROP_UNKNOWN_ICMP4_CODE", description: "ICMPv4 code not handled" },
  { code: 144, name: "UNKNOWN_ICMP4_TYPE", upstream: "DROP_UNKNOWN_ICMP4_TYPE", description: "ICMPv4 type not handled" },
  { code: 145, name: "UNKNOWN_ICMP6_CODE", upstream: "DROP_UNKNOWN_ICMP6_CODE", description: "ICMPv6 code not handled" },
  { code: 146, name: "UNKNOWN_ICMP6_TYPE", upstream: "DROP_UNKNOWN_ICMP6_TYPE", description: "ICMPv6 type not handled" },
  { code: 147, name: "NO_TUNNEL_KEY", upstream: "DROP_NO_TUNNEL_KEY", description: "Tunnel metadata (VNI, outer addresses) missing on a packet from the overlay" },
  { code: 150, name: "UNKNOWN_TARGET", upstream: "DROP_UNKNOWN_TARGET", description: "Destination address is not known to this node" },
  { code: 151, name: "UNROUTABLE", upstream: "DROP_UNROUTABLE", description: "Stale or unroutable destination IP" },
  { code: 155, name: "CT_CREATE_FAILED", upstream: "DROP_CT_CREATE_FAILED", description: "Could not insert a connection tracking entry" },
  { code: 156, name: "INVALID_EXTHDR", upstream: "DROP_INVALID_EXTHDR", description: "Invalid IPv6 extension header" },
  { code: 157, name: "FRAG_NOT_SUPPORTED", upstream: "DROP_FRAG_NOSUPPORT", description: "IP fragments are not supported at this point" },
  { code: 158, name: "NO_SERVICE", upstream: "DROP_NO_SERVICE", description: "Service has no backend for this frontend" },
  { code: 160, name: "NO_TUNNEL_ENDPOINT", upstream: "DROP_NO_TUNNEL_ENDPOINT", description: "No tunnel endpoint known for the destination" },
  { code: 163, name: "UNKNOWN_CT", upstream: "DROP_UNKNOWN_CT", description: "Unknown connection tracking state" },
  { code: 164, name: "HOST_UNREACHABLE", upstream: "DROP_HOST_UNREACHABLE", description: "Local host is unreachable" },
  { code: 166, name: "UNSUPPORTED_L2", upstream: "DROP_UNSUPPORTED_L2", description: "Unsupported L2 protocol" },
  { code: 167, name: "NAT_NO_MAPPING", upstream: "DROP_NAT_NO_MAPPING", description: "No NAT mapping for a reply, or no free port for masquerade" },
  { code: 168, name: "NAT_UNSUPPORTED_PROTO", upstream: "DROP_NAT_UNSUPP_PROTO", description: "Protocol cannot be masqueraded" },
  { code: 169, name: "NO_FIB", upstream: "DROP_NO_FIB", description: "Datapath FIB lookup found no route" },
  { code: 170, name: "ENCAP_PROHIBITED", upstream: "DROP_ENCAP_PROHIBITED", description: "Encapsulated traffic is not allowed here" },
  { code: 171, name: "INVALID_IDENTITY", upstream: "DROP_INVALID_IDENTITY", description: "Security identity is invalid" },
  { code: 172, name: "UNKNOWN_SENDER", upstream: "DROP_UNKNOWN_SENDER", description: "Sender is unknown" },
  { code: 174, name: "IS_CLUSTER_IP", upstream: "DROP_IS_CLUSTER_IP", description: "Traffic to a ClusterIP that no service port translated" },
  { code: 175, name: "FRAG_NOT_FOUND", upstream: "DROP_FRAG_NOT_FOUND", description: "First fragment of a datagram not seen" },
  { code: 177, name: "NOT_IN_SRC_RANGE", upstream: "DROP_NOT_IN_SRC_RANGE", description: "Source outside the service's loadBalancerSourceRanges" },
  { code: 181, name: "POLICY_DENY", upstream: "DROP_POLICY_DENY", description: "An explicit deny rule matched (deny wins over allow)" },
  { code: 182, name: "VLAN_FILTERED", upstream: "DROP_VLAN_FILTERED", description: "VLAN tag not allowed" },
  { code: 183, name: "INVALID_VNI", upstream: "DROP_INVALID_VNI", description: "Overlay packet with an unexpected VNI" },
  { code: 196, name: "TTL_EXCEEDED", upstream: "DROP_TTL_EXCEEDED", description: "TTL or hop limit reached zero while forwarding" },
  { code: 203, name: "EP_NOT_READY", upstream: "DROP_EP_NOT_READY", description: "Endpoint's datapath (policy program) is not ready yet" },
  { code: 1000, name: "QUEUE_FULL", description: "Device or link transmit queue full (tail drop)" },
  { code: 1001, name: "MTU_EXCEEDED", description: "Frame larger than the link MTU, dropped without an ICMP error" },
  { code: 1002, name: "LINK_DOWN", description: "Device or link is down" },
  { code: 1003, name: "NO_NEIGHBOUR", description: "Neighbour (ARP/NDP) resolution failed for the next hop" },
  { code: 1004, name: "NO_ROUTE", description: "Host stack has no route to the destination" },
  { code: 1005, name: "MAP_FULL", description: "A datapath map update failed because the map is full" },
  { code: 1006, name: "NOT_LISTENING", description: "No socket listens on the destination port" },
  { code: 1007, name: "HOST_STACK_REJECT", description: "Host stack rejected the packet (netfilter REJECT, ICMP error returned)" },
  { code: 1008, name: "BLACKHOLE_ROUTE", description: "Route of type blackhole, unreachable or prohibit matched" },
  { code: 1009, name: "REVERSE_PATH", description: "Reverse-path filter: source not reachable through the input device" },
  { code: 1010, name: "BAD_CHECKSUM", description: "IPv4 header or L4 checksum is wrong" },
  { code: 1011, name: "NETFILTER_DROP", description: "A netfilter-style rule (not a NetworkPolicy) dropped the packet" },
  { code: 1012, name: "NOT_FOR_HOST", description: "Frame addressed to another host's MAC (PACKET_OTHERHOST)" },
  { code: 1013, name: "LINK_LOSS", description: "Lost on a link by its configured random loss rate" },
  { code: 1014, name: "NO_STACK", description: "Device has no host stack or bridge to hand the frame to" },
  { code: 1015, name: "NO_REDIRECT_TARGET", description: "A program redirected to an interface index that does not exist" },
  { code: 1016, name: "BRIDGE_FILTERED", description: "Bridge has no port to forward the frame to (destination behind the ingress port, or nothing to flood to)" },
  { code: 1017, name: "VXLAN_FDB_STATIC", description: "VXLAN frame whose inner source MAC is pinned to another VTEP by a static FDB entry" },
  { code: 1018, name: "REASSEMBLY_TIMEOUT", description: "IP fragments whose datagram was not complete within ipfrag_time" },
  { code: 1019, name: "MARTIAN_DESTINATION", description: "Destination address that is never routed (0.0.0.0/8, loopback from the wire, ...)" },
  { code: 1020, name: "IGNORED_BROADCAST", description: "Broadcast datagram or echo request the stack ignores by configuration (icmp_echo_ignore_broadcasts, no socket)" },
] as const satisfies readonly CodeRow[];

/** Codes taken out of use; never reuse them for another meaning. */
export const RETIRED_DROP_CODES: readonly number[] = [];

export type DropReasonRow = (typeof DROP_REASONS)[number];
export type DropReasonName = DropReasonRow["name"];
export type DropReasonCode = DropReasonRow["code"];

/** Name -> code, e.g. `DropReason.POLICY_DENIED === 133`. */
export const DropReason = Object.freeze(Object.fromEntries(DROP_REASONS.map((r) => [r.name, r.code]))) as {
  readonly [R in DropReasonRow as R["name"]]: R["code"];
};

/** Cilium's observation points (enum trace_point, 0..13) and emulator-only points from 1000. */
export const TRACE_POINTS = [
  { code: 0, name: "TO_ENDPOINT", label: "to-endpoint", upstream: "TRACE_TO_LXC", description: "Delivered to a pod's interface" },
  { code: 1, name: "TO_PROXY", label: "to-proxy", upstream: "TRACE_TO_PROXY", description: "Redirected to an L7 proxy" },
  { code: 2, name: "TO_HOST", label: "to-host", upstream: "TRACE_TO_HOST", description: "Passed to the node's host endpoint" },
  { code: 3, name: "TO_STACK", label: "to-stack", upstream: "TRACE_TO_STACK", description: "Handed to the host network stack" },
  { code: 4, name: "TO_OVERLAY", label: "to-overlay", upstream: "TRACE_TO_OVERLAY", description: "Sent to the overlay (tunnel) device" },
  { code: 5, name: "FROM_ENDPOINT", label: "from-endpoint", upstream: "TRACE_FROM_LXC", description: "Received from a pod's interface" },
  { code: 6, name: "FROM_PROXY", label: "from-proxy", upstream: "TRACE_FROM_PROXY", description: "Received from an L7 proxy" },
  { code: 7, name: "FROM_HOST", label: "from-host", upstream: "TRACE_FROM_HOST", description: "Received from the node's host endpoint" },
  { code: 8, name: "FROM_STACK", label: "from-stack", upstream: "TRACE_FROM_STACK", description: "Received from the host network stack" },
  { code: 9, name: "FROM_OVERLAY", label: "from-overlay", upstream: "TRACE_FROM_OVERLAY", description: "Received from the overlay (tunnel) device" },
  { code: 10, name: "FROM_NETWORK", label: "from-network", upstream: "TRACE_FROM_NETWORK", description: "Received from the node's network interface" },
  { code: 11, name: "TO_NETWORK", label: "to-network", upstream: "TRACE_TO_NETWORK", description: "Sent out of the node's network interface" },
  { code: 12, name: "FROM_CRYPTO", label: "from-crypto", upstream: "TRACE_FROM_CRYPTO", description: "Received after decryption" },
  { code: 13, name: "TO_CRYPTO", label: "to-crypto", upstream: "TRACE_TO_CRYPTO", description: "Sent for encryption" },
  { code: 1000, name: "TO_LINK", label: "to-link", description: "Transmitted onto a link (after queueing)" },
  { code: 1001, name: "FROM_LINK", label: "from-link", description: "Arrived from a link at a device" },
  { code: 1002, name: "BRIDGE_FORWARD", label: "bridge-forward", description: "Forwarded by a bridge (FDB lookup or flood)" },
  { code: 1003, name: "HOST_FORWARD", label: "host-forward", description: "Routed by a node's host stack" },
  { code: 1004, name: "TO_SOCKET", label: "to-socket", description: "Delivered to an application socket" },
  { code: 1005, name: "FROM_SOCKET", label: "from-socket", description: "Sent by an application socket" },
] as const satisfies readonly (CodeRow & { readonly label: string })[];

export type TracePointRow = (typeof TRACE_POINTS)[number];
export type TracePointName = TracePointRow["name"];
export type TracePointCode = TracePointRow["code"];

/** Name -> code, e.g. `TracePoint.TO_ENDPOINT === 0`. */
export const TracePoint = Object.freeze(Object.fromEntries(TRACE_POINTS.map((r) => [r.name, r.code]))) as {
  readonly [R in TracePointRow as R["name"]]: R["code"];
};

const dropByCode = new Map<number, DropReasonRow>(DROP_REASONS.map((r) => [r.code, r]));
const traceByCode = new Map<number, TracePointRow>(TRACE_POINTS.map((r) => [r.code, r]));

export function dropReasonByCode(code: number): DropReasonRow | undefined {
  return dropByCode.get(code);
}

export function tracePointByCode(code: number): TracePointRow | undefined {
  return traceByCode.get(code);
}

/** Name for output; unknown codes print as their number. */
export function dropReasonName(code: number): string {
  return dropByCode.get(code)?.name ?? String(code);
}

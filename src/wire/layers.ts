// The JSON layer objects `dissect` produces (issue 2's `pcap inspect --json` format): one per header,
// outer first. Field names follow the issue; values are numbers, or text as tshark/tcpdump print them.

export type EthLayer = { proto: "eth"; src: string; dst: string; type: number };
export type SllLayer = {
  proto: "sll";
  version: 1 | 2;
  pktType: number;
  hatype: number;
  src: string;
  type: number;
  ifindex?: number;
};
export type VlanLayer = { proto: "vlan"; id: number; pcp: number; dei: boolean; type: number };
export type ArpLayer = { proto: "arp"; op: number; senderMac: string; senderIp: string; targetMac: string; targetIp: string };
/** `flags`: "DF", "MF", "DF+MF" or "". `fragOffset`: the 13-bit field (8-byte units), as tshark's ip.frag_offset. */
export type Ipv4Layer = {
  proto: "ipv4";
  src: string;
  dst: string;
  ttl: number;
  protocol: number;
  len: number;
  id: number;
  flags: string;
  fragOffset: number;
  hdrLen: number;
  checksumOk: boolean;
  /** IPsec AH headers walked on the way to the upper layer (protocol numbers). */
  ext?: number[];
  /** Set on the IP header quoted inside an ICMP error. */
  quoted?: true;
};
export type Ipv6Layer = {
  proto: "ipv6";
  src: string;
  dst: string;
  nextHeader: number;
  hopLimit: number;
  payloadLen: number;
  /** Extension headers walked, in order (next-header numbers), when there are any. */
  ext?: number[];
  /** Upper-layer protocol after the extension headers. */
  protocol: number;
  quoted?: true;
};
/** checksumOk: null when it cannot be checked (the message was cut short by the capture or by a quote). */
export type IcmpLayer = { proto: "icmp"; type: number; code: number; id?: number; seq?: number; checksumOk: boolean | null };
export type Icmpv6Layer = {
  proto: "icmpv6";
  type: number;
  code: number;
  id?: number;
  seq?: number;
  target?: string;
  checksumOk: boolean | null;
};
/** checksumOk: null when not checkable (cut short, a fragment) or absent (0 over IPv4, tshark's "not present"). */
export type UdpLayer = { proto: "udp"; srcPort: number; dstPort: number; len: number; checksumOk: boolean | null };
/** flags: letters from "SAFRPUEC" for the set flags, in that order. options: tcpdump's text, when present. */
export type TcpLayer = {
  proto: "tcp";
  srcPort: number;
  dstPort: number;
  seq: number;
  ack: number;
  flags: string;
  window: number;
  hdrLen: number;
  options?: string;
  checksumOk: boolean | null;
};
/** chunks: the chunk type numbers in order (tshark's sctp.chunk_type); checksumOk null when not all captured. */
export type SctpLayer = { proto: "sctp"; srcPort: number; dstPort: number; vtag: number; chunks: number[]; checksumOk: boolean | null };
export type VxlanLayer = { proto: "vxlan"; vni: number; flags: number };
export type GeneveLayer = { proto: "geneve"; vni: number; protocolType: number; oam: boolean; critical: boolean; optionsLen: number };
/**
 * Bytes no decoder here claimed: application data, an unknown EtherType / IP protocol (kept, with its
 * number), or a fragment. `len` counts the captured bytes; `wireLen`, present only when the capture cut
 * the packet short, is the length the headers announce.
 */
export type PayloadLayer = {
  proto: "payload";
  len: number;
  wireLen?: number;
  etherType?: number;
  protocol?: number;
  fragment?: true;
};
export type ErrorLayer = { proto: "error"; layer: string; field: string; offset: number; reason: string };

export type Layer =
  | EthLayer
  | SllLayer
  | VlanLayer
  | ArpLayer
  | Ipv4Layer
  | Ipv6Layer
  | IcmpLayer
  | Icmpv6Layer
  | UdpLayer
  | TcpLayer
  | SctpLayer
  | VxlanLayer
  | GeneveLayer
  | PayloadLayer
  | ErrorLayer;

export const LinkType = { ETHERNET: 1, RAW: 101, IPV4: 228, IPV6: 229, LINUX_SLL: 113, LINUX_SLL2: 276 } as const;

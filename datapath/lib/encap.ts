// Encapsulation built in the skb headroom with the wire emitters, and the matching decapsulation.
// VXLAN (RFC 7348): outer Ethernet + IPv4 (TTL 64, DF clear, as Linux vxlan defaults) + UDP (source port
// from a hash of the inner flow in [32768, 61000) as udp_flow_src_port does, checksum 0) + VXLAN (I flag,
// VNI) in front of the inner Ethernet frame. IPIP (RFC 2003, Linux ipip defaults): outer IPv4 protocol 4
// inheriting the inner TTL and DF bit, ID 0 when DF is set. Outer MACs are written by the FIB step.
import { fmix32 } from "../maps/hash.js";
import { emitEthernet, EtherType, type EthernetRepr } from "../../src/wire/ethernet.js";
import { emitIpv4, type Ipv4Repr } from "../../src/wire/ipv4.js";
import { IPPROTO_IPIP } from "../../src/wire/ipip.js";
import { emitUdp, type UdpRepr } from "../../src/wire/udp.js";
import { emitVxlan, VXLAN_FLAG_I, type VxlanRepr } from "../../src/wire/vxlan.js";
import { IPPROTO_UDP } from "../../src/wire/checksum.js";
import { Xlate, type DatapathCtx } from "../ctx.js";
import { ensureEthernet } from "./l3.js";
import { GSO_ENCAP_MASK, GsoType } from "../../src/skb/skbuff.js";

/** Bytes VXLAN puts in front of the inner Ethernet frame: Ethernet 14 + IPv4 20 + UDP 8 + VXLAN 8. */
export const VXLAN_ENCAP_LEN = 50;
/** Bytes IPIP puts in front of the inner IPv4 datagram: Ethernet 14 + IPv4 20. */
export const IPIP_ENCAP_LEN = 34;
export const VXLAN_SRC_PORT_MIN = 32768;
export const VXLAN_SRC_PORT_MAX = 61000;
const OUTER_TTL = 64;

// Reused header records: filling them allocates nothing per packet.
const ethRepr: EthernetRepr = { dst: 0, src: 0, etherType: EtherType.IPV4 };
const noOptions = new Uint8Array(0);
const ipRepr: Ipv4Repr = {
  dscp: 0, ecn: 0, totalLength: 0, identification: 0, dontFragment: false, moreFragments: false,
  fragmentOffset: 0, ttl: OUTER_TTL, protocol: 0, checksum: 0, src: 0, dst: 0, options: noOptions,
};
const udpRepr: UdpRepr = { srcPort: 0, dstPort: 0, length: 0, checksum: 0 };
const vxlanRepr: VxlanRepr = { flags: VXLAN_FLAG_I, vni: 0 };

/** Outer UDP source port for the inner flow in ctx (stable per flow, spread over the range). */
export function vxlanSourcePort(ctx: DatapathCtx): number {
  let h = fmix32((ctx.saddr ^ Math.imul(ctx.daddr, 0x9e3779b1)) >>> 0);
  h = fmix32((h ^ ((ctx.sport << 16) | ctx.dport) ^ (ctx.proto << 24)) >>> 0);
  h = (h ^ (h << 16)) >>> 0;
  return VXLAN_SRC_PORT_MIN + Math.floor((h * (VXLAN_SRC_PORT_MAX - VXLAN_SRC_PORT_MIN)) / 0x100000000);
}

/** Wraps the (Ethernet) frame in VXLAN/UDP/IPv4/Ethernet to outerDst. Always succeeds (the skb grows if needed). */
export function encapVxlan(ctx: DatapathCtx, outerSrc: number, outerDst: number, vni: number, dstPort: number): void {
  ensureEthernet(ctx);
  const skb = ctx.skb;
  if (ctx.hdr.end < skb.tail) skb.tail = ctx.hdr.end; // no Ethernet padding inside the tunnel
  const innerLen = skb.length;
  const srcPort = vxlanSourcePort(ctx);
  const at = skb.push(VXLAN_ENCAP_LEN);
  const b = skb.data;
  ethRepr.dst = 0;
  ethRepr.src = 0;
  emitEthernet(ethRepr, b, at);
  ipRepr.dscp = 0;
  ipRepr.ecn = 0;
  ipRepr.totalLength = 20 + 8 + 8 + innerLen;
  ipRepr.identification = ctx.prandom() & 0xffff;
  ipRepr.dontFragment = false;
  ipRepr.ttl = OUTER_TTL;
  ipRepr.protocol = IPPROTO_UDP;
  ipRepr.src = outerSrc;
  ipRepr.dst = outerDst;
  emitIpv4(ipRepr, b, at + 14);
  udpRepr.srcPort = srcPort;
  udpRepr.dstPort = dstPort;
  udpRepr.length = 8 + 8 + innerLen;
  udpRepr.checksum = 0;
  emitUdp(udpRepr, b, at + 34);
  vxlanRepr.vni = vni;
  emitVxlan(vxlanRepr, b, at + 42);
  if (skb.gsoSize !== 0) skb.gsoType |= GsoType.UDP_TUNNEL; // segments repeat the outer headers (checksum 0)
  ctx.xlate |= Xlate.ENCAP;
  ctx.tunnelPeer = outerDst;
}

/** Replaces the L2 header with Ethernet + IPv4 (protocol 4) to outerDst in front of the inner IPv4 datagram. */
export function encapIpip(ctx: DatapathCtx, outerSrc: number, outerDst: number): void {
  const skb = ctx.skb;
  const hdr = ctx.hdr;
  const innerLen = hdr.end - hdr.l3Offset;
  const innerDf = hdr.dontFragment;
  const innerTtl = hdr.ttl;
  skb.tail = hdr.end;
  const l3FromHead = hdr.l3Offset - skb.head;
  if (l3FromHead < IPIP_ENCAP_LEN) skb.push(IPIP_ENCAP_LEN - l3FromHead);
  else skb.pull(l3FromHead - IPIP_ENCAP_LEN);
  const b = skb.data;
  const at = skb.head;
  ethRepr.dst = 0;
  ethRepr.src = 0;
  emitEthernet(ethRepr, b, at);
  ipRepr.dscp = 0;
  ipRepr.ecn = 0;
  ipRepr.totalLength = 20 + innerLen;
  ipRepr.dontFragment = innerDf;
  ipRepr.identification = innerDf ? 0 : ctx.prandom() & 0xffff;
  ipRepr.ttl = innerTtl;
  ipRepr.protocol = IPPROTO_IPIP;
  ipRepr.src = outerSrc;
  ipRepr.dst = outerDst;
  emitIpv4(ipRepr, b, at + 14);
  if (skb.gsoSize !== 0) skb.gsoType |= GsoType.IPXIP4;
  ctx.l2 = true;
  ctx.xlate |= Xlate.ENCAP;
  ctx.tunnelPeer = outerDst;
}

/**
 * Strips the outer headers of a parsed VXLAN packet (ctx.hdr.tunnel VXLAN), leaving the inner Ethernet
 * frame (parse it next); skb.tunnelSrc / tunnelId record the outer source and VNI.
 */
export function decapVxlan(ctx: DatapathCtx): void {
  const skb = ctx.skb;
  const hdr = ctx.hdr;
  skb.tunnelSrc = hdr.src4 >>> 0;
  skb.tunnelId = hdr.vni;
  ctx.tunnelPeer = skb.tunnelSrc;
  skb.tail = hdr.end;
  skb.pull(hdr.innerOffset - skb.head);
  skb.gsoType &= ~GSO_ENCAP_MASK; // iptunnel_pull_offloads
  ctx.xlate |= Xlate.DECAP;
}

/** Strips the outer IPv4 header of a parsed IPIP packet, moving the Ethernet header up to the inner datagram (parse it next). */
export function decapIpip(ctx: DatapathCtx): void {
  const skb = ctx.skb;
  const hdr = ctx.hdr;
  const b = skb.data;
  skb.tunnelSrc = hdr.src4 >>> 0;
  skb.tunnelId = 0;
  ctx.tunnelPeer = skb.tunnelSrc;
  const macs = skb.head;
  skb.tail = hdr.end;
  skb.pull(hdr.innerOffset - 14 - skb.head);
  b.copyWithin(skb.head, macs, macs + 12);
  b[skb.head + 12] = EtherType.IPV4 >>> 8;
  b[skb.head + 13] = EtherType.IPV4 & 0xff;
  skb.gsoType &= ~GSO_ENCAP_MASK;
  ctx.xlate |= Xlate.DECAP;
}

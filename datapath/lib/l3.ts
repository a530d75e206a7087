// Header rewrites programs make in place, each keeping every checksum valid: source/destination address
// and port (RFC 1624 incremental updates, CRC32c recomputed for SCTP), TTL decrement, Ethernet addresses,
// and the skb's record of the tuple before the first NAT (what drop records show as "before").
import { NatApplied } from "../../src/skb/skbuff.js";
import { write16 } from "../../src/wire/bytes.js";
import { IPPROTO_ICMP, IPPROTO_TCP, IPPROTO_UDP, checksumReplace16 } from "../../src/wire/checksum.js";
import { EtherType } from "../../src/wire/ethernet.js";
import { IcmpType } from "../../src/wire/icmp.js";
import { IPV4_DST_FIELD, IPV4_SRC_FIELD, L4_DST_PORT_FIELD, L4_SRC_PORT_FIELD, rewriteIpv4Address, rewriteL4Port } from "../../src/wire/nat-rewrite.js";
import type { DatapathCtx } from "../ctx.js";
import { DropReason } from "../reasons.js";

export const IPPROTO_SCTP = 132;

const CRC32C = new Uint32Array(256);
for (let n = 0; n < 256; n++) {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? (c >>> 1) ^ 0x82f63b78 : c >>> 1;
  CRC32C[n] = c >>> 0;
}

/** True when the protocol has 16-bit ports at the start of its header. */
export function hasPorts(proto: number): boolean {
  return proto === IPPROTO_TCP || proto === IPPROTO_UDP || proto === IPPROTO_SCTP;
}

/** Records the tuple before the first translation on the skb and the kind of NAT applied. */
export function noteNat(ctx: DatapathCtx, kind: number): void {
  const skb = ctx.skb;
  if (skb.natApplied === 0) {
    skb.origSrc = ctx.saddr;
    skb.origDst = ctx.daddr;
    skb.origSrcPort = ctx.sport;
    skb.origDstPort = ctx.dport;
  }
  skb.natApplied |= kind;
}

/** Sets the packet's source address and port (ICMP echo request: the id). Updates ctx.saddr/sport. */
export function rewriteSource(ctx: DatapathCtx, addr: number, port: number): void {
  const bytes = ctx.skb.data;
  const hdr = ctx.hdr;
  const proto = ctx.proto;
  noteNat(ctx, NatApplied.SNAT);
  if (addr !== ctx.saddr) rewriteIpv4Address(bytes, hdr.l3Offset, IPV4_SRC_FIELD, addr, hdr.l4Offset, proto);
  if (port !== ctx.sport && portIsRewritable(ctx, true)) {
    rewriteL4Port(bytes, hdr.l4Offset, proto, L4_SRC_PORT_FIELD, port);
    if (proto === IPPROTO_SCTP) fixSctpChecksum(bytes, hdr.l4Offset, hdr.end);
  }
  ctx.saddr = addr;
  ctx.sport = port;
}

/** Sets the packet's destination address and port (ICMP echo reply: the id). Updates ctx.daddr/dport. */
export function rewriteDestination(ctx: DatapathCtx, addr: number, port: number): void {
  const bytes = ctx.skb.data;
  const hdr = ctx.hdr;
  const proto = ctx.proto;
  noteNat(ctx, NatApplied.DNAT);
  if (addr !== ctx.daddr) rewriteIpv4Address(bytes, hdr.l3Offset, IPV4_DST_FIELD, addr, hdr.l4Offset, proto);
  if (port !== ctx.dport && portIsRewritable(ctx, false)) {
    rewriteL4Port(bytes, hdr.l4Offset, proto, L4_DST_PORT_FIELD, port);
    if (proto === IPPROTO_SCTP) fixSctpChecksum(bytes, hdr.l4Offset, hdr.end);
  }
  ctx.daddr = addr;
  ctx.dport = port;
}

function portIsRewritable(ctx: DatapathCtx, source: boolean): boolean {
  if (hasPorts(ctx.proto)) return true;
  if (ctx.proto !== IPPROTO_ICMP) return false;
  return ctx.hdr.icmpType === (source ? IcmpType.ECHO_REQUEST : IcmpType.ECHO_REPLY);
}

/** SCTP's CRC32c (RFC 4960 appendix B) over the common header and chunks, stored as the kernel does (little-endian). */
export function fixSctpChecksum(bytes: Uint8Array, l4: number, end: number): void {
  bytes[l4 + 8] = bytes[l4 + 9] = bytes[l4 + 10] = bytes[l4 + 11] = 0;
  let crc = 0xffffffff;
  for (let i = l4; i < end; i++) crc = CRC32C[(crc ^ bytes[i]!) & 0xff]! ^ (crc >>> 8);
  crc = ~crc >>> 0;
  bytes[l4 + 8] = crc & 0xff;
  bytes[l4 + 9] = (crc >>> 8) & 0xff;
  bytes[l4 + 10] = (crc >>> 16) & 0xff;
  bytes[l4 + 11] = crc >>> 24;
}

/** Decrements the IPv4 TTL when the datapath routes the packet; TTL_EXCEEDED when it would reach 0. */
export function decrementTtl(ctx: DatapathCtx): number {
  const bytes = ctx.skb.data;
  const l3 = ctx.hdr.l3Offset;
  const ttl = bytes[l3 + 8]!;
  if (ttl <= 1) {
    ctx.site = "datapath/lib/l3:ttl";
    return DropReason.TTL_EXCEEDED;
  }
  const proto = bytes[l3 + 9]!;
  const check = (bytes[l3 + 10]! << 8) | bytes[l3 + 11]!;
  bytes[l3 + 8] = ttl - 1;
  write16(bytes, l3 + 10, checksumReplace16(check, (ttl << 8) | proto, ((ttl - 1) << 8) | proto));
  ctx.hdr.ttl = ttl - 1;
  return 0;
}

/** Writes a MAC given as its high 16 and low 32 bits (map value words): no 48-bit doubles on the hot path. */
export function writeMacWords(bytes: Uint8Array, at: number, hi: number, lo: number): void {
  bytes[at] = (hi >>> 8) & 255;
  bytes[at + 1] = hi & 255;
  bytes[at + 2] = lo >>> 24;
  bytes[at + 3] = (lo >>> 16) & 255;
  bytes[at + 4] = (lo >>> 8) & 255;
  bytes[at + 5] = lo & 255;
}

/**
 * Gives a bare IP packet (from an L3 device such as tunl0) an Ethernet header so it can be redirected to
 * an L2 interface; parsed offsets move with it. No-op on L2 frames.
 */
export function ensureEthernet(ctx: DatapathCtx): void {
  if (ctx.l2) return;
  const skb = ctx.skb;
  const before = skb.head;
  const beforeData = skb.data;
  skb.push(14);
  const shift = skb.data === beforeData ? 0 : skb.head + 14 - before;
  write16(skb.data, skb.head + 12, EtherType.IPV4);
  shiftOffsets(ctx, shift);
  ctx.hdr.l2Offset = skb.head;
  ctx.l2 = true;
}

/** Moves every parsed offset by `delta` bytes (after the buffer was reallocated with more headroom). */
export function shiftOffsets(ctx: DatapathCtx, delta: number): void {
  if (delta === 0) return;
  const h = ctx.hdr;
  if (h.l2Offset >= 0) h.l2Offset += delta;
  if (h.l3Offset >= 0) h.l3Offset += delta;
  if (h.l4Offset >= 0) h.l4Offset += delta;
  if (h.payloadOffset >= 0) h.payloadOffset += delta;
  if (h.innerOffset >= 0) h.innerOffset += delta;
  h.end += delta;
}

// Packet builders for stack tests: IPv4 datagrams (UDP, TCP, ICMP echo) with every checksum computed
// from scratch by the wire layer, and a frame wrapper; plus readers for the fields tests assert on.

import { SkBuff } from "../../../src/skb/skbuff.js";
import type { NetWorld } from "../../../src/net/world.js";
import { emitIpv4 } from "../../../src/wire/ipv4.js";
import { setL4ChecksumV4 } from "../../../src/wire/checksum.js";
import { read16, read32, write16, write32 } from "../../../src/wire/bytes.js";
import { writeMac } from "../../../src/util/mac.js";

export interface IpOptions {
  readonly ttl?: number;
  readonly df?: boolean;
  readonly id?: number;
  readonly tos?: number;
  readonly mf?: boolean;
  readonly fragOffset?: number;
}

export function ipv4(src: number, dst: number, proto: number, payload: Uint8Array, o: IpOptions = {}): Uint8Array {
  const out = new Uint8Array(20 + payload.length);
  emitIpv4(
    {
      dscp: (o.tos ?? 0) >>> 2, ecn: (o.tos ?? 0) & 3, totalLength: out.length, identification: o.id ?? 0x1234,
      dontFragment: o.df ?? false, moreFragments: o.mf ?? false, fragmentOffset: o.fragOffset ?? 0, ttl: o.ttl ?? 64,
      protocol: proto, checksum: 0, src, dst, options: new Uint8Array(0),
    },
    out,
    0,
  );
  out.set(payload, 20);
  return out;
}

export function udp(src: number, dst: number, sport: number, dport: number, data: Uint8Array, o: IpOptions = {}): Uint8Array {
  const seg = new Uint8Array(8 + data.length);
  write16(seg, 0, sport);
  write16(seg, 2, dport);
  write16(seg, 4, seg.length);
  seg.set(data, 8);
  setL4ChecksumV4(seg, 0, seg.length, 17, src, dst);
  return ipv4(src, dst, 17, seg, o);
}

export function tcp(src: number, dst: number, sport: number, dport: number, seq: number, ack: number, flags: number, data: Uint8Array, o: IpOptions = {}): Uint8Array {
  const seg = new Uint8Array(20 + data.length);
  write16(seg, 0, sport);
  write16(seg, 2, dport);
  write32(seg, 4, seq);
  write32(seg, 8, ack);
  seg[12] = 0x50;
  seg[13] = flags;
  write16(seg, 14, 512);
  seg.set(data, 20);
  setL4ChecksumV4(seg, 0, seg.length, 6, src, dst);
  return ipv4(src, dst, 6, seg, o);
}

export function echo(src: number, dst: number, id: number, seq: number, data: Uint8Array, o: IpOptions = {}): Uint8Array {
  const msg = new Uint8Array(8 + data.length);
  msg[0] = 8;
  write16(msg, 4, id);
  write16(msg, 6, seq);
  msg.set(data, 8);
  setL4ChecksumV4(msg, 0, msg.length, 1, src, dst);
  return ipv4(src, dst, 1, msg, o);
}

/** An Ethernet frame around an IPv4 packet. */
export function frame(dstMac: number, srcMac: number, packet: Uint8Array, etherType = 0x0800): Uint8Array {
  const out = new Uint8Array(14 + packet.length);
  writeMac(out, 0, dstMac);
  writeMac(out, 6, srcMac);
  write16(out, 12, etherType);
  out.set(packet, 14);
  return out;
}

export function packetSkb(world: NetWorld, bytes: Uint8Array): SkBuff {
  return SkBuff.fromBytes(world.ledger.admit(), bytes);
}

/** Fields of the IPv4 packet at `at` (14 for a frame). */
export function ipFields(b: Uint8Array, at = 14) {
  return {
    tos: b[at + 1]!,
    totalLength: read16(b, at + 2),
    id: read16(b, at + 4),
    frag: read16(b, at + 6),
    ttl: b[at + 8]!,
    proto: b[at + 9]!,
    src: read32(b, at + 12),
    dst: read32(b, at + 16),
    l4: at + (b[at]! & 0x0f) * 4,
  };
}

export const bytesOf = (text: string): Uint8Array => new TextEncoder().encode(text);

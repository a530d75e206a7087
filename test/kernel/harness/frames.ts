// Frame builders for the kernel comparison tests: exact Ethernet/IPv4/UDP/TCP/ICMP bytes with correct
// checksums, so the same bytes can be sent into the kernel (AF_PACKET) and into the model.

import { parseMac, writeMac } from "../../../src/util/mac.js";
import { parseIPv4 } from "../../../src/util/ip.js";
import { read16, read32, write16, write32 } from "../../../src/wire/bytes.js";
import { internetChecksum, setIpv4HeaderChecksum, setL4ChecksumV4 } from "../../../src/wire/checksum.js";

export function mac(text: string): number {
  const m = parseMac(text);
  if (m === null) throw new Error(`bad MAC ${text}`);
  return m;
}

export function ip4(text: string): number {
  const a = parseIPv4(text);
  if (a === null) throw new Error(`bad IPv4 address ${text}`);
  return a;
}

export const hex = (b: Uint8Array): string => Buffer.from(b).toString("hex");

export interface L2 {
  readonly srcMac: string;
  readonly dstMac: string;
}

export interface Ipv4Spec extends L2 {
  readonly src: string;
  readonly dst: string;
  readonly ttl?: number;
  readonly tos?: number;
  readonly id?: number;
  readonly df?: boolean;
}

/** A non-IP frame (local experimental EtherType 0x88b5 by default), 60 bytes, tagged with `tag` at byte 14. */
export function rawFrame(l2: L2, tag: number, etherType = 0x88b5): Uint8Array {
  const f = new Uint8Array(60);
  writeMac(f, 0, mac(l2.dstMac));
  writeMac(f, 6, mac(l2.srcMac));
  write16(f, 12, etherType);
  write32(f, 14, tag >>> 0);
  return f;
}

function ipv4Frame(s: Ipv4Spec, protocol: number, l4: Uint8Array): Uint8Array {
  const f = new Uint8Array(14 + 20 + l4.length);
  writeMac(f, 0, mac(s.dstMac));
  writeMac(f, 6, mac(s.srcMac));
  write16(f, 12, 0x0800);
  f[14] = 0x45;
  f[15] = s.tos ?? 0;
  write16(f, 16, 20 + l4.length);
  write16(f, 18, s.id ?? 0x4242);
  write16(f, 20, s.df === true ? 0x4000 : 0);
  f[22] = s.ttl ?? 64;
  f[23] = protocol;
  write32(f, 26, ip4(s.src));
  write32(f, 30, ip4(s.dst));
  setIpv4HeaderChecksum(f, 14, 20);
  f.set(l4, 34);
  return f;
}

function payloadBytes(payload: string | number): Uint8Array {
  if (typeof payload === "string") return new Uint8Array(Buffer.from(payload));
  const p = new Uint8Array(payload);
  for (let i = 0; i < payload; i++) p[i] = 0x41 + (i % 26);
  return p;
}

export function udpFrame(s: Ipv4Spec & { sport: number; dport: number; payload?: string | number }): Uint8Array {
  const data = payloadBytes(s.payload ?? "cnisim");
  const l4 = new Uint8Array(8 + data.length);
  write16(l4, 0, s.sport);
  write16(l4, 2, s.dport);
  write16(l4, 4, l4.length);
  l4.set(data, 8);
  const f = ipv4Frame(s, 17, l4);
  setL4ChecksumV4(f, 34, l4.length, 17, ip4(s.src), ip4(s.dst));
  return f;
}

export const TcpFlag = { FIN: 0x01, SYN: 0x02, RST: 0x04, PSH: 0x08, ACK: 0x10 } as const;

export function tcpFrame(
  s: Ipv4Spec & { sport: number; dport: number; seq: number; ack?: number; flags: number; window?: number; payload?: string },
): Uint8Array {
  const data = payloadBytes(s.payload ?? "");
  const l4 = new Uint8Array(20 + data.length);
  write16(l4, 0, s.sport);
  write16(l4, 2, s.dport);
  write32(l4, 4, s.seq >>> 0);
  write32(l4, 8, (s.ack ?? 0) >>> 0);
  l4[12] = 0x50;
  l4[13] = s.flags;
  write16(l4, 14, s.window ?? 64240);
  l4.set(data, 20);
  const f = ipv4Frame(s, 6, l4);
  setL4ChecksumV4(f, 34, l4.length, 6, ip4(s.src), ip4(s.dst));
  return f;
}

export function icmpEchoFrame(s: Ipv4Spec & { ident: number; seq: number; payload?: string | number }): Uint8Array {
  const data = payloadBytes(s.payload ?? 16);
  const l4 = new Uint8Array(8 + data.length);
  l4[0] = 8;
  write16(l4, 4, s.ident);
  write16(l4, 6, s.seq);
  l4.set(data, 8);
  write16(l4, 2, internetChecksum(l4, 0, l4.length));
  return ipv4Frame(s, 1, l4);
}

/** Accessors on a captured Ethernet + IPv4 frame (no options assumed beyond the IHL). */
export const frame = {
  etherType: (f: Uint8Array): number => read16(f, 12),
  srcMac: (f: Uint8Array): string => hex(f.subarray(6, 12)),
  dstMac: (f: Uint8Array): string => hex(f.subarray(0, 6)),
  isIpv4: (f: Uint8Array): boolean => f.length >= 34 && read16(f, 12) === 0x0800,
  ipProto: (f: Uint8Array): number => f[23] ?? -1,
  ipSrc: (f: Uint8Array): number => read32(f, 26),
  ipDst: (f: Uint8Array): number => read32(f, 30),
  l4: (f: Uint8Array): number => 14 + ((f[14] ?? 0) & 0x0f) * 4,
  tcpSeq: (f: Uint8Array): number => read32(f, frame.l4(f) + 4),
  tcpFlags: (f: Uint8Array): number => f[frame.l4(f) + 13] ?? 0,
  srcPort: (f: Uint8Array): number => read16(f, frame.l4(f)),
  dstPort: (f: Uint8Array): number => read16(f, frame.l4(f) + 2),
  tag: (f: Uint8Array): number => read32(f, 14),
};

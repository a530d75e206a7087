// IPv4 packets for kube-proxy tests, built with the wire layer's emitters and every checksum
// computed from scratch (an oracle independent of netfilter's incremental NAT updates).
import { read16, read32 } from "../../src/wire/bytes.js";
import { setL4ChecksumV4, verifyChecksum, verifyIpv4HeaderChecksum } from "../../src/wire/checksum.js";
import { emitIpv4 } from "../../src/wire/ipv4.js";
import { emitTcp, TcpFlag } from "../../src/wire/tcp.js";
import { emitUdp } from "../../src/wire/udp.js";
import { parseIPv4, formatIPv4 } from "../../src/util/ip.js";

export const ip = (text: string): number => {
  const v = parseIPv4(text);
  if (v === null) throw new Error(`bad address ${text}`);
  return v;
};

function ipv4(src: number, dst: number, protocol: number, l4: Uint8Array): Uint8Array {
  const out = new Uint8Array(20 + l4.length);
  emitIpv4(
    { dscp: 0, ecn: 0, totalLength: out.length, identification: 0x4242, dontFragment: true, moreFragments: false, fragmentOffset: 0, ttl: 64, protocol, checksum: 0, src, dst, options: new Uint8Array(0) },
    out,
    0,
  );
  out.set(l4, 20);
  return out;
}

export function tcpPacket(src: number, dst: number, sport: number, dport: number, flags: number = TcpFlag.SYN, seq = 1000, ack = 0): Uint8Array {
  const seg = new Uint8Array(20);
  emitTcp({ srcPort: sport, dstPort: dport, seq, ack, flags, window: 64240, checksum: 0, urgentPointer: 0, options: [] }, seg, 0);
  setL4ChecksumV4(seg, 0, seg.length, 6, src, dst);
  return ipv4(src, dst, 6, seg);
}

export function udpPacket(src: number, dst: number, sport: number, dport: number, payload: Uint8Array = new Uint8Array(4)): Uint8Array {
  const seg = new Uint8Array(8 + payload.length);
  emitUdp({ srcPort: sport, dstPort: dport, length: seg.length, checksum: 0 }, seg, 0);
  seg.set(payload, 8);
  setL4ChecksumV4(seg, 0, seg.length, 17, src, dst);
  return ipv4(src, dst, 17, seg);
}

/** Fields of the IPv4 packet at `at`, with the checksums verified from scratch. */
export function fields(b: Uint8Array, at = 0) {
  const hl = (b[at]! & 0x0f) * 4;
  const proto = b[at + 9]!;
  const total = read16(b, at + 2);
  const l4 = at + hl;
  const src = read32(b, at + 12);
  const dst = read32(b, at + 16);
  const l4ok = proto === 1 ? verifyChecksum(b, l4, at + total) : verifyL4(b, l4, at + total, proto, src, dst);
  return {
    proto,
    src,
    dst,
    srcText: formatIPv4(src),
    dstText: formatIPv4(dst),
    sport: proto === 1 ? 0 : read16(b, l4),
    dport: proto === 1 ? 0 : read16(b, l4 + 2),
    l4,
    headerChecksumOk: verifyIpv4HeaderChecksum(b, at, hl),
    l4ChecksumOk: l4ok,
  };
}

function verifyL4(b: Uint8Array, start: number, end: number, proto: number, src: number, dst: number): boolean {
  const copy = b.slice(start, end);
  const field = proto === 6 ? 16 : 6;
  const given = read16(copy, field);
  copy[field] = 0;
  copy[field + 1] = 0;
  const fresh = setL4ChecksumV4(copy, 0, copy.length, proto, src, dst);
  return given === fresh || (proto === 17 && given === 0);
}

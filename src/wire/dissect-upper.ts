// Upper-layer decoders of dissect: TCP, UDP (and the VXLAN/Geneve tunnels it carries), SCTP, ICMP and ICMPv6
// (with the packet an error message quotes), with checksum validity from the IP context around them.
import { formatIPv6 } from "../util/ip.js";
import { Ipv6NextHeader } from "./ipv6.js";
import { isIcmpError, isIcmpEcho, parseIcmp, ICMP_HEADER_LENGTH } from "./icmp.js";
import { icmpv6HasTarget, isIcmpv6Echo, isIcmpv6Error, parseIcmpv6 } from "./icmpv6.js";
import { parseUdp, UdpPort, UDP_HEADER_LENGTH } from "./udp.js";
import { formatTcpOptions, parseTcp, tcpFlagLetters } from "./tcp.js";
import { parseVxlan, VXLAN_HEADER_LENGTH } from "./vxlan.js";
import { IPPROTO_SCTP, parseSctpChunkTypes, parseSctpHeader, verifySctpChecksum } from "./sctp.js";
import { geneveHeaderLen, parseGeneve } from "./geneve.js";
import { IPPROTO_IPIP, IPPROTO_IPV6 } from "./ipip.js";
import { IPPROTO_ICMP, IPPROTO_ICMPV6, IPPROTO_TCP, IPPROTO_UDP, verifyL4ChecksumV4, verifyL4ChecksumV6 } from "./checksum.js";
import type { Layer } from "./layers.js";
import { DONE, failed, payload, type IpContext, type Step } from "./dissect-steps.js";

/** Checksum validity of an L4 segment of `length` bytes at `at`, or null when it was not all captured. */
function l4ChecksumOk(frame: Uint8Array, ip: IpContext, at: number, length: number, end: number, protocol: number): boolean | null {
  if (ip.truncated || at + length > end || length < 0) return null;
  if (ip.version === 4) return verifyL4ChecksumV4(frame, at, length, protocol, ip.src4, ip.dst4);
  return verifyL4ChecksumV6(frame, at, length, protocol, frame, ip.ip6Offset + 8, frame, ip.ip6Offset + 24);
}

export function decodeUpper(frame: Uint8Array, protocol: number, at: number, end: number, ip: IpContext, layers: Layer[]): Step {
  switch (protocol) {
    case IPPROTO_TCP:
      return decodeTcp(frame, at, end, ip, layers);
    case IPPROTO_UDP:
      return decodeUdp(frame, at, end, ip, layers);
    case IPPROTO_ICMP:
      return decodeIcmp(frame, at, end, ip, layers);
    case IPPROTO_ICMPV6:
      return decodeIcmpv6(frame, at, end, ip, layers);
    case IPPROTO_SCTP:
      return decodeSctp(frame, at, end, ip, layers);
    case IPPROTO_IPIP:
      return { kind: "ipv4", offset: at, end, quoted: ip.quoted };
    case IPPROTO_IPV6:
      return { kind: "ipv6", offset: at, end, quoted: ip.quoted };
    case Ipv6NextHeader.NO_NEXT_HEADER:
      return payload(layers, at, end, at + ip.l4Length);
    default:
      return payload(layers, at, end, at + ip.l4Length, { protocol });
  }
}

function decodeTcp(frame: Uint8Array, at: number, end: number, ip: IpContext, layers: Layer[]): Step {
  const r = parseTcp(frame, at, end);
  if (!r.ok) return failed(layers, r.error);
  const t = r.value;
  const headerLength = (frame[at + 12]! >>> 4) * 4;
  layers.push({
    proto: "tcp",
    srcPort: t.srcPort,
    dstPort: t.dstPort,
    seq: t.seq,
    ack: t.ack,
    flags: tcpFlagLetters(t.flags),
    window: t.window,
    hdrLen: headerLength,
    ...(t.options.length > 0 ? { options: formatTcpOptions(t.options) } : {}),
    checksumOk: l4ChecksumOk(frame, ip, at, ip.l4Length, end, IPPROTO_TCP),
  });
  return payload(layers, at + headerLength, end, at + ip.l4Length);
}

function decodeUdp(frame: Uint8Array, at: number, end: number, ip: IpContext, layers: Layer[]): Step {
  const r = parseUdp(frame, at, end);
  if (!r.ok) return failed(layers, r.error);
  const u = r.value;
  if (!ip.truncated && u.length > ip.l4Length) {
    return failed(layers, { layer: "udp", field: "length", offset: at + 4, reason: `length ${u.length} exceeds the IP payload (${ip.l4Length})` });
  }
  const absent = ip.version === 4 && u.checksum === 0;
  layers.push({
    proto: "udp",
    srcPort: u.srcPort,
    dstPort: u.dstPort,
    len: u.length,
    checksumOk: absent ? null : l4ChecksumOk(frame, ip, at, u.length, end, IPPROTO_UDP),
  });
  const payloadEnd = Math.min(end, at + u.length);
  const inner = at + UDP_HEADER_LENGTH;
  if (!ip.quoted && (u.dstPort === UdpPort.VXLAN || u.dstPort === UdpPort.VXLAN_LINUX)) {
    const v = parseVxlan(frame, inner, payloadEnd);
    if (!v.ok) return failed(layers, v.error);
    layers.push({ proto: "vxlan", vni: v.value.vni, flags: v.value.flags });
    return { kind: "eth", offset: inner + VXLAN_HEADER_LENGTH, end: payloadEnd, quoted: false };
  }
  if (!ip.quoted && u.dstPort === UdpPort.GENEVE) {
    const g = parseGeneve(frame, inner, payloadEnd);
    if (!g.ok) return failed(layers, g.error);
    const h = g.value;
    const length = geneveHeaderLen(frame, inner);
    layers.push({ proto: "geneve", vni: h.vni, protocolType: h.protocolType, oam: h.oam, critical: h.critical, optionsLen: length - 8 });
    return { kind: "ether", offset: inner + length, end: payloadEnd, etherType: h.protocolType };
  }
  return payload(layers, inner, payloadEnd, at + u.length);
}

function decodeSctp(frame: Uint8Array, at: number, end: number, ip: IpContext, layers: Layer[]): Step {
  const r = parseSctpHeader(frame, at, end);
  if (!r.ok) return failed(layers, r.error);
  const packetEnd = at + ip.l4Length;
  const whole = !ip.truncated && packetEnd <= end;
  const chunks = parseSctpChunkTypes(frame, at, whole ? packetEnd : end);
  layers.push({ proto: "sctp", srcPort: r.value.srcPort, dstPort: r.value.dstPort, vtag: r.value.verificationTag, chunks, checksumOk: whole ? verifySctpChecksum(frame, at, packetEnd) : null });
  return DONE;
}

function echoFields(frame: Uint8Array, at: number): { id: number; seq: number } {
  return { id: (frame[at + 4]! << 8) | frame[at + 5]!, seq: (frame[at + 6]! << 8) | frame[at + 7]! };
}

function decodeIcmp(frame: Uint8Array, at: number, end: number, ip: IpContext, layers: Layer[]): Step {
  const r = parseIcmp(frame, at, end);
  if (!r.ok) return failed(layers, r.error);
  const { type, code } = r.value;
  const checksumOk = l4ChecksumOk(frame, ip, at, ip.l4Length, end, IPPROTO_ICMP);
  layers.push({ proto: "icmp", type, code, ...(isIcmpEcho(type) ? echoFields(frame, at) : {}), checksumOk });
  if (isIcmpError(type) && !ip.quoted) return { kind: "ipv4", offset: at + ICMP_HEADER_LENGTH, end, quoted: true };
  return payload(layers, at + ICMP_HEADER_LENGTH, end, at + ip.l4Length);
}

function decodeIcmpv6(frame: Uint8Array, at: number, end: number, ip: IpContext, layers: Layer[]): Step {
  const r = parseIcmpv6(frame, at, end);
  if (!r.ok) return failed(layers, r.error);
  const { type, code } = r.value;
  const checksumOk = ip.version === 6 ? l4ChecksumOk(frame, ip, at, ip.l4Length, end, IPPROTO_ICMPV6) : null;
  const target = icmpv6HasTarget(type) && at + 24 <= end ? { target: formatIPv6(frame, at + 8) } : {};
  layers.push({ proto: "icmpv6", type, code, ...(isIcmpv6Echo(type) ? echoFields(frame, at) : {}), ...target, checksumOk });
  if (isIcmpv6Error(type) && !ip.quoted) return { kind: "ipv6", offset: at + ICMP_HEADER_LENGTH, end, quoted: true };
  return payload(layers, at + ICMP_HEADER_LENGTH + (icmpv6HasTarget(type) ? 16 : 0), end, at + ip.l4Length);
}

// Fast-path header parse into a reusable ParsedHeaders struct: numbers only, no allocation per packet,
// never throws. parseFrame reads Ethernet (+ stacked VLAN tags), IPv4/IPv6 (+ extension headers) and
// the L4 header; tunnels (VXLAN, Geneve, IPIP) are located but not entered: parse again at innerOffset.
import { read16, read32 } from "./bytes.js";
import { EtherType } from "./ethernet.js";
import { isIpv6Extension, ipv6ExtensionLengthAt } from "./ipv6.js";
import { UdpPort } from "./udp.js";
import { VXLAN_FLAG_I, VXLAN_HEADER_LENGTH } from "./vxlan.js";
import { GENEVE_BASE_LENGTH } from "./geneve.js";
import type { WireError } from "./errors.js";

export const ParseStatus = {
  OK: 0,
  /** A header, or the datagram its length field announces, extends past the end of the bytes. */
  TRUNCATED: 1,
  BAD_VERSION: 2,
  /** IPv4 IHL below 5 or TCP data offset below 5. */
  BAD_HEADER_LENGTH: 3,
  /** Length fields disagree: IPv4 total length below the header, UDP length vs IP payload, ... */
  BAD_LENGTH: 4,
  /** IPv6 extension chain malformed (hop-by-hop not first, a header overrunning the payload). */
  BAD_EXTENSION: 5,
} as const;
export type ParseStatusCode = (typeof ParseStatus)[keyof typeof ParseStatus];

const STATUS_REASON = ["ok", "truncated", "bad version", "bad header length", "inconsistent length", "bad extension header"];

export const TunnelKind = { NONE: 0, VXLAN: 1, GENEVE: 2, IPIP: 3 } as const;

const IPPROTO = { ICMP: 1, IPIP: 4, TCP: 6, UDP: 17, IPV6: 41, ICMPV6: 58, SCTP: 132 } as const;

/** One packet's header offsets and fields; reuse one instance per call site. Offsets are -1 when absent. */
export class ParsedHeaders {
  status: number = ParseStatus.OK;
  errorLayer = "";
  errorField = "";
  errorOffset = -1;
  /** End of meaningful bytes: trimmed to the IP datagram (drops Ethernet padding) and the UDP length. */
  end = 0;
  l2Offset = -1;
  vlanCount = 0;
  /** TCIs of the outer two tags. */
  vlanTci0 = 0;
  vlanTci1 = 0;
  etherType = 0;
  l3Offset = -1;
  /** 4, 6, or 0 when the EtherType is not IP (ARP and unknown types are kept: see etherType). */
  ipVersion = 0;
  /** IPv4 header incl. options; IPv6 fixed header plus extension headers. */
  ipHeaderLen = 0;
  tos = 0;
  ipTotalLen = 0;
  ipId = 0;
  ttl = 0;
  /** Upper-layer protocol (after IPv6 extension headers). */
  ipProto = 0;
  src4 = 0;
  dst4 = 0;
  src6Offset = -1;
  dst6Offset = -1;
  dontFragment = false;
  moreFragments = false;
  isFragment = false;
  /** In bytes. */
  fragOffset = 0;
  fragId = 0;
  l4Offset = -1;
  srcPort = 0;
  dstPort = 0;
  tcpFlags = 0;
  tcpSeq = 0;
  tcpAck = 0;
  tcpWindow = 0;
  tcpHeaderLen = 0;
  udpLen = 0;
  icmpType = 0;
  icmpCode = 0;
  icmpId = 0;
  payloadOffset = -1;
  tunnel: number = TunnelKind.NONE;
  innerOffset = -1;
  /** True when the inner packet starts with Ethernet (VXLAN, Geneve 0x6558), false for inner IP. */
  innerEthernet = false;
  vni = 0;
  /**
   * True while the fields parseCommonIpv4 sets to fixed values (no error, no VLAN tags, IPv4, not a
   * fragment, no ICMP) still hold them from its last parse: the next one need not write them again.
   * Only this module writes those fields; anything else may adjust offsets, lengths and the TTL.
   */
  commonLayout = false;

  reset(end: number): void {
    this.commonLayout = false;
    this.status = ParseStatus.OK;
    this.errorLayer = "";
    this.errorField = "";
    this.errorOffset = -1;
    this.end = end;
    this.l2Offset = -1;
    this.vlanCount = 0;
    this.vlanTci0 = 0;
    this.vlanTci1 = 0;
    this.etherType = 0;
    this.l3Offset = -1;
    this.ipVersion = 0;
    this.ipHeaderLen = 0;
    this.tos = 0;
    this.ipTotalLen = 0;
    this.ipId = 0;
    this.ttl = 0;
    this.ipProto = 0;
    this.src4 = 0;
    this.dst4 = 0;
    this.src6Offset = -1;
    this.dst6Offset = -1;
    this.dontFragment = false;
    this.moreFragments = false;
    this.isFragment = false;
    this.fragOffset = 0;
    this.fragId = 0;
    this.l4Offset = -1;
    this.srcPort = 0;
    this.dstPort = 0;
    this.tcpFlags = 0;
    this.tcpSeq = 0;
    this.tcpAck = 0;
    this.tcpWindow = 0;
    this.tcpHeaderLen = 0;
    this.udpLen = 0;
    this.icmpType = 0;
    this.icmpCode = 0;
    this.icmpId = 0;
    this.payloadOffset = -1;
    this.tunnel = TunnelKind.NONE;
    this.innerOffset = -1;
    this.innerEthernet = false;
    this.vni = 0;
  }
}

function fail(out: ParsedHeaders, status: number, layer: string, field: string, offset: number): number {
  out.commonLayout = false;
  out.status = status;
  out.errorLayer = layer;
  out.errorField = field;
  out.errorOffset = offset;
  return status;
}

/** The error recorded in `out` as a WireError (cold path: allocates). */
export function headersError(out: ParsedHeaders): WireError | null {
  if (out.status === ParseStatus.OK) return null;
  return { layer: out.errorLayer, field: out.errorField, offset: out.errorOffset, reason: STATUS_REASON[out.status] ?? "error" };
}

/** Parses an Ethernet frame in bytes[offset, end). Returns a ParseStatus code (0 = ok). */
export function parseFrame(bytes: Uint8Array, offset: number, end: number, out: ParsedHeaders): number {
  if (end > bytes.length) end = bytes.length;
  if (offset >= 0 && offset + 34 <= end && read16(bytes, offset + 12) === EtherType.IPV4 && parseCommonIpv4(bytes, offset + 14, end, offset, out)) {
    return ParseStatus.OK;
  }
  out.reset(end);
  if (offset < 0 || offset + 14 > end) return fail(out, ParseStatus.TRUNCATED, "eth", "header", offset);
  out.l2Offset = offset;
  let type = read16(bytes, offset + 12);
  let at = offset + 14;
  while (type === EtherType.VLAN || type === EtherType.QINQ || type === EtherType.VLAN_LEGACY_QINQ) {
    if (at + 4 > end) return fail(out, ParseStatus.TRUNCATED, "vlan", "tag", at);
    if (out.vlanCount === 0) out.vlanTci0 = read16(bytes, at);
    else if (out.vlanCount === 1) out.vlanTci1 = read16(bytes, at);
    out.vlanCount++;
    type = read16(bytes, at + 2);
    at += 4;
  }
  out.etherType = type;
  out.l3Offset = at;
  if (type === EtherType.IPV4) return parseIpv4At(bytes, at, end, out);
  if (type === EtherType.IPV6) return parseIpv6At(bytes, at, end, out);
  out.payloadOffset = at;
  return ParseStatus.OK;
}

/** Parses a packet that starts with an IP header (raw IP link, tunl0, IPIP inner), by its version nibble. */
export function parseIp(bytes: Uint8Array, offset: number, end: number, out: ParsedHeaders): number {
  if (end > bytes.length) end = bytes.length;
  if (offset >= 0 && parseCommonIpv4(bytes, offset, end, -1, out)) return ParseStatus.OK;
  out.reset(end);
  out.l3Offset = offset;
  if (offset < 0 || offset >= end) return fail(out, ParseStatus.TRUNCATED, "ip", "version", offset);
  const version = bytes[offset]! >>> 4;
  if (version === 4) {
    out.etherType = EtherType.IPV4;
    return parseIpv4At(bytes, offset, end, out);
  }
  if (version === 6) {
    out.etherType = EtherType.IPV6;
    return parseIpv6At(bytes, offset, end, out);
  }
  return fail(out, ParseStatus.BAD_VERSION, "ip", "version", offset);
}

/**
 * The common case in one pass: a well-formed, unfragmented IPv4 packet carrying TCP or UDP (at `at`,
 * behind an untagged Ethernet header at l2Offset, or none when -1). Every field gets the value the
 * general path (reset, then parse layer by layer) would give it, each written once. Returns false,
 * having maybe written some fields, for anything else: the caller then takes the general path, which
 * starts with reset.
 */
function parseCommonIpv4(bytes: Uint8Array, at: number, end: number, l2Offset: number, out: ParsedHeaders): boolean {
  if (at + 20 > end) return false;
  const first = bytes[at]!;
  const headerLen = (first & 0x0f) << 2;
  if (first >>> 4 !== 4 || headerLen < 20) return false;
  const totalLen = read16(bytes, at + 2);
  const ipEnd = at + totalLen;
  if (totalLen < headerLen || ipEnd > end) return false;
  const frag = read16(bytes, at + 6);
  if ((frag & 0x3fff) !== 0) return false;
  const proto = bytes[at + 9]!;
  const l4 = at + headerLen;
  let srcPort = 0;
  let dstPort = 0;
  let udpLen = 0;
  let payload = 0;
  let datagramEnd = ipEnd;
  if (proto === IPPROTO.TCP) {
    if (l4 + 20 > ipEnd) return false;
    const tcpLen = (bytes[l4 + 12]! >>> 4) << 2;
    if (tcpLen < 20 || l4 + tcpLen > ipEnd) return false;
    srcPort = read16(bytes, l4);
    dstPort = read16(bytes, l4 + 2);
    out.tcpSeq = read32(bytes, l4 + 4);
    out.tcpAck = read32(bytes, l4 + 8);
    out.tcpFlags = read16(bytes, l4 + 12) & 0x1ff;
    out.tcpWindow = read16(bytes, l4 + 14);
    out.tcpHeaderLen = tcpLen;
    payload = l4 + tcpLen;
  } else if (proto === IPPROTO.UDP) {
    if (l4 + 8 > ipEnd) return false;
    udpLen = read16(bytes, l4 + 4);
    if (udpLen < 8 || l4 + udpLen > ipEnd) return false;
    srcPort = read16(bytes, l4);
    dstPort = read16(bytes, l4 + 2);
    out.tcpSeq = 0;
    out.tcpAck = 0;
    out.tcpFlags = 0;
    out.tcpWindow = 0;
    out.tcpHeaderLen = 0;
    payload = l4 + 8;
    datagramEnd = l4 + udpLen;
  } else {
    return false;
  }
  if (!out.commonLayout) {
    out.status = ParseStatus.OK;
    out.errorLayer = "";
    out.errorField = "";
    out.errorOffset = -1;
    out.vlanCount = 0;
    out.vlanTci0 = 0;
    out.vlanTci1 = 0;
    out.etherType = EtherType.IPV4;
    out.ipVersion = 4;
    out.src6Offset = -1;
    out.dst6Offset = -1;
    out.moreFragments = false;
    out.isFragment = false;
    out.fragOffset = 0;
    out.icmpType = 0;
    out.icmpCode = 0;
    out.icmpId = 0;
    out.commonLayout = true;
  }
  out.end = datagramEnd;
  out.l2Offset = l2Offset;
  out.l3Offset = at;
  out.ipHeaderLen = headerLen;
  out.tos = bytes[at + 1]!;
  out.ipTotalLen = totalLen;
  const id = read16(bytes, at + 4);
  out.ipId = id;
  out.ttl = bytes[at + 8]!;
  out.ipProto = proto;
  out.src4 = read32(bytes, at + 12);
  out.dst4 = read32(bytes, at + 16);
  out.dontFragment = (frag & 0x4000) !== 0;
  out.fragId = id;
  out.l4Offset = l4;
  out.srcPort = srcPort;
  out.dstPort = dstPort;
  out.udpLen = udpLen;
  out.payloadOffset = payload;
  out.tunnel = TunnelKind.NONE;
  out.innerOffset = -1;
  out.innerEthernet = false;
  out.vni = 0;
  if (udpLen !== 0) locateUdpTunnel(bytes, out);
  return true;
}

function parseIpv4At(bytes: Uint8Array, at: number, end: number, out: ParsedHeaders): number {
  if (at + 20 > end) return fail(out, ParseStatus.TRUNCATED, "ipv4", "header", at);
  const first = bytes[at]!;
  if (first >>> 4 !== 4) return fail(out, ParseStatus.BAD_VERSION, "ipv4", "version", at);
  const headerLen = (first & 0x0f) << 2;
  if (headerLen < 20) return fail(out, ParseStatus.BAD_HEADER_LENGTH, "ipv4", "ihl", at);
  if (at + headerLen > end) return fail(out, ParseStatus.TRUNCATED, "ipv4", "options", at);
  const totalLen = read16(bytes, at + 2);
  if (totalLen < headerLen) return fail(out, ParseStatus.BAD_LENGTH, "ipv4", "totalLength", at + 2);
  if (at + totalLen > end) return fail(out, ParseStatus.TRUNCATED, "ipv4", "totalLength", at + 2);
  out.end = at + totalLen;
  out.ipVersion = 4;
  out.ipHeaderLen = headerLen;
  out.tos = bytes[at + 1]!;
  out.ipTotalLen = totalLen;
  out.ipId = read16(bytes, at + 4);
  const frag = read16(bytes, at + 6);
  out.dontFragment = (frag & 0x4000) !== 0;
  out.moreFragments = (frag & 0x2000) !== 0;
  out.fragOffset = (frag & 0x1fff) << 3;
  out.isFragment = out.moreFragments || out.fragOffset !== 0;
  out.fragId = out.ipId;
  out.ttl = bytes[at + 8]!;
  out.ipProto = bytes[at + 9]!;
  out.src4 = read32(bytes, at + 12);
  out.dst4 = read32(bytes, at + 16);
  if (out.fragOffset !== 0) {
    out.payloadOffset = at + headerLen;
    return ParseStatus.OK;
  }
  return parseL4At(bytes, at + headerLen, out);
}

function parseIpv6At(bytes: Uint8Array, l3: number, end: number, out: ParsedHeaders): number {
  if (l3 + 40 > end) return fail(out, ParseStatus.TRUNCATED, "ipv6", "header", l3);
  if (bytes[l3]! >>> 4 !== 6) return fail(out, ParseStatus.BAD_VERSION, "ipv6", "version", l3);
  const payloadLen = read16(bytes, l3 + 4);
  if (l3 + 40 + payloadLen > end) return fail(out, ParseStatus.TRUNCATED, "ipv6", "payloadLength", l3 + 4);
  end = l3 + 40 + payloadLen;
  out.end = end;
  out.ipVersion = 6;
  out.tos = (read16(bytes, l3) >>> 4) & 0xff;
  out.ipTotalLen = 40 + payloadLen;
  out.ttl = bytes[l3 + 7]!;
  out.src6Offset = l3 + 8;
  out.dst6Offset = l3 + 24;
  let next = bytes[l3 + 6]!;
  let at = l3 + 40;
  while (isIpv6Extension(next)) {
    if (next === 0 && at !== l3 + 40) return fail(out, ParseStatus.BAD_EXTENSION, "ipv6", "nextHeader", at);
    if (at + 2 > end) return fail(out, ParseStatus.BAD_EXTENSION, "ipv6", "extension", at);
    const len = ipv6ExtensionLengthAt(bytes, at, next);
    if (at + len > end) return fail(out, ParseStatus.BAD_EXTENSION, "ipv6", "extension", at);
    if (next === 44) {
      const word = read16(bytes, at + 2);
      out.fragOffset = word & 0xfff8;
      out.moreFragments = (word & 1) !== 0;
      out.isFragment = true;
      out.fragId = read32(bytes, at + 4);
    }
    next = bytes[at]!;
    at += len;
    if (out.fragOffset !== 0) break;
  }
  out.ipHeaderLen = at - l3;
  out.ipProto = next;
  if (out.fragOffset !== 0) {
    out.payloadOffset = at;
    return ParseStatus.OK;
  }
  return parseL4At(bytes, at, out);
}

function parseL4At(bytes: Uint8Array, at: number, out: ParsedHeaders): number {
  const end = out.end;
  const proto = out.ipProto;
  out.l4Offset = at;
  if (proto === IPPROTO.TCP) {
    if (at + 20 > end) return fail(out, ParseStatus.TRUNCATED, "tcp", "header", at);
    const headerLen = (bytes[at + 12]! >>> 4) << 2;
    if (headerLen < 20) return fail(out, ParseStatus.BAD_HEADER_LENGTH, "tcp", "dataOffset", at + 12);
    if (at + headerLen > end) return fail(out, ParseStatus.TRUNCATED, "tcp", "options", at);
    out.srcPort = read16(bytes, at);
    out.dstPort = read16(bytes, at + 2);
    out.tcpSeq = read32(bytes, at + 4);
    out.tcpAck = read32(bytes, at + 8);
    out.tcpFlags = read16(bytes, at + 12) & 0x1ff;
    out.tcpWindow = read16(bytes, at + 14);
    out.tcpHeaderLen = headerLen;
    out.payloadOffset = at + headerLen;
    return ParseStatus.OK;
  }
  if (proto === IPPROTO.UDP) {
    if (at + 8 > end) return fail(out, ParseStatus.TRUNCATED, "udp", "header", at);
    const len = read16(bytes, at + 4);
    if (len < 8) return fail(out, ParseStatus.BAD_LENGTH, "udp", "length", at + 4);
    if (!out.isFragment) {
      if (at + len > end) return fail(out, ParseStatus.BAD_LENGTH, "udp", "length", at + 4);
      out.end = at + len;
    }
    out.srcPort = read16(bytes, at);
    out.dstPort = read16(bytes, at + 2);
    out.udpLen = len;
    out.payloadOffset = at + 8;
    locateUdpTunnel(bytes, out);
    return ParseStatus.OK;
  }
  if (proto === IPPROTO.ICMP || proto === IPPROTO.ICMPV6) {
    if (at + 8 > end) return fail(out, ParseStatus.TRUNCATED, proto === IPPROTO.ICMP ? "icmp" : "icmpv6", "header", at);
    out.icmpType = bytes[at]!;
    out.icmpCode = bytes[at + 1]!;
    out.icmpId = read16(bytes, at + 4);
    out.payloadOffset = at + 8;
    return ParseStatus.OK;
  }
  if (proto === IPPROTO.SCTP) {
    if (at + 12 > end) return fail(out, ParseStatus.TRUNCATED, "sctp", "header", at);
    out.srcPort = read16(bytes, at);
    out.dstPort = read16(bytes, at + 2);
    out.payloadOffset = at + 12;
    return ParseStatus.OK;
  }
  out.payloadOffset = at;
  if (proto === IPPROTO.IPIP || proto === IPPROTO.IPV6) {
    out.tunnel = TunnelKind.IPIP;
    out.innerOffset = at;
  }
  return ParseStatus.OK;
}

/** Marks VXLAN (I flag set) and Geneve payloads whose header is present; malformed ones stay plain UDP. */
function locateUdpTunnel(bytes: Uint8Array, out: ParsedHeaders): void {
  const at = out.payloadOffset;
  const port = out.dstPort;
  if (port === UdpPort.VXLAN || port === UdpPort.VXLAN_LINUX) {
    if (at + VXLAN_HEADER_LENGTH > out.end || (bytes[at]! & VXLAN_FLAG_I) === 0) return;
    out.tunnel = TunnelKind.VXLAN;
    out.vni = (bytes[at + 4]! << 16) | (bytes[at + 5]! << 8) | bytes[at + 6]!;
    out.innerOffset = at + VXLAN_HEADER_LENGTH;
    out.innerEthernet = true;
  } else if (port === UdpPort.GENEVE) {
    if (at + GENEVE_BASE_LENGTH > out.end || bytes[at]! >>> 6 !== 0) return;
    const inner = at + GENEVE_BASE_LENGTH + ((bytes[at]! & 0x3f) << 2);
    const protocolType = read16(bytes, at + 2);
    if (inner > out.end) return;
    if (protocolType !== EtherType.TRANSPARENT_ETHERNET && protocolType !== EtherType.IPV4 && protocolType !== EtherType.IPV6) return;
    out.tunnel = TunnelKind.GENEVE;
    out.vni = (bytes[at + 4]! << 16) | (bytes[at + 5]! << 8) | bytes[at + 6]!;
    out.innerOffset = inner;
    out.innerEthernet = protocolType === EtherType.TRANSPARENT_ETHERNET;
  }
}

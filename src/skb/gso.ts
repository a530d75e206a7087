// GSO super-packets: where a TCP super-packet's headers end (through IPIP or VXLAN encapsulation),
// how long each of its segments is (skb_gso_validate_network_len), and software segmentation
// (skb_gso_segment) into the wire packets it stands for, with every header fixed per segment.

import { read16, read32, write16, write32 } from "../wire/bytes.js";
import { knownZeros, rememberZeroSum, setIpv4HeaderChecksum, setL4ChecksumV4 } from "../wire/checksum.js";
import { packetBuffers } from "./buffer-pool.js";
import { GsoLayoutMemo, NOT_KNOWN } from "./gso-layout-memo.js";
import { DEFAULT_HEADROOM, GsoType, SkBuff } from "./skbuff.js";

const IPPROTO_IPIP = 4;
const IPPROTO_TCP = 6;
const IPPROTO_UDP = 17;
const UDP_HLEN = 8;
const VXLAN_HLEN = 8;
const ETH_HLEN = 14;
const ETHERTYPE_IPV4 = 0x0800;
const IP_DF = 0x4000;
const TCP_FIN = 0x01;
const TCP_PSH = 0x08;
const TCP_CWR = 0x80;
/** Nesting a super-packet may have: outer IPv4 (+UDP/VXLAN/Ethernet) around the TCP's IPv4. */
const MAX_IP_LEVELS = 3;

/** Header layout of the super-packet last parsed (absolute offsets into skb.data); reused, no allocation. */
const layout = {
  ipCount: 0,
  ip: new Int32Array(MAX_IP_LEVELS),
  /** Outer UDP header (VXLAN), -1 when none. */
  udp: -1,
  /** The IPv4 header in front of that UDP header. */
  udpIp: -1,
  tcp: 0,
  payload: 0,
};

/**
 * Parses the headers of the super-packet whose IPv4 header starts at l3 (absolute offset): through
 * IPIP and VXLAN (when gsoType says so) down to the TCP header. Returns false when they are not there.
 * With knownInnermost >= 0 (an earlier parse of the same bytes found the TCP header behind the IPv4
 * header there, its payload at knownPayload), a walk that reaches that header stops with that payload:
 * parsing on would read the same bytes to the same end. Such a walk fills layout.ip and payload only.
 */
function parseLayout(skb: SkBuff, l3: number, knownInnermost = -1, knownPayload = -1): boolean {
  const b = skb.data;
  const end = skb.tail;
  let ip = l3;
  layout.ipCount = 0;
  layout.udp = -1;
  for (;;) {
    if (layout.ipCount === MAX_IP_LEVELS) return false;
    if (ip === knownInnermost) {
      layout.ip[layout.ipCount++] = ip;
      layout.payload = knownPayload;
      return true;
    }
    if (ip + 20 > end || b[ip]! >>> 4 !== 4) return false;
    const hlen = (b[ip]! & 0x0f) * 4;
    if (hlen < 20 || ip + hlen > end) return false;
    layout.ip[layout.ipCount++] = ip;
    const proto = b[ip + 9]!;
    const l4 = ip + hlen;
    if (proto === IPPROTO_TCP) {
      if (l4 + 20 > end) return false;
      const doff = (b[l4 + 12]! >>> 4) * 4;
      if (doff < 20 || l4 + doff > end) return false;
      layout.tcp = l4;
      layout.payload = l4 + doff;
      return true;
    }
    if (proto === IPPROTO_IPIP && (skb.gsoType & GsoType.IPXIP4) !== 0) {
      ip = l4;
      continue;
    }
    if (proto === IPPROTO_UDP && (skb.gsoType & (GsoType.UDP_TUNNEL | GsoType.UDP_TUNNEL_CSUM)) !== 0 && layout.udp < 0) {
      const eth = l4 + UDP_HLEN + VXLAN_HLEN;
      if (eth + ETH_HLEN > end || read16(b, eth + 12) !== ETHERTYPE_IPV4) return false;
      layout.udp = l4;
      layout.udpIp = ip;
      ip = eth + ETH_HLEN;
      continue;
    }
    return false;
  }
}

/** payloadOffset's recent answers (see gso-layout-memo.ts). */
const recent = new GsoLayoutMemo();

/** Absolute offset of the TCP payload behind the headers at l3, or -1 when they do not parse. */
function payloadOffset(skb: SkBuff, l3: number): number {
  const known = recent.exact(skb, l3);
  if (known !== NOT_KNOWN) return known;
  const parsed = parseLayout(skb, l3, recent.relatedInnermost, recent.relatedPayload);
  const payload = parsed ? layout.payload : -1;
  recent.remember(skb, l3, parsed ? layout.ip[layout.ipCount - 1]! : -1, payload);
  return payload;
}

/** The TCP payload offset behind the headers at l3 parsed afresh, without any remembered answer (for tests). */
export function parsedPayloadOffset(skb: SkBuff, l3: number): number {
  return parseLayout(skb, l3) ? layout.payload : -1;
}

/** Bytes in front of the TCP payload (from skb.head, all encapsulation included), or -1 when unparsable. */
export function gsoHeaderLength(skb: SkBuff, l3: number): number {
  const payload = payloadOffset(skb, l3);
  return payload >= 0 ? payload - skb.head : -1;
}

/**
 * skb_gso_validate_network_len: the L3 length of the super-packet's largest segment (headers from l3
 * on plus gsoSize), or -1 when its headers cannot be parsed.
 */
export function gsoNetworkLength(skb: SkBuff, l3: number): number {
  const payload = payloadOffset(skb, l3);
  return payload >= 0 ? payload - l3 + skb.gsoSize : -1;
}

/**
 * Packet length to check against an MTU at l3: the largest segment's L3 length for a super-packet,
 * the packet's own L3 length otherwise.
 */
export function mtuCheckLength(skb: SkBuff, l3: number): number {
  if (skb.gsoSize === 0) return skb.tail - l3;
  const n = gsoNetworkLength(skb, l3);
  return n < 0 ? skb.tail - l3 : n;
}

/**
 * skb_gso_segment: the wire packets of the super-packet whose IPv4 header is at l3. Every segment
 * repeats all headers; per segment, each IPv4 header gets its total length, an ID counting up from
 * the super-packet's (unless the ID is 0 with DF, a fixed ID) and a fresh header checksum; an outer
 * UDP header its length and (UDP_TUNNEL_CSUM) checksum; TCP its sequence number, FIN/PSH on the last
 * segment only, CWR on the first only, and a full checksum. `nextId` gives each new packet its ledger
 * id. Returns null when the headers cannot be parsed.
 */
export function gsoSegment(skb: SkBuff, l3: number, nextId: () => number): SkBuff[] | null {
  if (skb.gsoSize === 0 || !parseLayout(skb, l3)) return null;
  const src = skb.data;
  const hdr = layout.payload - skb.head;
  const payloadLen = skb.tail - layout.payload;
  const segs = Math.max(1, Math.ceil(payloadLen / skb.gsoSize));
  const seq0 = read32(src, layout.tcp + 4);
  const flags0 = src[layout.tcp + 13]!;
  // A payload the sender left known as zeros (iperf's block) is not copied, nor summed again.
  const zeros = payloadLen > 0 && knownZeros(src, layout.payload, skb.tail);
  const out: SkBuff[] = [];
  const headers = src.subarray(skb.head, layout.payload); // every segment starts with the same header bytes
  for (let i = 0; i < segs; i++) {
    const from = i * skb.gsoSize;
    const chunk = Math.min(skb.gsoSize, payloadLen - from);
    const len = hdr + Math.max(chunk, 0);
    const data = packetBuffers.acquireWithZeros(DEFAULT_HEADROOM + len); // every byte after the headroom is written
    data.set(headers, DEFAULT_HEADROOM);
    if (chunk > 0 && zeros) {
      const at = DEFAULT_HEADROOM + hdr;
      packetBuffers.writeZeros(data, at, at + chunk, packetBuffers.zeroStart, packetBuffers.zeroEnd);
      rememberZeroSum(data, at, at + chunk);
    } else if (chunk > 0) {
      data.set(src.subarray(layout.payload + from, layout.payload + from + chunk), DEFAULT_HEADROOM + hdr);
    }
    const seg = new SkBuff(nextId(), data, DEFAULT_HEADROOM, DEFAULT_HEADROOM + len);
    seg.copyPacketMeta(skb);
    fixHeaders(data, DEFAULT_HEADROOM - skb.head, DEFAULT_HEADROOM + len, i, i === segs - 1, seq0 + from, flags0, skb.gsoType);
    out.push(seg);
  }
  return out;
}

/** Rewrites the copied headers of segment i (shift maps the super-packet's offsets into the segment). */
function fixHeaders(b: Uint8Array, shift: number, end: number, i: number, last: boolean, seq: number, flags: number, gsoType: number): void {
  for (let k = 0; k < layout.ipCount; k++) {
    const ip = layout.ip[k]! + shift;
    write16(b, ip + 2, end - ip);
    const id = read16(b, ip + 4);
    const fixedId = id === 0 && (read16(b, ip + 6) & IP_DF) !== 0;
    if (!fixedId) write16(b, ip + 4, (id + i) & 0xffff);
    setIpv4HeaderChecksum(b, ip, (b[ip]! & 0x0f) * 4);
  }
  const tcp = layout.tcp + shift;
  const inner = layout.ip[layout.ipCount - 1]! + shift;
  write32(b, tcp + 4, seq >>> 0);
  let f = flags;
  if (!last) f &= ~(TCP_FIN | TCP_PSH);
  if (i > 0) f &= ~TCP_CWR;
  b[tcp + 13] = f;
  setL4ChecksumV4(b, tcp, end - tcp, IPPROTO_TCP, read32(b, inner + 12), read32(b, inner + 16));
  if (layout.udp >= 0) {
    const udp = layout.udp + shift;
    write16(b, udp + 4, end - udp);
    write16(b, udp + 6, 0);
    if ((gsoType & GsoType.UDP_TUNNEL_CSUM) !== 0) {
      const outer = layout.udpIp + shift;
      setL4ChecksumV4(b, udp, end - udp, IPPROTO_UDP, read32(b, outer + 12), read32(b, outer + 16));
    }
  }
}


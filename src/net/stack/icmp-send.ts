// icmp_send as Linux builds ICMP errors: never about ICMP errors, non-first fragments, or packets that
// arrived as link-layer or IP broadcast/multicast; source = the original destination when it was ours,
// else the route's choice toward the original sender; TOS = precedence 0xc0 | original TOS bits; quote
// as much of the original datagram as fits in 576 bytes; global and per-destination rate limits.

import type { SkBuff } from "../../skb/skbuff.js";
import { read32 } from "../../wire/bytes.js";
import { setL4ChecksumV4 } from "../../wire/checksum.js";
import { DeviceKind, type NetDevice } from "../device.js";
import { AddrScope } from "./addresses.js";
import { NR_ICMP_TYPES } from "./icmp-ratelimit.js";
import { IPPROTO_ICMP, IPV4_HEADER, IP_OFFSET_MASK, newPacket, writeIpv4Header } from "./ip-packet.js";
import type { NetNamespace } from "./namespace.js";
import { PacketType, RouteFlag } from "./packet-context.js";
import { RouteType } from "./route-table.js";
import { jiffiesAt } from "./time.js";

export const IcmpType = {
  ECHO_REPLY: 0,
  DEST_UNREACH: 3,
  SOURCE_QUENCH: 4,
  REDIRECT: 5,
  ECHO: 8,
  TIME_EXCEEDED: 11,
  PARAMETER_PROBLEM: 12,
  TIMESTAMP: 13,
  TIMESTAMP_REPLY: 14,
} as const;

export const UnreachCode = { NET: 0, HOST: 1, PROTOCOL: 2, PORT: 3, FRAG_NEEDED: 4, PKT_FILTERED: 13 } as const;
export const TimeExceededCode = { TTL: 0, FRAGMENT_REASSEMBLY: 1 } as const;
export const RedirectCode = { HOST: 1 } as const;

/** Types icmp_pointers[] marks as errors (1, 2, 3, 4, 5, 6, 7, 9, 10, 11, 12). */
const ERROR_TYPE_MASK = 0b1_1110_1111_1110;
/** RFC 1812: ICMP errors stay within 576 bytes. */
const ICMP_ERROR_MAX = 576;
const ICMP_HEADER = 8;
/** Source used when no address can be chosen (INADDR_DUMMY, 192.0.0.8). */
const INADDR_DUMMY = 0xc0000008;
/** IPTOS_TOS_MASK and IPTOS_PREC_INTERNETCONTROL. */
const TOS_MASK = 0x1e;
const PREC_INTERNETCONTROL = 0xc0;

export function isIcmpErrorType(type: number): boolean {
  return type <= NR_ICMP_TYPES && ((ERROR_TYPE_MASK >>> type) & 1) === 1;
}

/**
 * Sends an ICMP error (or redirect) about the IPv4 packet at skbIn.head. pktType and routeFlags describe
 * how the packet arrived (PacketType, RouteFlag); inDev is its input device (null for local output).
 * Returns true when a message was sent.
 */
export function icmpSend(
  ns: NetNamespace,
  skbIn: SkBuff,
  type: number,
  code: number,
  info: number,
  pktType: number,
  routeFlags: number,
  inDev: NetDevice | null,
): boolean {
  const bytes = skbIn.data;
  const ip = skbIn.head;
  if (skbIn.length < IPV4_HEADER) return false;
  if (pktType !== PacketType.HOST) return false;
  if ((routeFlags & (RouteFlag.BROADCAST | RouteFlag.MULTICAST)) !== 0) return false;
  if ((((bytes[ip + 6]! << 8) | bytes[ip + 7]!) & IP_OFFSET_MASK) !== 0) return false;
  const ihl = (bytes[ip]! & 0x0f) * 4;
  if (isIcmpErrorType(type) && bytes[ip + 9] === IPPROTO_ICMP) {
    if (ip + ihl >= skbIn.tail) return false;
    const inner = bytes[ip + ihl]!;
    if (inner > NR_ICMP_TYPES || isIcmpErrorType(inner)) return false;
  }
  const counters = ns.counters.icmp;
  const limiter = ns.icmpLimiter;
  const now = jiffiesAt(ns.world.sim.now);
  let limited = false;
  if (inDev?.kind !== DeviceKind.LOOPBACK && !limiter.exempt(type, code)) {
    if (!limiter.globalAllow(now)) {
      counters.OutRateLimitGlobal++;
      return false;
    }
    limited = true;
  }
  const origSrc = read32(bytes, ip + 12);
  const origDst = read32(bytes, ip + 16);
  let src = origDst;
  if ((routeFlags & RouteFlag.LOCAL) === 0) {
    src = 0;
    if ((routeFlags & RouteFlag.INPUT) !== 0 && ns.sysctl.icmpErrorsUseInboundIfaddr && inDev !== null) {
      src = ns.addresses.select(inDev, origSrc, AddrScope.LINK, ns.listDevices);
    }
  } else if (!ns.routes.isLocal(src)) {
    return false;
  }
  const route = ns.routes.lookup(origSrc);
  if (route === null || (route.type !== RouteType.UNICAST && route.type !== RouteType.LOCAL)) return false;
  if (src === 0) src = ns.routeSource(route, origSrc);
  if (limited) {
    const toLoopback = route.type === RouteType.LOCAL;
    if (!toLoopback && !limiter.hostAllow(limiter.peer(origSrc, now), now)) {
      counters.OutRateLimitHost++;
      return false;
    }
    limiter.globalConsume();
  }
  const room = Math.min(ns.routeMtu(route), ICMP_ERROR_MAX) - IPV4_HEADER - ICMP_HEADER;
  if (room <= IPV4_HEADER) return false;
  const quoteLen = Math.min(skbIn.length, room);
  if (src === 0) src = INADDR_DUMMY;
  const tos = isIcmpErrorType(type) ? (bytes[ip + 1]! & TOS_MASK) | PREC_INTERNETCONTROL : bytes[ip + 1]!;
  const out = buildIcmp(ns, src, origSrc, tos, type, code, info, bytes, ip, quoteLen);
  ns.netfilter.attachRelated(out, skbIn);
  ns.outputIp(out);
  return true;
}

/**
 * An ICMP message from src to dst: IPv4 header (DF clear, TTL ip_default_ttl, hashed ID), the 8-byte
 * ICMP header with `rest` in bytes 4-7, then `len` bytes copied from body[start...]. Counts it as sent.
 */
export function buildIcmp(
  ns: NetNamespace,
  src: number,
  dst: number,
  tos: number,
  type: number,
  code: number,
  rest: number,
  body: Uint8Array,
  start: number,
  len: number,
): SkBuff {
  const total = IPV4_HEADER + ICMP_HEADER + len;
  const skb = newPacket(ns.world, total);
  const b = skb.data;
  const at = skb.head;
  const id = ns.ipIdent.next(dst, src, IPPROTO_ICMP, jiffiesAt(ns.world.sim.now));
  writeIpv4Header(b, at, tos, total, id, 0, ns.sysctl.ipDefaultTtl, IPPROTO_ICMP, src, dst);
  const icmp = at + IPV4_HEADER;
  b[icmp] = type;
  b[icmp + 1] = code;
  b[icmp + 4] = (rest >>> 24) & 0xff;
  b[icmp + 5] = (rest >>> 16) & 0xff;
  b[icmp + 6] = (rest >>> 8) & 0xff;
  b[icmp + 7] = rest & 0xff;
  b.set(body.subarray(start, start + len), icmp + ICMP_HEADER);
  setL4ChecksumV4(b, icmp, ICMP_HEADER + len, IPPROTO_ICMP, src, dst);
  ns.counters.icmp.OutMsgs++;
  ns.counters.icmpOutType[type]!++;
  return skb;
}

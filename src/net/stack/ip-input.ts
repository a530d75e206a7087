// The receive path of a namespace: classify the frame by destination MAC (host, broadcast, multicast,
// other host) and EtherType, validate the IPv4 header as ip_rcv_core does (dropping with the field that
// failed), run PREROUTING, route, then deliver locally, forward, or answer with ip_error's ICMP.

import type { SkBuff } from "../../skb/skbuff.js";
import { DropReason } from "../../../datapath/reasons.js";
import { BROADCAST_MAC, isGroupMac, readMac } from "../../util/mac.js";
import { read16, read32 } from "../../wire/bytes.js";
import { verifyIpv4HeaderChecksum } from "../../wire/checksum.js";
import { ipHeaderChecksumGood } from "../../skb/ip-header-checksum.js";
import { checkIpv4Options } from "../../wire/ipv4.js";
import { formatWireError } from "../../wire/errors.js";
import { NfHook, NfVerdict } from "../netfilter/hooks.js";
import type { NetDevice } from "../device.js";
import { arpReceive } from "./arp.js";
import { forward } from "./ip-forward.js";
import { localDeliver } from "./ip-local.js";
import { icmpSend, IcmpType, UnreachCode } from "./icmp-send.js";
import { ETH_HEADER, ETHERTYPE_ARP, ETHERTYPE_IPV4, ETHERTYPE_IPV6, IPV4_HEADER } from "./ip-packet.js";
import type { NetNamespace } from "./namespace.js";
import { PacketType, RouteFlag } from "./packet-context.js";
import { InputDecision, routeInput } from "./route-input.js";
import { jiffiesAt } from "./time.js";

const ETHERTYPE_VLAN = 0x8100;
const ETHERTYPE_QINQ = 0x88a8;

/**
 * StackPort.input: a frame (or, on L3 devices, an IPv4 packet) received on dev. The common case (an
 * IPv4 frame this host should take) is kept short so the JIT can inline it; the rest is otherFrame's.
 */
export function stackInput(ns: NetNamespace, dev: NetDevice, skb: SkBuff): void {
  if (!dev.l2) {
    ipReceive(ns, dev, skb, PacketType.HOST);
    return;
  }
  const b = skb.data;
  const at = skb.head;
  if (skb.tail - at >= ETH_HEADER && read16(b, at + 12) === ETHERTYPE_IPV4) {
    const pktType = packetType(readMac(b, at), dev.mac);
    if (pktType !== PacketType.OTHERHOST) {
      skb.pull(ETH_HEADER);
      ipReceive(ns, dev, skb, pktType);
      return;
    }
  }
  otherFrame(ns, dev, skb);
}

/** The link-layer class of a frame by its destination MAC (eth_type_trans). */
function packetType(dstMac: number, ownMac: number): number {
  if (dstMac === ownMac) return PacketType.HOST;
  if (dstMac === BROADCAST_MAC) return PacketType.BROADCAST;
  return isGroupMac(dstMac) ? PacketType.MULTICAST : PacketType.OTHERHOST;
}

/** Every frame but an IPv4 one for this host: short frames, other hosts' frames, ARP, VLAN, IPv6, the rest. */
function otherFrame(ns: NetNamespace, dev: NetDevice, skb: SkBuff): void {
  if (skb.length < ETH_HEADER) {
    ns.dropFrame(skb, dev, DropReason.INVALID_PACKET, "net/stack/input:eth-short", `eth.header at byte 0: truncated, ${skb.length} bytes`);
    return;
  }
  const b = skb.data;
  const pktType = packetType(readMac(b, skb.head), dev.mac);
  const etherType = read16(b, skb.head + 12);
  if (etherType === ETHERTYPE_IPV4 || etherType === ETHERTYPE_ARP) {
    if (pktType === PacketType.OTHERHOST) {
      ns.dropFrame(skb, dev, DropReason.NOT_FOR_HOST, "net/stack/input:otherhost", "destination MAC belongs to another host");
      return;
    }
    skb.pull(ETH_HEADER);
    if (etherType === ETHERTYPE_IPV4) ipReceive(ns, dev, skb, pktType);
    else arpReceive(ns, dev, skb, pktType);
    return;
  }
  if (etherType === ETHERTYPE_VLAN || etherType === ETHERTYPE_QINQ) {
    ns.dropFrame(skb, dev, DropReason.UNSUPPORTED_L2, "net/stack/input:vlan", "802.1Q-tagged frame and no VLAN device");
  } else if (etherType === ETHERTYPE_IPV6) {
    ns.dropFrame(skb, dev, DropReason.UNKNOWN_L3, "net/stack/input:ipv6", "IPv6 is not modelled by the host stack in this phase");
  } else {
    ns.dropFrame(skb, dev, DropReason.UNKNOWN_L3, "net/stack/input:ethertype", `no handler for EtherType 0x${etherType.toString(16).padStart(4, "0")}`);
  }
}

/**
 * ip_rcv_core + PREROUTING + ip_rcv_finish. skb.head at the IPv4 header. A header that fails any
 * check goes to rejectHeader, which repeats the checks in ip_rcv_core's order to report the first.
 */
function ipReceive(ns: NetNamespace, dev: NetDevice, skb: SkBuff, pktType: number): void {
  const counters = ns.counters;
  const b = skb.data;
  const ip = skb.head;
  const len = skb.tail - ip;
  counters.ip.InReceives++;
  counters.ipExt.InOctets += len;
  const first = len >= IPV4_HEADER ? b[ip]! : 0;
  const hlen = (first & 0x0f) * 4;
  const total = len >= IPV4_HEADER ? read16(b, ip + 2) : 0;
  if (first >>> 4 !== 4 || hlen < IPV4_HEADER || hlen > len || total > len || total < hlen || !ipHeaderChecksumGood(skb, ip, hlen)) {
    rejectHeader(ns, dev, skb);
    return;
  }
  skb.trim(total);
  if (hlen > IPV4_HEADER && !optionsValid(ns, dev, skb, hlen)) return;
  if (skb.brNfPrerouted) skb.brNfPrerouted = false; // the bridge already ran PREROUTING (ip_sabotage_in)
  else if (ns.netfilter.run(NfHook.PREROUTING, skb, dev, null) !== NfVerdict.ACCEPT) return;
  receiveFinish(ns, dev, skb, pktType);
}

/** ip_rcv_core's header checks in order: the first that fails is counted and the packet dropped. */
function rejectHeader(ns: NetNamespace, dev: NetDevice, skb: SkBuff): void {
  const counters = ns.counters.ip;
  const b = skb.data;
  const ip = skb.head;
  const len = skb.length;
  if (len < IPV4_HEADER) return headerError(ns, dev, skb, "header", `truncated, ${len} bytes`, 0);
  const hlen = (b[ip]! & 0x0f) * 4;
  if (b[ip]! >>> 4 !== 4) return headerError(ns, dev, skb, "version", `version ${b[ip]! >>> 4}, expected 4`, 0);
  if (hlen < IPV4_HEADER) return headerError(ns, dev, skb, "ihl", `header length ${hlen} below 20`, 0);
  if (hlen > len) return headerError(ns, dev, skb, "options", `header length ${hlen} beyond the ${len} bytes present`, 0);
  if (!verifyIpv4HeaderChecksum(b, ip, hlen)) {
    ns.counters.ipExt.InCsumErrors++;
    counters.InHdrErrors++;
    ns.dropPacket(skb, dev, "ip-rcv", DropReason.BAD_CHECKSUM, "net/stack/input:checksum", "ipv4.checksum at byte 10: wrong");
    return;
  }
  const total = read16(b, ip + 2);
  if (total > len) {
    ns.counters.ipExt.InTruncatedPkts++;
    ns.dropPacket(skb, dev, "ip-rcv", DropReason.INVALID_PACKET, "net/stack/input:truncated", `ipv4.totalLength at byte 2: ${total}, only ${len} bytes present`);
    return;
  }
  if (total < hlen) return headerError(ns, dev, skb, "totalLength", `${total} below header length ${hlen}`, 2);
  throw new Error("rejectHeader: the IPv4 header passed every check");
}

/** ip_options_compile for a header with options: false (counted, dropped) when they are malformed. */
function optionsValid(ns: NetNamespace, dev: NetDevice, skb: SkBuff, hlen: number): boolean {
  const ip = skb.head;
  const optionError = checkIpv4Options(skb.data, ip + IPV4_HEADER, ip + hlen);
  if (optionError === null) return true;
  ns.counters.ip.InHdrErrors++;
  const where = { ...optionError, offset: optionError.offset - ip };
  ns.dropPacket(skb, dev, "ip-rcv", DropReason.INVALID_PACKET, "net/stack/input:options", formatWireError(where));
  return false;
}

/** An IPv4 header field failed validation: InHdrErrors and an INVALID_PACKET drop naming the field. */
function headerError(ns: NetNamespace, dev: NetDevice, skb: SkBuff, field: string, why: string, offset: number): void {
  ns.counters.ip.InHdrErrors++;
  ns.dropPacket(skb, dev, "ip-rcv", DropReason.INVALID_PACKET, `net/stack/input:${field}`, `ipv4.${field} at byte ${offset}: ${why}`);
}

/** ip_rcv_finish: the input route, then local delivery or forwarding (the rest in routedElsewhere). */
function receiveFinish(ns: NetNamespace, dev: NetDevice, skb: SkBuff, pktType: number): void {
  const b = skb.data;
  const ip = skb.head;
  const result = ns.inputRoute;
  const decision = routeInput(ns, read32(b, ip + 16), read32(b, ip + 12), dev, result);
  if (decision === InputDecision.LOCAL) localDeliver(ns, skb, dev, pktType, RouteFlag.LOCAL | RouteFlag.INPUT);
  else if (decision === InputDecision.FORWARD) forward(ns, skb, dev, result.route!, pktType);
  else routedElsewhere(ns, dev, skb, pktType, decision);
}

/** Every input route decision but LOCAL and FORWARD. */
function routedElsewhere(ns: NetNamespace, dev: NetDevice, skb: SkBuff, pktType: number, decision: InputDecision): void {
  switch (decision) {
    case InputDecision.BROADCAST:
      ns.counters.ipExt.InBcastPkts++;
      localDeliver(ns, skb, dev, pktType, RouteFlag.BROADCAST | RouteFlag.LOCAL | RouteFlag.INPUT);
      return;
    case InputDecision.MARTIAN_SOURCE:
      ns.dropPacket(skb, dev, "route-in", DropReason.INVALID_SOURCE_IP, "net/stack/route:martian-source", "martian source address");
      return;
    case InputDecision.MARTIAN_DESTINATION:
      ns.dropPacket(skb, dev, "route-in", DropReason.MARTIAN_DESTINATION, "net/stack/route:martian-destination", "martian destination address");
      return;
    case InputDecision.REVERSE_PATH:
      ns.dropPacket(skb, dev, "route-in", DropReason.REVERSE_PATH, "net/stack/route:rp-filter", `rp_filter: no route back to the source through ${dev.name}`);
      return;
    case InputDecision.MULTICAST:
      ns.counters.ipExt.InMcastPkts++;
      ns.dropPacket(skb, dev, "route-in", DropReason.UNKNOWN_TARGET, "net/stack/route:multicast", "multicast group not joined in this namespace");
      return;
    default:
      routeError(ns, skb, dev, pktType, decision);
  }
}

/** ip_error: the dst of an unroutable packet; ICMP unreachable (own 1/s, burst 5 limit) when forwarding. */
function routeError(ns: NetNamespace, skb: SkBuff, dev: NetDevice, pktType: number, decision: InputDecision): void {
  const counters = ns.counters;
  if (!ns.sysctl.ipForward) {
    if (decision === InputDecision.HOST_UNREACH) counters.ip.InAddrErrors++;
    ns.dropPacket(skb, dev, "route-in", DropReason.UNKNOWN_TARGET, "net/stack/route:not-forwarding", "not a local address and ip_forward is 0");
    return;
  }
  if (decision === InputDecision.BLACKHOLE) {
    ns.dropPacket(skb, dev, "route-in", DropReason.BLACKHOLE_ROUTE, "net/stack/route:blackhole", "blackhole route");
    return;
  }
  let code: number = UnreachCode.HOST;
  if (decision === InputDecision.NET_UNREACH) {
    code = UnreachCode.NET;
    counters.ipExt.InNoRoutes++;
  } else if (decision === InputDecision.PROHIBITED) {
    code = UnreachCode.PKT_FILTERED;
  }
  const now = jiffiesAt(ns.world.sim.now);
  const limiter = ns.icmpLimiter;
  if (limiter.routeErrorAllow(limiter.peer(read32(skb.data, skb.head + 12), now), now)) {
    icmpSend(ns, skb, IcmpType.DEST_UNREACH, code, 0, pktType, RouteFlag.INPUT, dev);
  }
  if (decision === InputDecision.NET_UNREACH) {
    ns.dropPacket(skb, dev, "route-in", DropReason.NO_ROUTE, "net/stack/route:no-route", "no route to the destination");
  } else {
    const kind = decision === InputDecision.PROHIBITED ? "prohibit" : "unreachable";
    ns.dropPacket(skb, dev, "route-in", DropReason.BLACKHOLE_ROUTE, `net/stack/route:${kind}`, `${kind} route`);
  }
}

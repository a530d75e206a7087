// The receive path of a namespace: classify the frame by destination MAC (host, broadcast, multicast,
// other host) and EtherType, validate the IPv4 header as ip_rcv_core does (dropping with the field that
// failed), run PREROUTING, route, then deliver locally, forward, or answer with ip_error's ICMP.

import type { SkBuff } from "../../skb/skbuff.js";
import { DropReason } from "../../../datapath/reasons.js";
import { BROADCAST_MAC, isGroupMac, readMac } from "../../util/mac.js";
import { read16, read32 } from "../../wire/bytes.js";
import { verifyIpv4HeaderChecksum } from "../../wire/checksum.js";
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

/** StackPort.input: a frame (or, on L3 devices, an IPv4 packet) received on dev. */
export function stackInput(ns: NetNamespace, dev: NetDevice, skb: SkBuff): void {
  if (!dev.l2) {
    ipReceive(ns, dev, skb, PacketType.HOST);
    return;
  }
  if (skb.length < ETH_HEADER) {
    ns.dropFrame(skb, dev, DropReason.INVALID_PACKET, "net/stack/input:eth-short", `eth.header at byte 0: truncated, ${skb.length} bytes`);
    return;
  }
  const b = skb.data;
  const dstMac = readMac(b, skb.head);
  const pktType =
    dstMac === dev.mac ? PacketType.HOST : dstMac === BROADCAST_MAC ? PacketType.BROADCAST : isGroupMac(dstMac) ? PacketType.MULTICAST : PacketType.OTHERHOST;
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

/** ip_rcv_core + PREROUTING + ip_rcv_finish. skb.head at the IPv4 header. */
function ipReceive(ns: NetNamespace, dev: NetDevice, skb: SkBuff, pktType: number): void {
  const counters = ns.counters.ip;
  const b = skb.data;
  const ip = skb.head;
  const len = skb.length;
  counters.InReceives++;
  ns.counters.ipExt.InOctets += len;
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
  skb.trim(total);
  if (hlen > IPV4_HEADER) {
    const optionError = checkIpv4Options(b, ip + IPV4_HEADER, ip + hlen);
    if (optionError !== null) {
      counters.InHdrErrors++;
      const where = { ...optionError, offset: optionError.offset - ip };
      ns.dropPacket(skb, dev, "ip-rcv", DropReason.INVALID_PACKET, "net/stack/input:options", formatWireError(where));
      return;
    }
  }
  if (skb.brNfPrerouted) skb.brNfPrerouted = false; // the bridge already ran PREROUTING (ip_sabotage_in)
  else if (ns.netfilter.run(NfHook.PREROUTING, skb, dev, null) !== NfVerdict.ACCEPT) return;
  receiveFinish(ns, dev, skb, pktType);
}

/** An IPv4 header field failed validation: InHdrErrors and an INVALID_PACKET drop naming the field. */
function headerError(ns: NetNamespace, dev: NetDevice, skb: SkBuff, field: string, why: string, offset: number): void {
  ns.counters.ip.InHdrErrors++;
  ns.dropPacket(skb, dev, "ip-rcv", DropReason.INVALID_PACKET, `net/stack/input:${field}`, `ipv4.${field} at byte ${offset}: ${why}`);
}

function receiveFinish(ns: NetNamespace, dev: NetDevice, skb: SkBuff, pktType: number): void {
  const b = skb.data;
  const ip = skb.head;
  const decision = routeInput(ns, read32(b, ip + 16), read32(b, ip + 12), dev, ns.inputRoute);
  const route = ns.inputRoute.route;
  switch (decision) {
    case InputDecision.LOCAL:
      localDeliver(ns, skb, dev, pktType, RouteFlag.LOCAL | RouteFlag.INPUT);
      return;
    case InputDecision.BROADCAST:
      ns.counters.ipExt.InBcastPkts++;
      localDeliver(ns, skb, dev, pktType, RouteFlag.BROADCAST | RouteFlag.LOCAL | RouteFlag.INPUT);
      return;
    case InputDecision.FORWARD:
      forward(ns, skb, dev, route!, pktType);
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

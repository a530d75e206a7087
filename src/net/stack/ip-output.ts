// The IPv4 output path: ip_local_out for packets the namespace originates (route, source selection,
// total length and header checksum, OUTPUT hook, re-route after DNAT), ip_output (POSTROUTING), and
// ip_finish_output (fragment or ICMP frag-needed when over the MTU, then neighbour resolution or the
// device directly for loopback and L3 devices). A GSO super-packet is checked by its segment size
// (ip_finish_output_gso): when a segment does not fit it is segmented and each segment takes the slow path.

import { consumeSkb } from "../../skb/buffer-pool.js";
import { sumIpHeader } from "../../skb/ip-header-checksum.js";
import { gsoNetworkLength, gsoSegment } from "../../skb/gso.js";
import type { SkBuff } from "../../skb/skbuff.js";
import { DropReason } from "../../../datapath/reasons.js";
import { read16, read32, write16 } from "../../wire/bytes.js";
import { IPV4_DST_FIELD, IPV4_SRC_FIELD, rewriteIpv4Address } from "../../wire/nat-rewrite.js";
import { DeliveryKind } from "../../trace/ledger.js";
import { NfHook, NfVerdict } from "../netfilter/hooks.js";
import type { NetDevice } from "../device.js";
import { fragmentIpv4 } from "./fragment.js";
import { icmpSend, IcmpType, UnreachCode } from "./icmp-send.js";
import { IP_DF, IP_OFFSET_MASK, IPV4_HEADER } from "./ip-packet.js";
import type { NetNamespace } from "./namespace.js";
import { PacketType } from "./packet-context.js";
import { RouteType, type Route } from "./route-table.js";

/** Largest IPv4 packet: the total length field is 16 bits. */
const IPV4_MAX_TOTAL_LENGTH = 0xffff;

/** ip_local_out for a locally generated IPv4 packet at skb.head. */
export function outputIp(ns: NetNamespace, skb: SkBuff): void {
  const b = skb.data;
  const ip = skb.head;
  const len = skb.tail - ip;
  const hlen = len >= IPV4_HEADER ? (b[ip]! & 0x0f) * 4 : 0;
  if (hlen < IPV4_HEADER || b[ip]! >>> 4 !== 4 || hlen > len) {
    ns.counters.ip.OutDiscards++;
    malformedLocal(ns, skb);
    return;
  }
  const dst = read32(b, ip + 16);
  const route = ns.routes.lookup(dst);
  if (route === null || !deliverable(route)) {
    unroutableLocal(ns, skb, route);
    return;
  }
  if (len > IPV4_MAX_TOTAL_LENGTH) {
    // Nothing may be cut to fit the 16-bit total length: a longer packet is refused, never truncated.
    ns.counters.ip.OutDiscards++;
    ns.dropPacket(skb, null, "output", DropReason.INVALID_PACKET, "net/stack/output:length", `${len}-byte local packet is longer than an IPv4 total length can say (65535)`);
    return;
  }
  if (read32(b, ip + 12) === 0) chooseSource(ns, skb, hlen, route, dst);
  write16(b, ip + 2, len);
  sumIpHeader(skb, ip, hlen);
  ns.counters.ip.OutRequests++;
  const outDev = outputDevice(ns, route);
  if (ns.netfilter.run(NfHook.OUTPUT, skb, null, outDev) !== NfVerdict.ACCEPT) return;
  const newDst = read32(skb.data, skb.head + IPV4_DST_FIELD);
  if (newDst !== dst) rerouteAfterOutput(ns, skb, newDst);
  else ipOutput(ns, skb, route, null);
}

function malformedLocal(ns: NetNamespace, skb: SkBuff): void {
  ns.dropPacket(skb, null, "output", DropReason.INVALID_PACKET, "net/stack/output:header", `ipv4 header of a ${skb.length}-byte local packet is malformed`);
}

/** No route to a local packet's destination (ENETUNREACH), or one of a type that delivers nothing. */
function unroutableLocal(ns: NetNamespace, skb: SkBuff, route: Route | null): void {
  if (route === null) {
    ns.counters.ip.OutNoRoutes++;
    ns.dropPacket(skb, null, "output", DropReason.NO_ROUTE, "net/stack/output:no-route", "no route to the destination (ENETUNREACH)");
    return;
  }
  ns.dropPacket(skb, null, "output", DropReason.BLACKHOLE_ROUTE, "net/stack/output:route-type", `${route.type} route`);
}

/** Source 0: the address the route chooses, written with the checksums updated. */
function chooseSource(ns: NetNamespace, skb: SkBuff, hlen: number, route: Route, dst: number): void {
  const b = skb.data;
  const ip = skb.head;
  const l4 = ip + hlen;
  const firstFragment = (read16(b, ip + 6) & IP_OFFSET_MASK) === 0;
  rewriteIpv4Address(b, ip, IPV4_SRC_FIELD, ns.routeSource(route, dst), firstFragment && l4 + 8 <= skb.tail ? l4 : -1, b[ip + 9]!);
}

/** The OUTPUT hook changed the destination (DNAT): routed again, then ip_output. */
function rerouteAfterOutput(ns: NetNamespace, skb: SkBuff, newDst: number): void {
  const route = ns.routes.lookup(newDst);
  if (route === null || !deliverable(route)) {
    ns.counters.ip.OutNoRoutes++;
    ns.dropPacket(skb, null, "output", DropReason.NO_ROUTE, "net/stack/output:reroute", "no route after the OUTPUT hook changed the destination");
    return;
  }
  ipOutput(ns, skb, route, null);
}

/** ip_output: POSTROUTING, then ip_finish_output. inDev is the input device of forwarded packets. */
export function ipOutput(ns: NetNamespace, skb: SkBuff, route: Route, inDev: NetDevice | null): void {
  const outDev = outputDevice(ns, route);
  // Every caller comes straight from FORWARD or OUTPUT with the bytes unchanged: netfilter may carry
  // what that hook parsed (hook-carry.ts).
  if (ns.netfilter.run(NfHook.POSTROUTING, skb, inDev, outDev, true) !== NfVerdict.ACCEPT) return;
  const mtu = route.mtu !== 0 ? route.mtu : outDev.mtu;
  if (skb.length <= mtu) {
    finishOutput(ns, skb, route, outDev);
    return;
  }
  if (skb.gsoSize !== 0) {
    outputGso(ns, skb, route, outDev, mtu);
    return;
  }
  overMtu(ns, skb, route, outDev, mtu);
}

/** ip_finish_output_gso: segments that fit go out as the super-packet; otherwise each segment is fragmented or refused. */
function outputGso(ns: NetNamespace, skb: SkBuff, route: Route, outDev: NetDevice, mtu: number): void {
  const segLen = gsoNetworkLength(skb, skb.head);
  if (segLen >= 0 && segLen <= mtu) {
    finishOutput(ns, skb, route, outDev);
    return;
  }
  const ledger = ns.world.ledger;
  const segments = gsoSegment(skb, skb.head, () => ledger.admit());
  if (segments === null) {
    ns.counters.ip.OutDiscards++;
    ns.dropPacket(skb, outDev, "output", DropReason.INVALID_PACKET, "net/stack/output:gso", `GSO packet of ${skb.length} bytes without parsable IPv4/TCP headers`);
    return;
  }
  ledger.deliver(DeliveryKind.SPLIT);
  consumeSkb(skb);
  for (const seg of segments) {
    if (seg.length <= mtu) finishOutput(ns, seg, route, outDev);
    else overMtu(ns, seg, route, outDev, mtu);
  }
}

/** A packet over the MTU: ICMP fragmentation needed with DF, fragments without. */
function overMtu(ns: NetNamespace, skb: SkBuff, route: Route, outDev: NetDevice, mtu: number): void {
  const counters = ns.counters.ip;
  if ((read16(skb.data, skb.head + 6) & IP_DF) !== 0) {
    counters.FragFails++;
    icmpSend(ns, skb, IcmpType.DEST_UNREACH, UnreachCode.FRAG_NEEDED, mtu, PacketType.HOST, 0, null);
    ns.dropPacket(skb, outDev, "output", DropReason.FRAG_NEEDED, "net/stack/output:df", `${skb.length}-byte packet with DF over MTU ${mtu} of ${outDev.name}`);
    return;
  }
  const fragments = fragmentIpv4(ns.world, skb, mtu);
  if (fragments === null) {
    counters.FragFails++;
    ns.dropPacket(skb, outDev, "output", DropReason.MTU_EXCEEDED, "net/stack/output:tiny-mtu", `MTU ${mtu} leaves no room for fragment data`);
    return;
  }
  counters.FragOKs++;
  counters.FragCreates += fragments.length;
  ns.world.ledger.deliver(DeliveryKind.SPLIT);
  for (const frag of fragments) finishOutput(ns, frag, route, outDev);
}

/**
 * ip_finish_output2: the link layer. outDev is route.dev, or lo for local routes and routes without a
 * device (outputDevice), so the device's kind, link type and index are read from the route when it is
 * route.dev (see Route.devIfindex).
 */
function finishOutput(ns: NetNamespace, skb: SkBuff, route: Route, outDev: NetDevice): void {
  ns.counters.ip.OutTransmits++;
  ns.counters.ipExt.OutOctets += skb.length;
  if (outDev !== route.dev || route.devIsLoopback) {
    ns.transmitEthernet(outDev, skb, 0);
    return;
  }
  if (!route.devIsL2) {
    skb.nextHop = route.via;
    outDev.transmit(skb);
    return;
  }
  // Limited broadcast and multicast destinations are their own next hop (no gateway, a fixed MAC).
  const dst = read32(skb.data, skb.head + IPV4_DST_FIELD);
  const nextHop = route.via !== 0 && dst !== 0xffffffff && dst >>> 28 !== 0xe ? route.via : dst;
  ns.neigh.output(outDev, route.devIfindex, nextHop, skb);
}

function deliverable(route: Route): boolean {
  return route.type === RouteType.UNICAST || route.type === RouteType.LOCAL || route.type === RouteType.BROADCAST;
}

/** Local routes leave through the loopback device whatever device the address sits on. */
function outputDevice(ns: NetNamespace, route: Route): NetDevice {
  return route.type === RouteType.LOCAL || route.dev === null ? ns.loopback : route.dev;
}

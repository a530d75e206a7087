// ip_forward: only packets addressed to our MAC are forwarded; TTL <= 1 gets ICMP time exceeded;
// DF packets over the next hop's MTU get ICMP fragmentation needed with that MTU; otherwise the TTL is
// decremented (incremental checksum), a redirect is sent when the packet leaves through the interface
// it came in on toward a directly connected sender, then the FORWARD hook and ip_output.

import { mtuCheckLength } from "../../skb/gso.js";
import type { SkBuff } from "../../skb/skbuff.js";
import { DropReason, TracePoint } from "../../../datapath/reasons.js";
import { read16, read32 } from "../../wire/bytes.js";
import { NfHook, NfVerdict } from "../netfilter/hooks.js";
import type { NetDevice } from "../device.js";
import { icmpSend, IcmpType, RedirectCode, TimeExceededCode, UnreachCode } from "./icmp-send.js";
import { decreaseTtl, IP_DF } from "./ip-packet.js";
import { ipOutput } from "./ip-output.js";
import type { NetNamespace } from "./namespace.js";
import { PacketType, RouteFlag } from "./packet-context.js";
import type { Route } from "./route-table.js";
import { wantsRedirect } from "./route-input.js";
import { jiffiesAt } from "./time.js";

export function forward(ns: NetNamespace, skb: SkBuff, inDev: NetDevice, route: Route, pktType: number): void {
  const b = skb.data;
  const ip = skb.head;
  if (pktType !== PacketType.HOST || b[ip + 8]! <= 1) {
    refuse(ns, skb, inDev, pktType);
    return;
  }
  // Counted before the MTU check and the FORWARD hook since Linux 6.7 (RFC 4293 OutForwDatagrams).
  ns.counters.ip.ForwDatagrams++;
  const outDev = route.dev!;
  const mtu = route.mtu !== 0 ? route.mtu : outDev.mtu;
  // ip_exceeds_mtu: a GSO super-packet is measured by its segments (skb_gso_validate_network_len).
  if (skb.tail - ip > mtu && (read16(b, ip + 6) & IP_DF) !== 0 && mtuCheckLength(skb, ip) > mtu) {
    fragNeeded(ns, skb, inDev, pktType, outDev, mtu);
    return;
  }
  decreaseTtl(b, ip);
  if (route.dev === inDev) maybeRedirect(ns, skb, inDev, route, pktType);
  // Since PREROUTING only the TTL changed: netfilter may carry what that hook parsed (hook-carry.ts).
  if (ns.netfilter.run(NfHook.FORWARD, skb, inDev, outDev, true) !== NfVerdict.ACCEPT) return;
  if (ns.world.tracer.hops) ns.world.hop(skb, ns.site(outDev, "forward"), TracePoint.HOST_FORWARD, `routed via ${outDev.name}`, false);
  ipOutput(ns, skb, route, inDev);
}

/** Not forwarded: a link-layer broadcast/multicast frame, or a TTL that would expire (ICMP time exceeded). */
function refuse(ns: NetNamespace, skb: SkBuff, inDev: NetDevice, pktType: number): void {
  const b = skb.data;
  const ip = skb.head;
  if (pktType !== PacketType.HOST) {
    ns.dropPacket(skb, inDev, "forward", DropReason.NOT_FOR_HOST, "net/stack/forward:pkt-type", "link-layer broadcast/multicast frames are not forwarded");
    return;
  }
  ns.counters.ip.InHdrErrors++;
  icmpSend(ns, skb, IcmpType.TIME_EXCEEDED, TimeExceededCode.TTL, 0, pktType, RouteFlag.INPUT, inDev);
  ns.dropPacket(skb, inDev, "forward", DropReason.TTL_EXCEEDED, "net/stack/forward:ttl", `ttl ${b[ip + 8]} on arrival`);
}

/** A DF packet over the next hop's MTU: ICMP fragmentation needed with that MTU, and the drop. */
function fragNeeded(ns: NetNamespace, skb: SkBuff, inDev: NetDevice, pktType: number, outDev: NetDevice, mtu: number): void {
  ns.counters.ip.FragFails++;
  icmpSend(ns, skb, IcmpType.DEST_UNREACH, UnreachCode.FRAG_NEEDED, mtu, pktType, RouteFlag.INPUT, inDev);
  ns.dropPacket(skb, inDev, "forward", DropReason.FRAG_NEEDED, "net/stack/forward:mtu", `${skb.length}-byte packet with DF over MTU ${mtu} of ${outDev.name}`);
}

/** A packet leaving through the interface it came in on: an ICMP redirect when wantsRedirect says so (rate limited). */
function maybeRedirect(ns: NetNamespace, skb: SkBuff, inDev: NetDevice, route: Route, pktType: number): void {
  const b = skb.data;
  const ip = skb.head;
  const src = read32(b, ip + 12);
  if (!wantsRedirect(ns, src, inDev, route)) return;
  const now = jiffiesAt(ns.world.sim.now);
  if (ns.icmpLimiter.redirectAllow(ns.icmpLimiter.peer(src, now), now)) {
    const gateway = route.via !== 0 ? route.via : read32(b, ip + 16);
    icmpSend(ns, skb, IcmpType.REDIRECT, RedirectCode.HOST, gateway, pktType, RouteFlag.INPUT, inDev);
  }
}

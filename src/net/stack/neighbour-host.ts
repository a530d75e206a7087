// What a namespace does for its neighbour table (NeighbourHost): ARP solicitations with the kernel's
// source choice, the Ethernet header for a resolved next hop, errors for packets that cannot be
// resolved, and the fixed link addresses of next hops that need no ARP. One class for every
// namespace, so the table's per-packet call to transmit has a single target.

import type { SkBuff } from "../../skb/skbuff.js";
import { DropReason } from "../../../datapath/reasons.js";
import { BROADCAST_MAC } from "../../util/mac.js";
import { read32 } from "../../wire/bytes.js";
import { DeviceKind, type NetDevice } from "../device.js";
import type { NetWorld } from "../world.js";
import { AddrScope } from "./addresses.js";
import { ArpOp, sendArp } from "./arp.js";
import type { StackCounters } from "./counters.js";
import { icmpSend, IcmpType, UnreachCode } from "./icmp-send.js";
import type { NetNamespace } from "./namespace.js";
import type { NeighbourEntry, NeighbourHost } from "./neighbour.js";
import { PacketType } from "./packet-context.js";
import { RouteType } from "./route-table.js";

export class NamespaceNeighbourHost implements NeighbourHost {
  readonly world: NetWorld;
  readonly counters: StackCounters;

  constructor(private readonly ns: NetNamespace) {
    this.world = ns.world;
    this.counters = ns.counters;
  }

  /** arp_solicit: source = the queued packet's source when it is ours, else inet_select_addr(dev, target). */
  solicit(n: NeighbourEntry, dstMac: number, newest: SkBuff | null): void {
    const ns = this.ns;
    let src = 0;
    if (newest !== null) {
      const s = read32(newest.data, newest.head + 12);
      if (ns.routes.isLocal(s)) src = s;
    }
    if (src === 0) src = ns.addresses.select(n.dev, n.ip, AddrScope.LINK, ns.listDevices);
    sendArp(ns, n.dev, ArpOp.REQUEST, dstMac < 0 ? BROADCAST_MAC : dstMac, src, 0, n.ip);
  }

  transmit(n: NeighbourEntry, skb: SkBuff): void {
    this.ns.transmitEthernet(n.dev, skb, n.mac);
  }

  unreachable(n: NeighbourEntry, skb: SkBuff): void {
    icmpSend(this.ns, skb, IcmpType.DEST_UNREACH, UnreachCode.HOST, 0, PacketType.HOST, 0, n.dev);
    this.ns.dropPacket(skb, n.dev, "neigh", DropReason.NO_NEIGHBOUR, "net/stack/neigh:failed", `ARP for the next hop got no answer after ${n.parms.mcastProbes} requests`);
  }

  discard(n: NeighbourEntry, skb: SkBuff, why: string): void {
    this.ns.dropPacket(skb, n.dev, "neigh", DropReason.NO_NEIGHBOUR, "net/stack/neigh:discard", why);
  }

  /** arp_constructor: broadcast and multicast next hops, loopback and NOARP devices need no resolution. */
  noarpAddress(dev: NetDevice, ip: number): number {
    if (!dev.l2 || dev.kind === DeviceKind.LOOPBACK) return dev.mac;
    if (ip === 0xffffffff || this.ns.routes.lookupIn("local", ip)?.type === RouteType.BROADCAST) return BROADCAST_MAC;
    if (ip >>> 28 === 0xe) return 0x01005e000000 + (ip & 0x7fffff);
    return -1;
  }
}

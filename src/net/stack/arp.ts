// ARP as net/ipv4/arp.c does it: requests broadcast (or unicast while probing), replies unicast to the
// asker; answer requests for any local address (arp_ignore 0) and learn the asker; proxy ARP on
// interfaces with proxy_arp when the target routes out another interface (delayed below proxy_delay
// unless the request was unicast or proxy_delay is 0); other ARP only refreshes existing entries.

import type { SkBuff } from "../../skb/skbuff.js";
import { DropReason } from "../../../datapath/reasons.js";
import { readMac } from "../../util/mac.js";
import { read16, read32 } from "../../wire/bytes.js";
import { ARP_LENGTH, ArpOperation, emitArp } from "../../wire/arp.js";
import { emitEthernet, ETHERNET_HEADER_LENGTH, EtherType } from "../../wire/ethernet.js";
import { DeliveryKind } from "../../trace/ledger.js";
import type { NetDevice } from "../device.js";
import { newPacket } from "./ip-packet.js";
import type { NetNamespace } from "./namespace.js";
import { NeighUpdate, Nud } from "./neighbour.js";
import { PacketType } from "./packet-context.js";
import { InputDecision, routeInput } from "./route-input.js";
import { RouteType } from "./route-table.js";
import { NS_PER_JIFFY } from "./time.js";

export const ArpOp = ArpOperation;
const HW_ETHER = 1;
const HW_IEEE802 = 6;

/** Sends an ARP packet on dev: Ethernet to ethDst, sender dev.mac/senderIp, target targetMac/targetIp. */
export function sendArp(ns: NetNamespace, dev: NetDevice, op: number, ethDst: number, senderIp: number, targetMac: number, targetIp: number): void {
  const skb = newPacket(ns.world, ETHERNET_HEADER_LENGTH + ARP_LENGTH);
  const at = skb.head;
  emitEthernet({ dst: ethDst, src: dev.mac, etherType: EtherType.ARP }, skb.data, at);
  emitArp({ operation: op, senderMac: dev.mac, senderIp, targetMac, targetIp }, skb.data, at + ETHERNET_HEADER_LENGTH);
  dev.transmit(skb);
}

/** A proxied request waiting out its random proxy_delay. */
interface ProxyWait {
  readonly ns: NetNamespace;
  readonly dev: NetDevice;
  readonly skb: SkBuff;
  readonly pktType: number;
}

const redoProxied = (w: ProxyWait): void => {
  w.ns.proxyQueued--;
  arpProcess(w.ns, w.dev, w.skb, w.pktType, true);
};

/** arp_rcv: skb.head at the ARP header (Ethernet pulled). */
export function arpReceive(ns: NetNamespace, dev: NetDevice, skb: SkBuff, pktType: number): void {
  const b = skb.data;
  const a = skb.head;
  if (skb.length < ARP_LENGTH) {
    ns.dropPacket(skb, dev, "arp", DropReason.INVALID_PACKET, "net/stack/arp:short", `arp.packet at byte 0: truncated, ${skb.length} bytes`, true);
    return;
  }
  const hw = read16(b, a);
  if ((hw !== HW_ETHER && hw !== HW_IEEE802) || read16(b, a + 2) !== 0x0800 || b[a + 4] !== 6 || b[a + 5] !== 4) {
    ns.dropPacket(skb, dev, "arp", DropReason.INVALID_PACKET, "net/stack/arp:format", "arp header is not Ethernet/IPv4 (hardware 1, protocol 0x0800, lengths 6/4)", true);
    return;
  }
  const op = read16(b, a + 6);
  if (op !== ArpOp.REQUEST && op !== ArpOp.REPLY) {
    ns.dropPacket(skb, dev, "arp", DropReason.INVALID_PACKET, "net/stack/arp:operation", `arp.operation at byte 6: ${op}`, true);
    return;
  }
  arpProcess(ns, dev, skb, pktType, false);
}

function arpProcess(ns: NetNamespace, dev: NetDevice, skb: SkBuff, pktType: number, requeued: boolean): void {
  const b = skb.data;
  const a = skb.head;
  const op = read16(b, a + 6);
  const sha = readMac(b, a + 8);
  const sip = read32(b, a + 14);
  const tha = readMac(b, a + 18);
  const tip = read32(b, a + 24);
  if (tip >>> 28 === 0xe || tip >>> 24 === 127) {
    ns.dropPacket(skb, dev, "arp", DropReason.INVALID_PACKET, "net/stack/arp:target", "ARP for a multicast or loopback target", true);
    return;
  }
  const consumed = (): void => ns.world.ledger.deliver(DeliveryKind.STACK);
  if (sip === 0) {
    // Duplicate address detection probe (RFC 5227): answer for our own address.
    if (op === ArpOp.REQUEST && ns.routes.isLocal(tip) && !arpIgnored(ns, dev, sip, tip)) {
      sendArp(ns, dev, ArpOp.REPLY, sha, tip, sha, sip);
    }
    consumed();
    return;
  }
  if (op === ArpOp.REQUEST) {
    const decision = routeInput(ns, tip, sip, dev, ns.inputRoute);
    const route = ns.inputRoute.route;
    if (decision === InputDecision.LOCAL) {
      if (!arpIgnored(ns, dev, sip, tip)) {
        ns.neigh.eventNs(dev, sip, sha);
        sendArp(ns, dev, ArpOp.REPLY, sha, tip, sha, sip);
      }
      consumed();
      return;
    }
    if (decision === InputDecision.FORWARD && route !== null && route.type === RouteType.UNICAST && route.dev !== dev && ns.sysctl.proxyArp.has(dev.ifindex)) {
      ns.neigh.eventNs(dev, sip, sha);
      const parms = ns.neigh.parms(dev);
      if (requeued || pktType === PacketType.HOST || parms.proxyDelayNs === 0) {
        sendArp(ns, dev, ArpOp.REPLY, sha, tip, sha, sip);
        consumed();
      } else if (ns.proxyQueued > parms.proxyQlen) {
        ns.dropPacket(skb, dev, "arp", DropReason.QUEUE_FULL, "net/stack/arp:proxy-queue", `proxy ARP queue over proxy_qlen ${parms.proxyQlen}`, true);
      } else {
        const delayJiffies = Math.floor(parms.proxyDelayNs / NS_PER_JIFFY);
        const wait = delayJiffies > 0 ? ns.rng.nextInt(delayJiffies) * NS_PER_JIFFY : 0;
        ns.proxyQueued++;
        ns.world.sim.schedule(wait, redoProxied, { ns, dev, skb, pktType });
      }
      return;
    }
  }
  const n = ns.neigh.lookup(dev, sip);
  if (n !== undefined) {
    const garp = tip === sip && (op !== ArpOp.REPLY || tha === sha) && isUnicastAddress(ns, sip);
    const override = ns.world.sim.now > n.updated + n.parms.locktimeNs || garp;
    const state = op === ArpOp.REPLY && pktType === PacketType.HOST ? Nud.REACHABLE : Nud.STALE;
    ns.neigh.update(n, sha, state, override ? NeighUpdate.OVERRIDE : 0);
  }
  consumed();
}

/** arp_ignore: 0 reply for any local address; 1 only for addresses on dev; 2 also sender in that subnet; 8 never. */
function arpIgnored(ns: NetNamespace, dev: NetDevice, sip: number, tip: number): boolean {
  const mode = ns.sysctl.arpIgnore.get(dev.ifindex) ?? 0;
  if (mode === 0) return false;
  if (mode >= 8) return true;
  const own = ns.addresses.ofDevice(dev).find((x) => x.addr === tip);
  if (own === undefined) return true;
  if (mode === 2) return ((sip ^ tip) >>> (32 - own.prefixLen)) !== 0 && own.prefixLen > 0;
  return false;
}

/** inet_addr_type(addr) == RTN_UNICAST: not local, broadcast or multicast. */
function isUnicastAddress(ns: NetNamespace, addr: number): boolean {
  const r = ns.routes.lookup(addr);
  return addr >>> 28 !== 0xe && addr !== 0xffffffff && (r === null || r.type === RouteType.UNICAST);
}

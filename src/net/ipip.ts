// IpipDevice: IPv4-in-IPv4 (net/ipv4/ipip.c + ip_tunnel.c), by default the per-namespace fallback
// device tunl0 as Calico uses it: remote and local "any", `ttl inherit`, `nopmtudisc` (outer DF
// copied from the inner header), MTU 1480. Transmit takes the remote from the route's next hop
// (`via X dev tunl0 onlink`, skb.nextHop) or the inner destination, and hands outer IPv4 proto 4 to
// the namespace's ip_local_out. Receive is the namespace's IP protocol 4 handler: the outer header
// is stripped and the inner packet received on the matching tunnel device.

import { DropReason, TracePoint } from "../../datapath/reasons.js";
import { mtuCheckLength } from "../skb/gso.js";
import { GSO_ENCAP_MASK, GsoType, type SkBuff } from "../skb/skbuff.js";
import { read16, read32 } from "../wire/bytes.js";
import { err, ok, type Result } from "../util/result.js";
import { DeviceKind, NetDevice } from "./device.js";
import type { NetWorld } from "./world.js";
import { NetNamespace } from "./stack/namespace.js";
import { icmpSend, IcmpType, UnreachCode } from "./stack/icmp-send.js";
import { PacketType, RouteFlag } from "./stack/packet-context.js";
import { RouteType } from "./stack/route-table.js";
import type { SocketInfo } from "./stack/sockets.js";
import { jiffiesAt } from "./stack/time.js";
import { EcnDecap, ecnDecapsulate, ecnEncapsulate, IPV4_HLEN, IP_DF, setCe, writeOuterIpv4 } from "./vxlan/ip-tunnel.js";

export const IPPROTO_IPIP = 4;
/** tunl0's MTU without a bound underlay device: ETH_DATA_LEN 1500 minus the 20-byte outer header. */
export const IPIP_DEFAULT_MTU = 1480;

export interface IpipOptions {
  /** Fixed remote (`remote`); 0 = "any": taken from each packet's route next hop. */
  readonly remote?: number;
  /** Fixed outer source (`local`); 0 = chosen by the route to the remote. */
  readonly local?: number;
  /** Outer TTL; 0 = inherit the inner TTL (tunl0's default). */
  readonly ttl?: number;
  /** Outer TOS; odd = inherit the inner TOS. ECN is always propagated. */
  readonly tos?: number;
  /** `pmtudisc`: outer DF always set (tunl0 is `nopmtudisc`: DF copied from the inner packet). */
  readonly pmtudisc?: boolean;
  readonly mtu?: number;
}

export interface IpipError {
  readonly device: string;
  readonly reason: string;
}

const registry = new WeakMap<NetNamespace, IpipDevice[]>();

export class IpipDevice extends NetDevice {
  readonly kind = DeviceKind.IPIP;
  override readonly l2 = false;
  readonly remote: number;
  readonly localAddr: number;
  ttl: number;
  tos: number;
  pmtudisc: boolean;
  readonly tunnelStats = { txErrors: 0, txCarrierErrors: 0, collisions: 0, rxErrors: 0, rxFrameErrors: 0 };
  private openedIn: NetNamespace | null = null;

  constructor(world: NetWorld, name = "tunl0", options: IpipOptions = {}) {
    super(world, name, 0, options.mtu ?? IPIP_DEFAULT_MTU);
    this.remote = (options.remote ?? 0) >>> 0;
    this.localAddr = (options.local ?? 0) >>> 0;
    this.ttl = options.ttl ?? 0;
    this.tos = options.tos ?? 0;
    this.pmtudisc = options.pmtudisc ?? (this.ttl !== 0);
  }

  /** Registers the device for IP protocol 4 in its namespace (the ipip module's handler). Call after addDevice. */
  open(): Result<void, IpipError> {
    const ns = this.stack;
    if (!(ns instanceof NetNamespace)) return err({ device: this.name, reason: "the device is in no namespace (add it to one first)" });
    if (this.openedIn === ns) return ok(undefined);
    let list = registry.get(ns);
    if (list === undefined) {
      // The handler holds the namespace's device list itself (it only grows): no registry lookup per packet.
      const devices: IpipDevice[] = [];
      const r = ns.registerIpProtocol(IPPROTO_IPIP, (skb, dev, info) => ipipReceive(ns, devices, skb, dev, info));
      if (!r.ok) return err({ device: this.name, reason: r.error.reason });
      registry.set(ns, (list = devices));
    }
    list.push(this);
    this.openedIn = ns;
    return ok(undefined);
  }

  // ---- transmit (ipip_tunnel_xmit -> ip_tunnel_xmit) ------------------------------------------

  protected xmit(skb: SkBuff): void {
    const ns = this.stack instanceof NetNamespace ? this.stack : null;
    const b = skb.data;
    const inner = skb.head;
    if (ns === null) return this.txError(skb, DropReason.NO_STACK, "net/ipip:no-namespace", "the device is in no namespace");
    if (skb.length < IPV4_HLEN || b[inner]! >>> 4 !== 4) return this.txError(skb, DropReason.UNKNOWN_L3, "net/ipip:not-ipv4", "IPIP carries IPv4 only");
    const innerDst = read32(b, inner + 16);
    const remote = this.remote !== 0 ? this.remote : skb.nextHop !== 0 ? skb.nextHop : innerDst;
    const route = ns.routes.lookup(remote);
    if (route === null || (route.type !== RouteType.UNICAST && route.type !== RouteType.LOCAL)) {
      this.tunnelStats.txCarrierErrors++;
      return this.txError(skb, DropReason.NO_ROUTE, "net/ipip:no-route", "no route to the tunnel remote");
    }
    if (route.dev === this) {
      this.tunnelStats.collisions++;
      return this.txError(skb, DropReason.NO_ROUTE, "net/ipip:loop", "the route to the tunnel remote leads back into this device");
    }
    const innerDf = (read16(b, inner + 6) & IP_DF) !== 0;
    const df = this.pmtudisc || innerDf;
    if (innerDf) {
      // tnl_update_pmtu: with DF the path MTU is the underlay route's minus the outer header.
      const mtu = ns.routeMtu(route) - IPV4_HLEN;
      if (mtu < skb.length && mtuCheckLength(skb, inner) > mtu) {
        icmpSend(ns, skb, IcmpType.DEST_UNREACH, UnreachCode.FRAG_NEEDED, mtu, PacketType.HOST, 0, null);
        return this.txError(skb, DropReason.FRAG_NEEDED, "net/ipip:pmtu", `${skb.length}-byte packet with DF over the tunnel path MTU ${mtu}`);
      }
    }
    const innerTos = b[inner + 1]!;
    const tos = ecnEncapsulate((this.tos & 1) !== 0 ? innerTos : this.tos, innerTos);
    const ttl = this.ttl !== 0 ? this.ttl : b[inner + 8]!;
    const src = this.localAddr !== 0 ? this.localAddr : ns.routeSource(route, remote);
    const length = skb.length;
    const ip = skb.push(IPV4_HLEN);
    const id = ns.ipIdent.next(remote, src, IPPROTO_IPIP, jiffiesAt(this.world.sim.now), skb.gsoSize !== 0 ? skb.gsoSegs : 1);
    if (skb.gsoSize !== 0) skb.gsoType |= GsoType.IPXIP4;
    writeOuterIpv4(skb.data, ip, tos, IPV4_HLEN + length, id, df, ttl, IPPROTO_IPIP, src, remote);
    skb.ctState = 0; // skb_scrub_packet: nf_reset_ct
    skb.ctEntry = -1;
    skb.nextHop = 0;
    if (this.world.tracer.hops) this.world.hop(skb, this.site("encap"), TracePoint.TO_OVERLAY, "encap ipip", false);
    ns.outputIp(skb);
  }

  private txError(skb: SkBuff, reason: number, site: string, explanation: string): void {
    this.tunnelStats.txErrors++;
    this.world.drop(skb, this.site("xmit"), reason, site, false, { explanation });
  }

  // ---- receive (ip_tunnel_rcv) --------------------------------------------------------------

  /** Receives the inner packet at skb.head (outer header at outerOffset) on this device. */
  decapsulate(skb: SkBuff, outerOffset: number, outerSrc: number): void {
    const b = skb.data;
    const inner = skb.head;
    if (skb.length < IPV4_HLEN || b[inner]! >>> 4 !== 4) {
      this.tunnelStats.rxErrors++;
      return this.rxDrop(skb, DropReason.INVALID_PACKET, "net/ipip:inner-ipv4", "inner IPv4 header missing or truncated");
    }
    const e = ecnDecapsulate(b[outerOffset + 1]!, b[inner + 1]!);
    if (e === EcnDecap.DROP) {
      this.tunnelStats.rxFrameErrors++;
      this.tunnelStats.rxErrors++;
      return this.rxDrop(skb, DropReason.INVALID_PACKET, "net/ipip:ecn", "outer CE on a non-ECN-capable inner packet");
    }
    if (e === EcnDecap.SET_CE) setCe(b, inner);
    skb.gsoType &= ~GSO_ENCAP_MASK; // iptunnel_pull_offloads
    skb.ctState = 0; // skb_scrub_packet
    skb.ctEntry = -1;
    skb.tunnelId = 0;
    skb.tunnelSrc = outerSrc;
    if (this.world.tracer.hops) this.world.hop(skb, this.site("decap"), TracePoint.FROM_OVERLAY, "decap ipip", false);
    this.receive(skb);
  }

  private rxDrop(skb: SkBuff, reason: number, site: string, explanation: string): void {
    this.world.drop(skb, this.site("ipip-rcv"), reason, site, false, { explanation });
  }

  /** ip_tunnel_lookup's match for an outer (src, dst): 3 = exact, 2/1 = one end wildcard, 0 = fallback, -1 = none. */
  matchScore(src: number, dst: number): number {
    if (!this.up) return -1;
    if (this.remote !== 0 && this.remote !== src) return -1;
    if (this.localAddr !== 0 && this.localAddr !== dst) return -1;
    return (this.remote !== 0 ? 2 : 0) + (this.localAddr !== 0 ? 1 : 0);
  }
}

/**
 * ipip_rcv: the best-matching tunnel device that is up gets the inner packet; with none (tunl0
 * down) tunnel4_rcv answers ICMP port unreachable and drops it. skb.head is at the inner header.
 */
function ipipReceive(ns: NetNamespace, devices: readonly IpipDevice[], skb: SkBuff, dev: NetDevice, info: SocketInfo): void {
  let best: IpipDevice | null = null;
  let bestScore = -1;
  for (let i = 0; i < devices.length; i++) {
    const t = devices[i]!;
    const s = t.stack === ns ? t.matchScore(info.src, info.dst) : -1;
    if (s > bestScore) {
      best = t;
      bestScore = s;
    }
  }
  if (best === null) {
    skb.head = info.ipOffset;
    icmpSend(ns, skb, IcmpType.DEST_UNREACH, UnreachCode.PORT, 0, PacketType.HOST, RouteFlag.LOCAL, dev);
    ns.dropPacket(skb, dev, "ipip-rcv", DropReason.NO_TUNNEL_ENDPOINT, "net/ipip:no-tunnel", "no IPIP tunnel device is up for this packet");
    return;
  }
  best.decapsulate(skb, info.ipOffset, info.src);
}

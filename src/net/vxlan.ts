// VxlanDevice: Linux's vxlan netdevice (drivers/net/vxlan). Transmit looks the inner destination MAC
// up in the device FDB (falling back to the all-zeros flood list), and per remote VTEP builds
// outer IPv4 + UDP + VXLAN in front of the frame exactly as vxlan_xmit_one/udp_tunnel_xmit_skb do
// (hashed source port, UDP checksum unless noudpcsum, TTL from the route, DF per the df option, ECN copied, IP ID
// from the namespace's generator) and hands it to the namespace's ip_local_out. Receive is the
// shared UDP socket's job (vxlan/socket.ts) up to the VNI match; then learning, ECN and delivery
// of the inner frame on this device happen here.

import { DropReason, TracePoint } from "../../datapath/reasons.js";
import { mtuCheckLength } from "../skb/gso.js";
import { GSO_ENCAP_MASK, GsoType, type SkBuff } from "../skb/skbuff.js";
import { read16, read32, write16, write32 } from "../wire/bytes.js";
import { setL4ChecksumV4 } from "../wire/checksum.js";
import { formatIPv4 } from "../util/ip.js";
import { readMac } from "../util/mac.js";
import { err, ok, type Result } from "../util/result.js";
import { DeviceKind, NetDevice } from "./device.js";
import type { NetWorld } from "./world.js";
import { NetNamespace } from "./stack/namespace.js";
import type { SocketInfo } from "./stack/sockets.js";
import { RouteType } from "./stack/route-table.js";
import { jiffiesAt } from "./stack/time.js";
import { ALL_ZEROS_MAC, SnoopResult, VxlanFdb, VxlanNud, type VxlanFdbEntry, type VxlanRemote } from "./vxlan/fdb.js";
import { EPHEMERAL_PORT_MAX, EPHEMERAL_PORT_MIN } from "./vxlan/flow-hash.js";
import { FlowSourcePortCache } from "./vxlan/flow-port-cache.js";
import { EcnDecap, ecnDecapsulate, ecnEncapsulate, IPV4_HLEN, setCe, writeOuterIpv4 } from "./vxlan/ip-tunnel.js";
import { buildFragNeeded, wantsFragNeeded } from "./vxlan/pmtu.js";
import { findEndpoint, joinSocket, leaveSocket, VXLAN_HLEN, type VxlanEndpoint } from "./vxlan/socket.js";

export { ALL_ZEROS_MAC, SnoopResult, VxlanFdb, VxlanFdbEntry, VxlanNud, type VxlanRemote } from "./vxlan/fdb.js";
export { EPHEMERAL_PORT_MAX, EPHEMERAL_PORT_MIN, innerFlowHash, srcPortFromHash } from "./vxlan/flow-hash.js";

/** IANA's VXLAN port. */
export const VXLAN_PORT_IANA = 4789;
/** The port Linux uses when `dstport` is not given (and flannel's default). */
export const VXLAN_PORT_LINUX = 8472;
/** Outer IPv4 20 + UDP 8 + VXLAN 8 + inner Ethernet 14 (VXLAN_HEADROOM). */
export const VXLAN_OVERHEAD = 50;
const ETH_HLEN = 14;
const IPPROTO_UDP = 17;
const NS_PER_SECOND = 1_000_000_000;
const LOOPBACK_ADDR = 0x7f000001;

/** The `df` option: unset (outer DF clear, the default), set, or inherit from the inner IPv4 header. */
export const VxlanDf = { UNSET: 0, SET: 1, INHERIT: 2 } as const;
export type VxlanDf = (typeof VxlanDf)[keyof typeof VxlanDf];

export interface VxlanOptions {
  /** VXLAN network identifier, 0..2^24-1. */
  readonly vni: number;
  /** UDP destination port; Linux's default is 8472, the IANA port 4789 must be asked for. */
  readonly dstPort?: number;
  /** Outer source address (`local`); 0 = chosen by the route to each remote. */
  readonly local?: number;
  /** Default remote (`remote`): an all-zeros FDB entry towards it. 0 = none. */
  readonly remote?: number;
  /** Learn inner source MAC -> VTEP from received frames (Linux's default; flannel uses nolearning). */
  readonly learning?: boolean;
  /** Outer TTL; 0 = the route's hop limit (net.ipv4.ip_default_ttl, 64), 1 for multicast remotes. */
  readonly ttl?: number;
  /** `ttl inherit`: the inner IPv4 TTL. */
  readonly ttlInherit?: boolean;
  /** Outer TOS; 1 = inherit the inner one. ECN is always propagated (RFC 6040). */
  readonly tos?: number;
  readonly df?: VxlanDf;
  /**
   * `udpcsum`: compute the outer UDP checksum. On by default: the kernel sets UDP_ZERO_CSUM_TX only
   * when IFLA_VXLAN_UDP_CSUM is given as 0, and neither iproute2 nor flannel's netlink library send it
   * unless asked (`ip -d link` shows "udpcsum" on Linux 6.x). Pass false for `noudpcsum`.
   */
  readonly udpCsum?: boolean;
  /** `srcport MIN MAX`; default the namespace's ephemeral range 32768-60999. */
  readonly srcPortMin?: number;
  readonly srcPortMax?: number;
  /** FDB ageing for learned entries (default 300 s). */
  readonly ageingNs?: number;
  /** Default 1450: a 1500-byte underlay minus the 50-byte overhead. */
  readonly mtu?: number;
  /** Deliver to a local VTEP without encapsulating (`localbypass`, Linux's default). */
  readonly localBypass?: boolean;
  /** Key of the flow hash (the kernel's per-boot random hashrnd); default: the world's one key (NetWorld.flowHashKey). */
  readonly flowHashSeed?: number;
}

export interface VxlanError {
  readonly device: string;
  readonly reason: string;
}

export class VxlanDevice extends NetDevice implements VxlanEndpoint {
  readonly kind = DeviceKind.VXLAN;
  readonly vni: number;
  readonly dstPort: number;
  readonly local: number;
  readonly learning: boolean;
  readonly fdb: VxlanFdb;
  ttl: number;
  ttlInherit: boolean;
  tos: number;
  df: VxlanDf;
  udpCsum: boolean;
  readonly srcPortMin: number;
  readonly srcPortMax: number;
  localBypass: boolean;
  readonly flowHashSeed: number;
  /** Counters like `ip -s link`'s tx_errors / rx errors for this device. */
  readonly tunnelStats = { txErrors: 0, txCarrierErrors: 0, rxErrors: 0, rxFrameErrors: 0, learned: 0, migrated: 0 };
  private socketNs: NetNamespace | null = null;
  /** The outer source port per inner flow (a pure function of the flow and the fields above it). */
  private readonly sourcePorts: FlowSourcePortCache;

  constructor(world: NetWorld, name: string, mac: number, options: VxlanOptions) {
    super(world, name, mac, options.mtu ?? 1500 - VXLAN_OVERHEAD);
    const vni = options.vni;
    if (!Number.isInteger(vni) || vni < 0 || vni > 0xffffff) throw new RangeError(`vxlan ${name}: vni ${vni} not in 0..16777215`);
    const port = options.dstPort ?? VXLAN_PORT_LINUX;
    if (!Number.isInteger(port) || port <= 0 || port > 65535) throw new RangeError(`vxlan ${name}: dstport ${port} not in 1..65535`);
    this.vni = vni;
    this.dstPort = port;
    this.local = (options.local ?? 0) >>> 0;
    this.learning = options.learning ?? true;
    this.ttl = options.ttl ?? 0;
    this.ttlInherit = options.ttlInherit ?? false;
    this.tos = options.tos ?? 0;
    this.df = options.df ?? VxlanDf.UNSET;
    this.udpCsum = options.udpCsum ?? true;
    const min = options.srcPortMin ?? 0;
    const max = options.srcPortMax ?? 0;
    this.srcPortMin = min < max ? min : EPHEMERAL_PORT_MIN;
    this.srcPortMax = min < max ? max : EPHEMERAL_PORT_MAX;
    this.localBypass = options.localBypass ?? true;
    this.flowHashSeed = options.flowHashSeed ?? world.flowHashKey;
    this.sourcePorts = new FlowSourcePortCache(this.flowHashSeed, this.srcPortMin, this.srcPortMax);
    this.fdb = new VxlanFdb(options.ageingNs ?? 300 * NS_PER_SECOND);
    const remote = (options.remote ?? 0) >>> 0;
    if (remote !== 0) this.fdb.replace(ALL_ZEROS_MAC, { ip: remote, port: 0, vni: 0 }, VxlanNud.PERMANENT, world.sim.now);
  }

  /** vxlan_open: binds (or joins) the UDP socket on dstPort in the device's namespace. Call after addDevice. */
  open(): Result<void, VxlanError> {
    const ns = this.stack;
    if (!(ns instanceof NetNamespace)) return err({ device: this.name, reason: "the device is in no namespace (add it to one first)" });
    if (this.socketNs === ns) return ok(undefined);
    this.close();
    const joined = joinSocket(ns, this.dstPort, this);
    if (!joined.ok) return err({ device: this.name, reason: joined.error.reason });
    this.socketNs = ns;
    return ok(undefined);
  }

  /** vxlan_stop: leaves the socket (the port is released with its last device). */
  close(): void {
    if (this.socketNs !== null) leaveSocket(this.socketNs, this.dstPort, this);
    this.socketNs = null;
  }

  // ---- FDB configuration as flanneld / `bridge fdb ... self` does it ------------------------------

  /** `bridge fdb append 00:00:00:00:00:00 dev vxlan0 dst IP`: adds a VTEP to the flood list. */
  appendFlood(remote: number): Result<VxlanFdbEntry, VxlanError> {
    return this.fdbResult(this.fdb.append(ALL_ZEROS_MAC, { ip: remote >>> 0, port: 0, vni: 0 }, VxlanNud.PERMANENT, this.world.sim.now));
  }

  /** flanneld's AddFDB (netlink NeighSet, NUD_PERMANENT, NTF_SELF): MAC -> VTEP, replacing any earlier remote. */
  setRemote(mac: number, remote: number, port = 0, vni = 0): VxlanFdbEntry {
    return this.fdb.replace(mac, { ip: remote >>> 0, port, vni }, VxlanNud.PERMANENT, this.world.sim.now);
  }

  /** `bridge fdb add MAC dev vxlan0 dst IP [static]`: fails when the MAC already has an entry. */
  addRemote(mac: number, remote: number, state: number = VxlanNud.PERMANENT): Result<VxlanFdbEntry, VxlanError> {
    return this.fdbResult(this.fdb.add(mac, { ip: remote >>> 0, port: 0, vni: 0 }, state, this.world.sim.now));
  }

  /** `bridge fdb del MAC dev vxlan0 [dst IP]`: one remote of the entry, or the whole entry. */
  deleteRemote(mac: number, remote = 0): boolean {
    return this.fdb.delete(mac, remote >>> 0, this.world.sim.now);
  }

  private fdbResult(r: Result<VxlanFdbEntry, { reason: string }>): Result<VxlanFdbEntry, VxlanError> {
    return r.ok ? r : err({ device: this.name, reason: r.error.reason });
  }

  // ---- transmit (vxlan_xmit) ----------------------------------------------------------------------

  protected xmit(skb: SkBuff): void {
    const ns = this.socketNs;
    if (ns === null) return this.txDrop(skb, DropReason.LINK_DOWN, "net/vxlan:not-open", "the device's UDP socket is not open");
    if (skb.length < ETH_HLEN) return this.txDrop(skb, DropReason.INVALID_PACKET, "net/vxlan:short", `${skb.length}-byte frame`);
    const now = this.world.sim.now;
    const dst = readMac(skb.data, skb.head);
    const f = this.fdb.lookupTxOrDefault(dst, now);
    const remotes = f?.remotes;
    if (remotes === undefined || remotes.length === 0) {
      return this.txDrop(skb, DropReason.NO_TUNNEL_ENDPOINT, "net/vxlan:no-fdb", "no FDB entry for the destination MAC and no all-zeros default");
    }
    if (remotes.length === 1) {
      this.xmitOne(ns, skb, remotes[0]!);
      return;
    }
    // Every remote but the first gets a copy, sent first; copies are made before anything leaves.
    const copies: SkBuff[] = [];
    for (let i = 1; i < remotes.length; i++) copies.push(skb.clone(this.world.ledger.admit()));
    for (let i = 1; i < remotes.length; i++) this.xmitOne(ns, copies[i - 1]!, remotes[i]!);
    this.xmitOne(ns, skb, remotes[0]!);
  }

  /** vxlan_xmit_one: encapsulate toward one remote VTEP. */
  private xmitOne(ns: NetNamespace, skb: SkBuff, rdst: VxlanRemote): void {
    const remote = rdst.ip;
    if (remote === 0) return this.txDrop(skb, DropReason.NO_TUNNEL_ENDPOINT, "net/vxlan:remote-any", "FDB entry without a remote address");
    const b = skb.data;
    const frame = skb.head;
    const dstPort = rdst.port !== 0 ? rdst.port : this.dstPort;
    const vni = rdst.vni !== 0 ? rdst.vni : this.vni;
    const innerIpv4 = skb.length >= ETH_HLEN + IPV4_HLEN && read16(b, frame + 12) === 0x0800;
    const innerTos = innerIpv4 ? b[frame + ETH_HLEN + 1]! : 0;
    const multicast = remote >>> 28 === 0xe;
    let ttl = this.ttlInherit ? (innerIpv4 ? b[frame + ETH_HLEN + 8]! : 0) : this.ttl !== 0 ? this.ttl : multicast ? 1 : 0;
    const tos = this.tos === 1 ? innerTos : this.tos;
    const srcPort = this.sourcePorts.sourcePort(b, frame, skb.tail);

    const route = ns.routes.lookup(remote);
    if (route === null || (route.type !== RouteType.UNICAST && route.type !== RouteType.LOCAL)) {
      this.tunnelStats.txCarrierErrors++;
      return this.txError(skb, DropReason.NO_ROUTE, "net/vxlan:no-route", `no route to the remote VTEP ${formatIPv4(remote)}`);
    }
    if (route.dev === this) return this.txError(skb, DropReason.NO_ROUTE, "net/vxlan:loop", "the route to the remote VTEP leads back into this device");
    if (route.type === RouteType.LOCAL && this.localBypass) return this.bypass(ns, skb, dstPort, vni);

    let df = false;
    if (this.df === VxlanDf.SET) df = true;
    else if (this.df === VxlanDf.INHERIT) df = read16(b, frame + 12) === 0x86dd || (innerIpv4 && (read16(b, frame + ETH_HLEN + 6) & 0x4000) !== 0);

    const mtu = ns.routeMtu(route) - VXLAN_OVERHEAD;
    // skb_tunnel_check_pmtu: a GSO super-packet whose segments fit passes.
    if (skb.length - ETH_HLEN > mtu && this.master !== null && mtuCheckLength(skb, skb.head + ETH_HLEN) > mtu && wantsFragNeeded(skb, mtu)) {
      this.pmtuReply(skb, mtu);
      return;
    }

    if (ttl === 0) ttl = ns.sysctl.ipDefaultTtl;
    const src = this.local !== 0 ? this.local : ns.routeSource(route, remote);
    const innerLength = skb.length;
    const ip = skb.push(VXLAN_HLEN + IPV4_HLEN);
    const data = skb.data;
    const udp = ip + IPV4_HLEN;
    const udpLength = 8 + 8 + innerLength;
    write16(data, udp, srcPort);
    write16(data, udp + 2, dstPort);
    write16(data, udp + 4, udpLength);
    write16(data, udp + 6, 0);
    write32(data, udp + 8, 0x08000000);
    write32(data, udp + 12, (vni << 8) >>> 0);
    const gso = skb.gsoSize !== 0;
    // A super-packet's outer UDP checksum is filled per segment (SKB_GSO_UDP_TUNNEL_CSUM).
    if (gso) skb.gsoType |= this.udpCsum ? GsoType.UDP_TUNNEL_CSUM : GsoType.UDP_TUNNEL;
    else if (this.udpCsum) setL4ChecksumV4(data, udp, udpLength, IPPROTO_UDP, src, remote);
    const id = ns.ipIdent.next(remote, src, IPPROTO_UDP, jiffiesAt(this.world.sim.now), gso ? skb.gsoSegs : 1);
    writeOuterIpv4(data, ip, ecnEncapsulate(tos, innerTos), IPV4_HLEN + udpLength, id, df, ttl, IPPROTO_UDP, src, remote);
    skb.ctState = 0; // skb_scrub_packet: nf_reset_ct
    skb.ctEntry = -1;
    skb.nextHop = 0;
    if (this.world.tracer.hops) this.world.hop(skb, this.site("encap"), TracePoint.TO_OVERLAY, `encap vxlan vni ${vni} sport ${srcPort}`, false);
    ns.outputIp(skb);
  }

  /** vxlan_encap_bypass: the remote VTEP is this namespace; hand the frame to the device for its VNI. */
  private bypass(ns: NetNamespace, skb: SkBuff, dstPort: number, vni: number): void {
    const target = findEndpoint(ns, dstPort, vni);
    if (!(target instanceof VxlanDevice)) {
      return this.txError(skb, DropReason.NO_TUNNEL_ENDPOINT, "net/vxlan:bypass", `no local VXLAN device with VNI ${vni} on port ${dstPort}`);
    }
    if (target.learning) this.countSnoop(target, target.fdb.snoop(readMac(skb.data, skb.head + 6), LOOPBACK_ADDR, this.world.sim.now));
    target.receive(skb);
  }

  /** A bridged VXLAN port answers an oversize DF packet itself; the original is dropped. */
  private pmtuReply(skb: SkBuff, mtu: number): void {
    const reply = buildFragNeeded(skb, mtu, this.world.ledger.admit());
    this.world.drop(skb, this.site("xmit"), DropReason.FRAG_NEEDED, "net/vxlan:pmtu", true, {
      explanation: `${skb.length - ETH_HLEN}-byte packet with DF over the tunnel MTU ${mtu}; ICMP fragmentation-needed returned`,
    });
    this.receive(reply);
  }

  private txDrop(skb: SkBuff, reason: number, site: string, explanation: string): void {
    this.stats.txDropped++;
    this.world.drop(skb, this.site("xmit"), reason, site, true, { explanation });
  }

  private txError(skb: SkBuff, reason: number, site: string, explanation: string): void {
    this.tunnelStats.txErrors++;
    this.world.drop(skb, this.site("xmit"), reason, site, true, { explanation });
  }

  // ---- receive (vxlan_rcv after the socket's checks) ------------------------------------------

  decapsulate(skb: SkBuff, info: SocketInfo): void {
    const vni = read32(skb.data, skb.head + 12) >>> 8;
    skb.pull(VXLAN_HLEN);
    skb.gsoType &= ~GSO_ENCAP_MASK; // iptunnel_pull_offloads
    skb.ctState = 0; // __iptunnel_pull_header scrubs conntrack state
    skb.ctEntry = -1;
    const b = skb.data;
    const frame = skb.head;
    const srcMac = readMac(b, frame + 6);
    if (srcMac === this.mac) return this.rxDrop(skb, DropReason.INVALID_PACKET, "net/vxlan:own-mac", "inner source MAC is this device's own (loop)");
    if (this.learning && !this.learnSource(skb, srcMac, info.src)) return;
    if (read16(b, frame + 12) === 0x0800 && !this.decapsulateEcn(skb, info)) return;
    skb.tunnelId = vni;
    skb.tunnelSrc = info.src;
    if (this.world.tracer.hops) this.world.hop(skb, this.site("decap"), TracePoint.FROM_OVERLAY, `decap vxlan vni ${vni}`, true);
    this.receive(skb);
  }

  /** FDB learning from a received frame: false (dropped) when the inner source may not be learned. */
  private learnSource(skb: SkBuff, srcMac: number, remote: number): boolean {
    const r = this.fdb.snoop(srcMac, remote, this.world.sim.now);
    if (r === SnoopResult.INVALID_SOURCE) {
      this.rxDrop(skb, DropReason.INVALID_PACKET, "net/vxlan:invalid-source", "inner source MAC is multicast or zero");
      return false;
    }
    if (r === SnoopResult.STATIC_CONFLICT) {
      this.rxDrop(skb, DropReason.VXLAN_FDB_STATIC, "net/vxlan:static-entry", "inner source MAC is bound to another VTEP by a static FDB entry");
      return false;
    }
    this.countSnoop(this, r);
    return true;
  }

  /** The inner IPv4 header's checks and ECN (RFC 6040) from the outer one: false when the frame is dropped. */
  private decapsulateEcn(skb: SkBuff, info: SocketInfo): boolean {
    const b = skb.data;
    if (skb.length < ETH_HLEN + IPV4_HLEN) {
      this.tunnelStats.rxErrors++;
      this.rxDrop(skb, DropReason.INVALID_PACKET, "net/vxlan:inner-ipv4", "inner IPv4 header truncated");
      return false;
    }
    const inner = skb.head + ETH_HLEN;
    const e = ecnDecapsulate(b[info.ipOffset + 1]!, b[inner + 1]!);
    if (e === EcnDecap.DROP) {
      this.tunnelStats.rxFrameErrors++;
      this.tunnelStats.rxErrors++;
      this.rxDrop(skb, DropReason.INVALID_PACKET, "net/vxlan:ecn", "outer CE on a non-ECN-capable inner packet");
      return false;
    }
    if (e === EcnDecap.SET_CE) setCe(b, inner);
    return true;
  }

  private rxDrop(skb: SkBuff, reason: number, site: string, explanation: string): void {
    this.world.drop(skb, this.site("vxlan-rcv"), reason, site, true, { explanation });
  }

  private countSnoop(dev: VxlanDevice, r: SnoopResult): void {
    if (r === SnoopResult.CREATED) dev.tunnelStats.learned++;
    else if (r === SnoopResult.MIGRATED) dev.tunnelStats.migrated++;
  }
}

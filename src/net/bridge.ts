// BridgeDevice: the Linux bridge (net/bridge). Ports hand it their received frames; it learns
// source MACs into its FDB, forwards known unicast to one port, floods unknown unicast, broadcast and
// multicast to every other port, passes frames for its own addresses (and broadcast/multicast) up to
// its namespace as the bridge device, and forwards by FDB what that namespace transmits on it.
// With bridge-nf-call-iptables on, bridged IPv4 frames traverse iptables (see bridge/br-netfilter).
// A bridge without a namespace is a plain L2 switch (an underlay segment).

import { DropReason, TracePoint } from "../../datapath/reasons.js";
import type { SkBuff } from "../skb/skbuff.js";
import { BROADCAST_MAC, isGroupMac, readMac, writeMac } from "../util/mac.js";
import { err, ok, type Result } from "../util/result.js";
import { DeviceKind, NetDevice, type MasterPort } from "./device.js";
import type { NetWorld } from "./world.js";
import { NfVerdict } from "./netfilter/hooks.js";
import { NetNamespace } from "./stack/namespace.js";
import { NUD_VALID } from "./stack/neighbour.js";
import { RouteType } from "./stack/route-table.js";
import {
  bridgeForwardHooks,
  bridgePrerouting,
  brNetfilterHost,
  ETH_HLEN,
  frameIpv4Dst,
  isIpv4Frame,
  validateIpv4,
} from "./bridge/br-netfilter.js";
import { BridgeFdb, FDB_PORT_BRIDGE, FdbFlag, FdbSlotMemo, LearnResult, type FdbEntryView } from "./bridge/fdb.js";
import { BridgePort, type BridgePortFlags } from "./bridge/port.js";

export { BridgeFdb, FdbFlag, FDB_PORT_BRIDGE, LearnResult, type FdbEntryView } from "./bridge/fdb.js";
export { BridgePort, DEFAULT_PORT_FLAGS, type BridgePortFlags } from "./bridge/port.js";

const NS_PER_SECOND = 1_000_000_000;
/** ageing_time default: 300 s (BR_DEFAULT_AGEING_TIME). */
export const DEFAULT_AGEING_NS = 300 * NS_PER_SECOND;
const ETH_DATA_LEN = 1500;
/** is_skb_forwardable allows mtu + Ethernet header + one VLAN tag. */
const VLAN_HLEN = 4;
/** 01:80:c2:00:00:00 .. 0f, the IEEE 802.1D reserved (link-local) group addresses. */
const LINK_LOCAL_BASE = 0x0180c2000000;

/** br_pkt_type. */
const PktType = { UNICAST: 0, MULTICAST: 1, BROADCAST: 2 } as const;
type PktType = (typeof PktType)[keyof typeof PktType];

export interface BridgeOptions {
  /** ageing_time in ns (default 300 s); 0 disables learning ("always flood"). */
  readonly ageingNs?: number;
  /**
   * True when the bridge's MAC was set explicitly (NET_ADDR_SET). Otherwise, as the kernel does for
   * `ip link add br0 type bridge`, the bridge takes the lowest MAC among its ports.
   */
  readonly macSet?: boolean;
  /** An MTU set by the user; otherwise the bridge follows the smallest port MTU (1500 without ports). */
  readonly mtu?: number;
  /** IFF_PROMISC on the bridge device (e.g. tcpdump on it): every bridged frame is also passed up. */
  readonly promisc?: boolean;
}

export interface BridgeError {
  readonly bridge: string;
  readonly device: string;
  readonly reason: string;
}

export interface BridgeStats {
  /** Frames sent to one port by an FDB hit. */
  forwarded: number;
  /** Frames flooded (each counts once, however many copies). */
  flooded: number;
  /** Frames handed up to the bridge device's namespace. */
  passedUp: number;
  learned: number;
  moved: number;
  /** Frames not forwarded because the FDB points back at the ingress port. */
  filtered: number;
}

export class BridgeDevice extends NetDevice implements MasterPort {
  readonly kind = DeviceKind.BRIDGE;
  readonly fdb: BridgeFdb;
  readonly bridgeStats: BridgeStats = { forwarded: 0, flooded: 0, passedUp: 0, learned: 0, moved: 0, filtered: 0 };
  promisc: boolean;
  private macSet: boolean;
  private mtuSet: boolean;
  /** Port table by index (null = removed); FDB entries store the index. */
  private readonly portTable: (BridgePort | null)[] = [];
  /** Ports by their device's ifindex (a sparse array: ifindexes are small, and it is read per frame). */
  private readonly byIfindex: (BridgePort | undefined)[] = [];
  /** Ports in the kernel's port_list order (newest first), the order floods visit them. */
  private floodOrder: BridgePort[] = [];
  /** Per-recursion-depth scratch lists of flood targets (a flood may re-enter the bridge). */
  private readonly scratch: BridgePort[][] = [];
  private depth = 0;
  /** FDB slot of the last destination the bridge device itself sent to. */
  private readonly xmitSlot = new FdbSlotMemo();

  constructor(world: NetWorld, name: string, mac: number, options: BridgeOptions = {}) {
    super(world, name, mac, options.mtu ?? ETH_DATA_LEN);
    this.fdb = new BridgeFdb(options.ageingNs ?? DEFAULT_AGEING_NS);
    this.macSet = options.macSet ?? false;
    this.mtuSet = options.mtu !== undefined;
    this.promisc = options.promisc ?? false;
    this.fdb.set(mac, FDB_PORT_BRIDGE, FdbFlag.LOCAL | FdbFlag.STATIC, world.sim.now);
  }

  // ---- configuration (`ip link set dev X master br0`, `bridge link`, `bridge fdb`) ---------------

  /** Enslaves dev (br_add_if): its MAC becomes a local FDB entry; MTU and bridge MAC are recomputed. */
  addPort(dev: NetDevice, flags: Partial<BridgePortFlags> = {}): Result<BridgePort, BridgeError> {
    const fail = (reason: string): Result<BridgePort, BridgeError> => err({ bridge: this.name, device: dev.name, reason });
    if (dev === this || dev.kind === DeviceKind.BRIDGE) return fail("a bridge cannot be a bridge port (ELOOP)");
    if (!dev.l2 || dev.kind === DeviceKind.LOOPBACK) return fail("only Ethernet devices can be bridge ports (EINVAL)");
    if (dev.master !== null) return fail("device is already enslaved (EBUSY)");
    const port = new BridgePort(dev, this.portTable.length, flags);
    this.portTable.push(port);
    this.byIfindex[dev.ifindex] = port;
    this.floodOrder = [port, ...this.floodOrder];
    dev.master = this;
    this.addLocal(dev.mac, port.index);
    this.recalcMtu();
    this.recalcMac();
    return ok(port);
  }

  /** Releases dev (br_del_if): forgets every FDB entry through it, recomputes MTU and MAC. */
  removePort(dev: NetDevice): boolean {
    const port = this.byIfindex[dev.ifindex];
    if (port === undefined) return false;
    this.byIfindex[dev.ifindex] = undefined;
    this.portTable[port.index] = null;
    this.floodOrder = this.floodOrder.filter((p) => p !== port);
    dev.master = null;
    this.fdb.deleteByPort(port.index, true);
    if (this.fdb.find(this.mac, this.world.sim.now) < 0) this.addLocal(this.mac, FDB_PORT_BRIDGE);
    this.recalcMtu();
    this.recalcMac();
    return true;
  }

  port(dev: NetDevice): BridgePort | undefined {
    return this.byIfindex[dev.ifindex];
  }

  get ports(): readonly BridgePort[] {
    return this.floodOrder;
  }

  /** `ip link set br0 address MAC`: fixes the bridge's MAC (it no longer follows its ports). */
  setAddress(mac: number): void {
    this.macSet = true;
    this.changeMac(mac);
  }

  /** `ip link set br0 mtu N`: fixes the MTU (BROPT_MTU_SET_BY_USER). */
  setMtu(mtu: number): void {
    this.mtuSet = true;
    this.mtu = mtu;
  }

  /** br_mtu_auto_adjust: the smallest port MTU, unless the user set one. Call after a port's MTU changes. */
  recalcMtu(): void {
    if (this.mtuSet) return;
    let min = 0;
    for (const p of this.floodOrder) if (min === 0 || p.dev.mtu < min) min = p.dev.mtu;
    this.mtu = min === 0 ? ETH_DATA_LEN : min;
  }

  /** `bridge fdb add MAC dev PORT master static`: a static entry (never ages, still moved by learning). */
  addStatic(mac: number, dev: NetDevice, sticky = false): Result<number, BridgeError> {
    const port = this.byIfindex[dev.ifindex];
    if (port === undefined) return err({ bridge: this.name, device: dev.name, reason: "not a port of this bridge" });
    const flags = FdbFlag.STATIC | FdbFlag.ADDED_BY_USER | (sticky ? FdbFlag.STICKY : 0);
    return ok(this.fdb.set(mac, port.index, flags, this.world.sim.now));
  }

  /** `bridge fdb show br br0`: live entries with the port device (null = the bridge itself). */
  fdbEntries(): (FdbEntryView & { readonly dev: NetDevice | null })[] {
    return this.fdb.entries(this.world.sim.now).map((e) => ({ ...e, dev: e.port < 0 ? null : (this.portTable[e.port]?.dev ?? null) }));
  }

  // ---- frames from ports (br_handle_frame) -------------------------------------------------

  handleFrame(dev: NetDevice, skb: SkBuff): void {
    const port = this.byIfindex[dev.ifindex];
    if (port === undefined) {
      this.world.drop(skb, dev.site("bridge"), DropReason.NO_STACK, "net/bridge:not-a-port", true);
      return;
    }
    if (!this.up) {
      this.world.drop(skb, this.site("rx"), DropReason.LINK_DOWN, "net/bridge:down", true);
      return;
    }
    if (skb.length < ETH_HLEN) {
      this.world.drop(skb, this.site("rx"), DropReason.INVALID_PACKET, "net/bridge:short", true, { explanation: `eth.header at byte 0: truncated, ${skb.length} bytes` });
      return;
    }
    const b = skb.data;
    const src = readMac(b, skb.head + 6);
    if (src === 0 || isGroupMac(src)) {
      this.world.drop(skb, this.site("rx"), DropReason.INVALID_PACKET, "net/bridge:invalid-source", true, { explanation: "eth.src at byte 6: multicast or zero source MAC" });
      return;
    }
    const dst = readMac(b, skb.head);
    const reserved = dst - LINK_LOCAL_BASE;
    if (reserved >= 1 && reserved <= 15) {
      this.linkLocal(port, skb, src, reserved);
      return;
    }
    this.frameFinish(port, skb, src, dst);
  }

  /** Reserved group addresses (STP off, group_fwd_mask 0): pause dropped, the rest learned but not bridged. */
  private linkLocal(port: BridgePort, skb: SkBuff, src: number, reserved: number): void {
    if (reserved !== 1 && port.learning) this.learn(port, src);
    this.world.drop(skb, this.site("rx"), DropReason.UNSUPPORTED_L2, reserved === 1 ? "net/bridge:pause" : "net/bridge:link-local", true, {
      explanation: `01:80:c2:00:00:${reserved.toString(16).padStart(2, "0")} is a link-local group address the bridge does not forward`,
    });
  }

  /** br_handle_frame_finish (with br_netfilter's PREROUTING in front for bridged IPv4). */
  private frameFinish(port: BridgePort, skb: SkBuff, src: number, dst: number): void {
    const now = this.world.sim.now;
    let pktType: PktType = PktType.UNICAST;
    let slot = -1;
    if (isGroupMac(dst)) pktType = dst === BROADCAST_MAC ? PktType.BROADCAST : PktType.MULTICAST;
    else slot = this.fdb.findVia(port.dstSlot, dst, now);
    let toLocal = slot >= 0 && (this.fdb.flagsAt(slot) & FdbFlag.LOCAL) !== 0;
    // br_netfilter's PREROUTING runs on every bridged IPv4 frame, including those for the bridge's
    // own MAC; the namespace's ip_rcv then does not run it again (ip_sabotage_in).
    const nf = brNetfilterHost(this.namespace());
    let filtered = false;
    if (nf !== null && isIpv4Frame(skb)) {
      const bad = validateIpv4(skb);
      if (bad !== 0) {
        this.world.drop(skb, this.site("br-netfilter"), bad, "net/bridge/netfilter:validate", true);
        return;
      }
      const before = frameIpv4Dst(skb);
      if (bridgePrerouting(nf, this, skb) !== NfVerdict.ACCEPT) return;
      skb.brNfPrerouted = true;
      filtered = true;
      if (frameIpv4Dst(skb) !== before) {
        slot = this.bridgedDnat(nf, skb, now);
        if (slot === -2) {
          if (port.learning) this.learn(port, src);
          this.passUp(skb);
          return;
        }
        pktType = PktType.UNICAST;
        toLocal = slot >= 0 && (this.fdb.flagsAt(slot) & FdbFlag.LOCAL) !== 0;
      }
    }
    if (port.learning) this.learn(port, src);
    if (toLocal) {
      this.passUp(skb);
      return;
    }
    // A switch without a namespace has no CPU port: nothing is passed up.
    const localRcv = this.stack !== null && (this.promisc || pktType !== PktType.UNICAST);
    if (slot >= 0) {
      this.fdb.touch(slot, now);
      const to = this.portTable[this.fdb.portAt(slot)] ?? null;
      this.forward(to, skb, port, localRcv, filtered);
    } else {
      this.flood(skb, pktType, port, localRcv, filtered);
    }
  }

  /**
   * br_nf_pre_routing_finish after a DNAT changed the destination: when the new destination is
   * reached through this bridge and its neighbour is known, the frame stays bridged with that MAC
   * (bridged DNAT) and the new FDB slot is returned (-1 = unknown, flood); otherwise the frame is
   * addressed to the bridge and goes up to be routed (-2).
   */
  private bridgedDnat(ns: NetNamespace, skb: SkBuff, now: number): number {
    const daddr = frameIpv4Dst(skb);
    const route = ns.routes.lookup(daddr);
    if (route !== null && route.dev === this && route.type === RouteType.UNICAST) {
      const n = ns.neigh.lookup(this, route.via !== 0 ? route.via : daddr);
      if (n !== undefined && (n.state & NUD_VALID) !== 0) {
        writeMac(skb.data, skb.head, n.mac);
        return this.fdb.find(n.mac, now);
      }
    }
    writeMac(skb.data, skb.head, this.mac);
    return -2;
  }

  // ---- frames the namespace sends on the bridge device (br_dev_xmit) ----------------------

  protected xmit(skb: SkBuff): void {
    if (skb.length < ETH_HLEN) {
      this.world.drop(skb, this.site("xmit"), DropReason.INVALID_PACKET, "net/bridge:xmit-short", true);
      return;
    }
    const dst = readMac(skb.data, skb.head);
    if (isGroupMac(dst)) {
      this.flood(skb, dst === BROADCAST_MAC ? PktType.BROADCAST : PktType.MULTICAST, null, false, false);
      return;
    }
    const slot = this.fdb.findVia(this.xmitSlot, dst, this.world.sim.now);
    if (slot < 0) {
      this.flood(skb, PktType.UNICAST, null, false, false);
      return;
    }
    const index = this.fdb.portAt(slot);
    this.forward(index === FDB_PORT_BRIDGE ? null : (this.portTable[index] ?? null), skb, null, false, false);
  }

  // ---- forwarding (br_forward.c) ------------------------------------------------------------

  /** br_forward: to one port; with localRcv a copy goes to the port and the original up. */
  private forward(to: BridgePort | null, skb: SkBuff, from: BridgePort | null, localRcv: boolean, filtered: boolean): void {
    if (to === null || !this.shouldDeliver(to, from)) {
      if (to !== null && to === from) this.bridgeStats.filtered++;
      if (localRcv) this.passUp(skb);
      else this.dropUndeliverable(skb, to, from);
      return;
    }
    this.bridgeStats.forwarded++;
    if (localRcv) {
      const copy = skb.clone(this.world.ledger.admit());
      copy.ctState = 0;
      copy.ctEntry = -1;
      this.deliver(to, skb, filtered);
      this.passUp(copy);
      return;
    }
    this.deliver(to, skb, filtered);
  }

  /** br_flood: a copy to every eligible port, the original to the last (or up when localRcv). */
  private flood(skb: SkBuff, pktType: PktType, from: BridgePort | null, localRcv: boolean, filtered: boolean): void {
    const targets = this.scratch[this.depth] ?? (this.scratch[this.depth] = []);
    targets.length = 0;
    const localOrig = from === null;
    for (const p of this.floodOrder) {
      if (pktType === PktType.UNICAST ? !p.flood : pktType === PktType.MULTICAST ? !p.mcastFlood && !localOrig : !p.bcastFlood && !localOrig) continue;
      if (this.shouldDeliver(p, from)) targets.push(p);
    }
    const n = targets.length;
    if (n === 0) {
      if (localRcv) this.passUp(skb);
      else this.dropUndeliverable(skb, null, from);
      return;
    }
    this.bridgeStats.flooded++;
    // Copy before anything leaves: a delivered frame may be rewritten (NAT) or re-enter this bridge.
    const copies = localRcv ? n : n - 1;
    const clones: SkBuff[] = [];
    for (let i = 0; i < copies; i++) clones.push(skb.clone(this.world.ledger.admit()));
    this.depth++;
    try {
      for (let i = 0; i < n; i++) this.deliver(targets[i]!, i < copies ? clones[i]! : skb, filtered);
    } finally {
      this.depth--;
      targets.length = 0;
    }
    if (localRcv) {
      skb.ctState = 0;
      skb.ctEntry = -1;
      this.passUp(skb);
    }
  }

  /** should_deliver: hairpin or another port, forwarding state, isolation. */
  private shouldDeliver(to: BridgePort, from: BridgePort | null): boolean {
    if (from !== null && to === from && !to.hairpin) return false;
    if (!to.forwarding) return false;
    return !(from !== null && from.isolated && to.isolated);
  }

  private dropUndeliverable(skb: SkBuff, to: BridgePort | null, from: BridgePort | null): void {
    if (to !== null && to === from) {
      this.world.drop(skb, this.site("forward"), DropReason.BRIDGE_FILTERED, "net/bridge:same-port", true, {
        explanation: `destination MAC is behind the ingress port ${from.dev.name} (hairpin off)`,
      });
    } else if (to !== null && !to.forwarding) {
      this.world.drop(skb, this.site("forward"), DropReason.LINK_DOWN, "net/bridge:port-down", true, { explanation: `port ${to.dev.name} is down` });
    } else if (to === null && from === null && this.floodOrder.length > 0) {
      this.world.drop(skb, this.site("xmit"), DropReason.NOT_FOR_HOST, "net/bridge:own-address", true, { explanation: "sent to one of the bridge's own MACs" });
    } else {
      this.world.drop(skb, this.site("forward"), DropReason.BRIDGE_FILTERED, "net/bridge:no-target", true, { explanation: "no port to forward or flood to" });
    }
  }

  /** __br_forward + br_forward_finish + br_dev_queue_push_xmit for one copy. */
  private deliver(to: BridgePort, skb: SkBuff, filtered: boolean): void {
    if (filtered) {
      const ns = this.namespace();
      if (ns !== null && bridgeForwardHooks(ns, this, skb) !== NfVerdict.ACCEPT) return;
    }
    const dev = to.dev;
    // is_skb_forwardable: a GSO super-packet is forwarded whatever its length (its segments are checked where they leave).
    if (skb.length > dev.mtu + ETH_HLEN + VLAN_HLEN && skb.gsoSize === 0) {
      this.world.drop(skb, dev.site("bridge"), DropReason.MTU_EXCEEDED, "net/bridge:mtu", true, {
        explanation: `${skb.length}-byte frame over ${dev.name} MTU ${dev.mtu}`,
      });
      return;
    }
    if (this.world.tracer.hops) this.world.hop(skb, this.site("forward"), TracePoint.BRIDGE_FORWARD, `to ${dev.name}`, true);
    dev.transmit(skb);
  }

  /** br_pass_frame_up: the frame is received by the bridge device itself (its namespace, taps, hooks). */
  private passUp(skb: SkBuff): void {
    this.bridgeStats.passedUp++;
    this.receive(skb);
  }

  private learn(port: BridgePort, src: number): void {
    const r = this.fdb.learnVia(port.srcSlot, src, port.index, this.world.sim.now);
    if (r === LearnResult.CREATED) this.bridgeStats.learned++;
    else if (r === LearnResult.MOVED) this.bridgeStats.moved++;
  }

  private namespace(): NetNamespace | null {
    return this.stack instanceof NetNamespace ? this.stack : null;
  }

  // ---- own addresses -------------------------------------------------------------------------

  /** fdb_add_local: a local entry wins over a learned one; an existing local entry is kept. */
  private addLocal(mac: number, portIndex: number): void {
    const now = this.world.sim.now;
    const slot = this.fdb.find(mac, now);
    if (slot >= 0 && (this.fdb.flagsAt(slot) & FdbFlag.LOCAL) !== 0) return;
    this.fdb.set(mac, portIndex, FdbFlag.LOCAL | FdbFlag.STATIC, now);
  }

  /** br_stp_recalculate_bridge_id: without a user-set MAC the bridge takes its lowest port MAC. */
  private recalcMac(): void {
    if (this.macSet || this.floodOrder.length === 0) return;
    let min = -1;
    for (const p of this.floodOrder) if (min < 0 || p.dev.mac < min) min = p.dev.mac;
    if (min !== this.mac) this.changeMac(min);
  }

  /** br_fdb_change_mac_address: the old bridge-only entry goes, a local entry for the new MAC comes. */
  private changeMac(mac: number): void {
    const now = this.world.sim.now;
    const old = this.fdb.find(this.mac, now);
    if (old >= 0 && this.fdb.portAt(old) === FDB_PORT_BRIDGE && (this.fdb.flagsAt(old) & FdbFlag.ADDED_BY_USER) === 0) {
      this.fdb.delete(this.mac, now);
    }
    this.mac = mac;
    this.addLocal(mac, FDB_PORT_BRIDGE);
  }
}

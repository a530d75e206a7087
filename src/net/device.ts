// NetDevice: the base of every interface in the model. Owns the receive and transmit paths
// common to all devices (counters, capture taps, tc/XDP hooks, handing frames to a bridge
// master or to the namespace's stack); each device kind supplies only how it transmits.

import { DropReason } from "../../datapath/reasons.js";
import { consumeSkb } from "../skb/buffer-pool.js";
import { gsoSegment } from "../skb/gso.js";
import type { SkBuff } from "../skb/skbuff.js";
import { DeliveryKind } from "../trace/ledger.js";
import { HookPoint, TcVerdict, type AttachedProgram } from "./hook.js";
import type { NetWorld } from "./world.js";

/** The namespace (host stack) side a device delivers received frames to. */
export interface StackPort {
  readonly name: string;
  /** Node this namespace belongs to, as drop and trace records name it. */
  readonly nodeName: string;
  /** A frame (or IP packet on L3 devices) arrived on dev and passed its ingress hooks. */
  input(dev: NetDevice, skb: SkBuff): void;
  /** Looks up an interface of this namespace by index (for program redirects). */
  deviceByIndex(ifindex: number): NetDevice | undefined;
}

/** A bridge (or other master) that takes frames from its enslaved ports. */
export interface MasterPort {
  handleFrame(port: NetDevice, skb: SkBuff): void;
}

/** Something watching a device's traffic (pcap writers, tests). Sees the bytes, must not keep the view. */
export interface CaptureTap {
  onFrame(dev: NetDevice, direction: "rx" | "tx", skb: SkBuff, timeNs: number): void;
}

export interface DeviceStats {
  rxPackets: number;
  rxBytes: number;
  txPackets: number;
  txBytes: number;
  rxDropped: number;
  txDropped: number;
  /** GSO super-packets this device received as one GRO-merged skb, and the wire segments they held. */
  rxGroPackets: number;
  rxGroSegments: number;
  /** GSO super-packets this device segmented in software because it lacks the offload (validate_xmit_skb). */
  txGsoSegmented: number;
}

/**
 * Offload features (`ethtool -k`): `gso` = the device takes GSO/TSO super-packets (tx-tcp-segmentation,
 * tx-udp_tnl-segmentation, ...; a device without it gets them segmented in software before its taps
 * and driver); `gro` = a NIC merges the segments of a super-packet arriving over its link into one
 * skb. On by default, as on Linux's veth, bridge, vxlan, ipip and common NICs.
 */
export interface DeviceFeatures {
  gso: boolean;
  gro: boolean;
}

export const DeviceKind = {
  ETHERNET: "ether",
  VETH: "veth",
  BRIDGE: "bridge",
  VXLAN: "vxlan",
  IPIP: "ipip",
  LOOPBACK: "loopback",
  MACVLAN: "macvlan",
} as const;
export type DeviceKind = (typeof DeviceKind)[keyof typeof DeviceKind];

/** Bumped whenever any device goes up or down: route lookups cache their answers against it. */
let linkStateEpoch = 0;

/** Changes each time some device's up state changes. */
export function linkStateVersion(): number {
  return linkStateEpoch;
}

export abstract class NetDevice {
  readonly ifindex: number;
  abstract readonly kind: DeviceKind;
  /** True when frames carry an Ethernet header; false for L3 devices such as tunl0. */
  readonly l2: boolean = true;
  /**
   * What receive and transmit read per frame, in one object of one class: the device classes are many,
   * so reads on `this` in these shared paths are megamorphic, while reads on this object stay
   * monomorphic. The up, stack and master properties are views of it.
   */
  private readonly io: DeviceIo;

  get up(): boolean {
    return this.io.isUp;
  }

  set up(value: boolean) {
    if (value === this.io.isUp) return;
    this.io.isUp = value;
    linkStateEpoch++;
  }

  /** The namespace the device delivers to (null when it is in none). */
  get stack(): StackPort | null {
    return this.io.stack;
  }
  set stack(value: StackPort | null) {
    this.io.stack = value;
  }

  /** The bridge (or other master) it is enslaved to. */
  get master(): MasterPort | null {
    return this.io.master;
  }
  set master(value: MasterPort | null) {
    this.io.master = value;
  }

  // Hooks stay plain fields: they are read per frame only when set, and the metrics read them for every device.
  xdp: AttachedProgram | null = null;
  tcIngress: AttachedProgram | null = null;
  tcEgress: AttachedProgram | null = null;

  readonly taps: CaptureTap[] = [];
  readonly stats: DeviceStats = {
    rxPackets: 0, rxBytes: 0, txPackets: 0, txBytes: 0, rxDropped: 0, txDropped: 0, rxGroPackets: 0, rxGroSegments: 0, txGsoSegmented: 0,
  };
  readonly features: DeviceFeatures = { gso: true, gro: true };

  constructor(
    readonly world: NetWorld,
    readonly name: string,
    public mac: number,
    public mtu: number,
  ) {
    this.ifindex = world.allocIfindex();
    this.io = new DeviceIo(this.ifindex, this.stats, this.taps, this.features, world);
  }

  get nodeName(): string {
    return this.stack?.nodeName ?? "";
  }

  /** A frame arrives from the medium (peer veth, link, tunnel decap). */
  receive(skb: SkBuff): void {
    const io = this.io;
    const stats = io.stats;
    if (!io.isUp) {
      stats.rxDropped++;
      this.dropReceived(skb, DropReason.LINK_DOWN, "net/device:rx-down");
      return;
    }
    stats.rxPackets++;
    stats.rxBytes += skb.tail - skb.head;
    skb.ifindex = io.ifindex;
    skb.hops++;
    const taps = io.taps;
    for (let i = 0; i < taps.length; i++) taps[i]!.onFrame(this, "rx", skb, io.world.sim.now);
    if ((this.xdp !== null || this.tcIngress !== null) && !this.ingressHooks(skb)) return;
    if (io.master !== null) io.master.handleFrame(this, skb);
    else if (io.stack !== null) io.stack.input(this, skb);
    else this.dropReceived(skb, DropReason.NO_STACK, "net/device:rx-no-stack");
  }

  /** XDP, then tc ingress: true when the packet goes on up the receive path. */
  private ingressHooks(skb: SkBuff): boolean {
    if (this.xdp !== null && !this.runHook(this.xdp, skb, HookPoint.XDP)) return false;
    return this.tcIngress === null || this.runHook(this.tcIngress, skb, HookPoint.TC_INGRESS);
  }

  /** A received frame goes no further (the device is down, or it has nowhere to deliver it). */
  private dropReceived(skb: SkBuff, reason: number, site: string): void {
    this.world.drop(skb, this.site("rx"), reason, site, this.l2);
  }

  /** The stack or a bridge sends a frame out of this device. */
  transmit(skb: SkBuff): void {
    skb.brNfPrerouted = false;
    const io = this.io;
    const stats = io.stats;
    if (!io.isUp) {
      stats.txDropped++;
      this.world.drop(skb, this.site("tx"), DropReason.LINK_DOWN, "net/device:tx-down", this.l2);
      return;
    }
    if (this.tcEgress !== null && !this.runHook(this.tcEgress, skb, HookPoint.TC_EGRESS)) return;
    if (skb.gsoSize !== 0 && !io.features.gso) {
      this.segmentAndXmit(skb);
      return;
    }
    stats.txPackets++;
    stats.txBytes += skb.tail - skb.head;
    const taps = io.taps;
    for (let i = 0; i < taps.length; i++) taps[i]!.onFrame(this, "tx", skb, io.world.sim.now);
    this.xmit(skb);
  }

  /** validate_xmit_skb on a device without GSO: the super-packet leaves as its segments. */
  private segmentAndXmit(skb: SkBuff): void {
    const ledger = this.world.ledger;
    const l3 = skb.head + (this.l2 ? 14 : 0);
    const segments = gsoSegment(skb, l3, () => ledger.admit());
    if (segments === null) {
      this.stats.txDropped++;
      this.world.drop(skb, this.site("tx"), DropReason.INVALID_PACKET, "net/device:gso-segment", this.l2, {
        explanation: `GSO packet of ${skb.length} bytes without parsable IPv4/TCP headers`,
      });
      return;
    }
    this.stats.txGsoSegmented++;
    ledger.deliver(DeliveryKind.SPLIT);
    consumeSkb(skb);
    for (const seg of segments) {
      this.stats.txPackets++;
      this.stats.txBytes += seg.length;
      for (const tap of this.taps) tap.onFrame(this, "tx", seg, this.world.sim.now);
      this.xmit(seg);
    }
  }

  /** Puts the frame on the medium. */
  protected abstract xmit(skb: SkBuff): void;

  site(hook: string): { node: string; device: string; hook: string } {
    return { node: this.nodeName, device: this.name, hook };
  }

  /** Runs a hook program; returns true when the packet continues on the normal path. */
  private runHook(prog: AttachedProgram, skb: SkBuff, point: HookPoint): boolean {
    const verdict = prog.run(skb, this, point);
    if (verdict === TcVerdict.OK) return true;
    if (verdict === TcVerdict.REDIRECT) {
      const target = this.stack?.deviceByIndex(prog.redirectIfindex);
      if (target === undefined) {
        this.world.drop(skb, this.site(point), DropReason.NO_REDIRECT_TARGET, `datapath/${prog.name}:redirect`, this.l2);
      } else if (prog.redirectIngress) target.receive(skb);
      else target.transmit(skb);
      return false;
    }
    const explanation = prog.dropExplanation;
    this.world.drop(skb, this.site(point), prog.dropReason, prog.dropSite, this.l2, {
      ...(explanation !== undefined ? { explanation } : {}),
      dstIdentity: prog.dropDstIdentity ?? 0,
    });
    return false;
  }
}

/** NetDevice's per-frame state (see NetDevice.io). */
class DeviceIo {
  isUp = true;
  stack: StackPort | null = null;
  master: MasterPort | null = null;

  constructor(
    readonly ifindex: number,
    readonly stats: DeviceStats,
    readonly taps: CaptureTap[],
    readonly features: DeviceFeatures,
    readonly world: NetWorld,
  ) {}
}

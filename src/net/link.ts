// Link: a full-duplex wire between two devices with bandwidth (serialization delay),
// propagation latency, MTU, a bounded transmit queue with tail drop, optional seeded loss,
// and an up/down state. Each direction queues independently.

import { DropReason } from "../../datapath/reasons.js";
import type { SkBuff } from "../skb/skbuff.js";
import type { NetDevice } from "./device.js";
import type { NetWorld } from "./world.js";

/** Bytes a frame occupies on an Ethernet wire beyond its header+payload: preamble 8, FCS 4, gap 12. */
export const ETHERNET_WIRE_OVERHEAD = 24;

export interface LinkParams {
  /** Bits per second. */
  readonly bandwidthBps: number;
  /** One-way propagation delay in ns. */
  readonly latencyNs: number;
  /** Largest L3 packet the link carries (frame length minus the 14-byte Ethernet header). */
  readonly mtu: number;
  /** Transmit queue capacity in bytes (Linux's default txqueuelen 1000 x a full frame). */
  readonly queueBytes: number;
  /** Probability in [0, 1) that a frame is lost (seeded RNG). */
  readonly lossRate: number;
}

export const DEFAULT_LINK: LinkParams = {
  bandwidthBps: 10e9,
  latencyNs: 50_000,
  mtu: 1500,
  queueBytes: 1000 * 1514,
  lossRate: 0,
};

export interface LinkDirectionStats {
  sent: number;
  delivered: number;
  queueDrops: number;
  mtuDrops: number;
  lost: number;
  bytes: number;
}

class LinkDirection {
  busyUntil = 0;
  readonly stats: LinkDirectionStats = { sent: 0, delivered: 0, queueDrops: 0, mtuDrops: 0, lost: 0, bytes: 0 };
  readonly deliver: (skb: unknown) => void;

  constructor(
    private readonly link: Link,
    readonly from: NetDevice,
    readonly to: NetDevice,
  ) {
    this.deliver = (arg: unknown) => this.arrive(arg as SkBuff);
  }

  send(skb: SkBuff): void {
    const link = this.link;
    const world = link.world;
    const p = link.params;
    const where = this.from.site("link");
    if (!link.up) {
      world.drop(skb, where, DropReason.LINK_DOWN, "net/link:down", this.from.l2);
      return;
    }
    const l3Length = skb.length - (this.from.l2 ? 14 : 0);
    if (l3Length > p.mtu) {
      this.stats.mtuDrops++;
      world.drop(skb, where, DropReason.MTU_EXCEEDED, "net/link:mtu", this.from.l2);
      return;
    }
    const now = world.sim.now;
    const wireBytes = skb.length + (this.from.l2 ? ETHERNET_WIRE_OVERHEAD : 0);
    const backlogNs = this.busyUntil > now ? this.busyUntil - now : 0;
    const backlogBytes = (backlogNs * p.bandwidthBps) / 8e9;
    if (backlogBytes + wireBytes > p.queueBytes) {
      this.stats.queueDrops++;
      world.drop(skb, where, DropReason.QUEUE_FULL, "net/link:queue", this.from.l2);
      return;
    }
    const serializationNs = Math.ceil((wireBytes * 8e9) / p.bandwidthBps);
    this.busyUntil = now + backlogNs + serializationNs;
    this.stats.sent++;
    this.stats.bytes += skb.length;
    if (p.lossRate > 0 && world.sim.rng.nextFloat() < p.lossRate) {
      this.stats.lost++;
      world.drop(skb, where, DropReason.LINK_LOSS, "net/link:loss", this.from.l2);
      return;
    }
    world.sim.scheduleAt(this.busyUntil + p.latencyNs, this.deliver, skb);
  }

  private arrive(skb: SkBuff): void {
    if (!this.link.up) {
      this.link.world.drop(skb, this.to.site("link"), DropReason.LINK_DOWN, "net/link:down-in-flight", this.to.l2);
      return;
    }
    this.stats.delivered++;
    this.to.receive(skb);
  }
}

export class Link {
  up = true;
  private readonly ab: LinkDirection;
  private readonly ba: LinkDirection;

  constructor(
    readonly world: NetWorld,
    readonly a: NetDevice,
    readonly b: NetDevice,
    readonly params: LinkParams = DEFAULT_LINK,
  ) {
    if (!(params.bandwidthBps > 0) || params.latencyNs < 0 || !(params.mtu >= 68) || params.queueBytes <= 0) {
      throw new RangeError(`invalid link parameters between ${a.name} and ${b.name}: ${JSON.stringify(params)}`);
    }
    this.ab = new LinkDirection(this, a, b);
    this.ba = new LinkDirection(this, b, a);
  }

  /** Sends skb from one end to the other. */
  send(from: NetDevice, skb: SkBuff): void {
    if (from === this.a) this.ab.send(skb);
    else if (from === this.b) this.ba.send(skb);
    else throw new Error(`device ${from.name} is not an end of this link`);
  }

  stats(from: NetDevice): LinkDirectionStats {
    return from === this.a ? this.ab.stats : this.ba.stats;
  }
}

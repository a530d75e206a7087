// Link: a full-duplex wire between two devices with bandwidth (serialization delay),
// propagation latency, MTU, a bounded transmit queue with tail drop, optional seeded loss,
// and an up/down state. Each direction queues independently. A GSO super-packet crosses as the
// segments it stands for (each serialized with its own headers, checked against the MTU and lost
// on its own) and reaches the far device GRO-merged in one event, unless a segment was lost or the
// far device has GRO off: then the surviving segments arrive one by one. Wire taps see segments.

import { DropReason } from "../../datapath/reasons.js";
import { consumeSkb } from "../skb/buffer-pool.js";
import { gsoHeaderLength, gsoSegment } from "../skb/gso.js";
import type { SkBuff } from "../skb/skbuff.js";
import { DeliveryKind } from "../trace/ledger.js";
import type { Simulator } from "../engine/simulator.js";
import type { DeviceStats, NetDevice } from "./device.js";
import type { NetWorld } from "./world.js";

/**
 * A tap on the wire itself (a fibre tap / port mirror): sees every frame as it starts onto the
 * medium, GSO super-packets as their individual segments with valid checksums. Must not keep the view.
 */
export interface WireTap {
  onWireFrame(link: Link, from: NetDevice, frame: Uint8Array, timeNs: number): void;
}

/** One direction of a link as its sending end holds it (resolved once instead of per frame). */
export interface LinkSender {
  send(skb: SkBuff): void;
}

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

/** What became of each segment of a super-packet. */
const SegMark = { SENT: 0, LOST: 1, QUEUE_FULL: 2 } as const;
/** Scratch for super-packets: when each segment finishes serializing, and what became of it. */
let segEnds = new Float64Array(64);
let segMark = new Uint8Array(64);

/** Beyond these the closed form below is not proven to match the segment-by-segment walk. */
const CLOSED_FORM_MAX_SEGS = 4096;
const CLOSED_FORM_MAX_QUEUE_BYTES = 2 ** 32;

/**
 * When the last segment of a super-packet finishes serializing, in closed form (n-1 full segments
 * and one last one), provided every segment fits the queue; -1 when the caller must walk the segments.
 * It equals the walk's floating-point sums exactly: serialization times are integers added to an
 * integer start below 2^53, so every partial sum is exact; and the queue test only takes the closed
 * form with a byte of headroom, far more than the walk's rounding (under 2^12 adds, each off by at
 * most 2^-21 below 2^32 bytes) could use up.
 */
export function wholeSuperPacketEnd(
  hdr: number, gsoSize: number, payload: number, segs: number, overhead: number, start: number, backlogBytes: number, p: LinkParams,
): number {
  if (segs > CLOSED_FORM_MAX_SEGS || p.queueBytes > CLOSED_FORM_MAX_QUEUE_BYTES || !Number.isInteger(start)) return -1;
  const fullWire = hdr + gsoSize + overhead;
  const lastWire = hdr + (payload - (segs - 1) * gsoSize) + overhead;
  if (!(backlogBytes + (segs - 1) * fullWire + lastWire + 1 <= p.queueBytes)) return -1;
  const end = start + (segs - 1) * Math.ceil((fullWire * 8e9) / p.bandwidthBps) + Math.ceil((lastWire * 8e9) / p.bandwidthBps);
  return end <= Number.MAX_SAFE_INTEGER ? end : -1;
}

class LinkDirection implements LinkSender {
  busyUntil = 0;
  readonly stats: LinkDirectionStats = { sent: 0, delivered: 0, queueDrops: 0, mtuDrops: 0, lost: 0, bytes: 0 };
  /**
   * The arrival event's function: the frame reaches the far device (the simulator calls it with the
   * skb). The arrival itself, not a wrapper around a method: one call less per frame on the wire.
   */
  readonly deliver = (skb: SkBuff): void => {
    if (!this.link.up) {
      this.link.world.drop(skb, this.to.site("link"), DropReason.LINK_DOWN, "net/link:down-in-flight", this.to.l2);
      return;
    }
    if (skb.gsoSize !== 0) {
      // napi_gro_receive: the segments are handed up as one merged skb.
      const segs = skb.gsoSegs > 0 ? skb.gsoSegs : 1;
      this.stats.delivered += segs;
      this.toStats.rxGroPackets++;
      this.toStats.rxGroSegments += segs;
    } else {
      this.stats.delivered++;
    }
    this.to.receive(skb);
  };
  /** Bytes of link-layer header in front of the IP header of what `from` sends (Ethernet 14, raw IP 0). */
  private readonly l2: number;
  /** Wire bytes per frame beyond its own (preamble, FCS, gap on Ethernet). */
  private readonly overhead: number;
  /** The receiving device's counters (read here, not through `to`: device reads are megamorphic). */
  private readonly toStats: DeviceStats;
  private readonly sim: Simulator;

  constructor(
    private readonly link: Link,
    readonly from: NetDevice,
    readonly to: NetDevice,
  ) {
    this.l2 = from.l2 ? 14 : 0;
    this.overhead = from.l2 ? ETHERNET_WIRE_OVERHEAD : 0;
    this.toStats = to.stats;
    this.sim = link.world.sim;
  }

  /** Ends skb as dropped on this direction's sending side (the drop site is built only here, off the hot path). */
  private dropAt(skb: SkBuff, reason: number, site: string): void {
    this.link.world.drop(skb, this.from.site("link"), reason, site, this.from.l2);
  }

  send(skb: SkBuff): void {
    const link = this.link;
    const p = link.params;
    if (!link.up) {
      this.dropAt(skb, DropReason.LINK_DOWN, "net/link:down");
      return;
    }
    const l2 = this.l2;
    let hdr = 0;
    let segs = 1;
    const gsoSize = skb.gsoSize;
    const length = skb.tail - skb.head;
    if (gsoSize !== 0) {
      hdr = gsoHeaderLength(skb, skb.head + l2);
      if (hdr < 0) {
        this.dropAt(skb, DropReason.INVALID_PACKET, "net/link:gso-headers");
        return;
      }
      segs = Math.max(1, Math.ceil((length - hdr) / gsoSize));
    }
    const l3Length = segs > 1 ? hdr - l2 + gsoSize : length - l2;
    if (l3Length > p.mtu) {
      this.stats.mtuDrops++;
      this.dropAt(skb, DropReason.MTU_EXCEEDED, "net/link:mtu");
      return;
    }
    const sim = this.sim;
    const now = sim.now;
    const backlogNs = this.busyUntil > now ? this.busyUntil - now : 0;
    const backlogBytes = (backlogNs * p.bandwidthBps) / 8e9;
    const start = now + backlogNs;
    if (segs > 1) {
      this.sendSegments(skb, l2, hdr, segs, start, backlogBytes);
      return;
    }
    const wireBytes = length + this.overhead;
    if (backlogBytes + wireBytes > p.queueBytes) {
      this.stats.queueDrops++;
      this.dropAt(skb, DropReason.QUEUE_FULL, "net/link:queue");
      return;
    }
    this.busyUntil = start + Math.ceil((wireBytes * 8e9) / p.bandwidthBps);
    this.stats.sent++;
    this.stats.bytes += length;
    const taps = link.taps;
    for (let i = 0; i < taps.length; i++) taps[i]!.onWireFrame(link, this.from, skb.bytes(), start);
    if (p.lossRate > 0 && sim.rng.nextFloat() < p.lossRate) {
      this.stats.lost++;
      this.dropAt(skb, DropReason.LINK_LOSS, "net/link:loss");
      return;
    }
    sim.scheduleAt(this.busyUntil + p.latencyNs, this.deliver, skb);
  }

  /**
   * A super-packet: its segments join the queue in order while they fit (the rest are tail-dropped,
   * as lone frames sent back to back would be), each is serialized with its own headers and lost on
   * its own. Whole and loss-free, it arrives in one event; otherwise it is cut into its segments.
   */
  private sendSegments(skb: SkBuff, l2: number, hdr: number, segs: number, start: number, backlogBytes: number): void {
    const link = this.link;
    const world = link.world;
    const p = link.params;
    const overhead = this.overhead;
    if (segEnds.length < segs) {
      segEnds = new Float64Array(Math.max(segs, segEnds.length * 2));
      segMark = new Uint8Array(segEnds.length);
    }
    const payload = skb.length - hdr;
    if (p.lossRate === 0 && this.to.features.gro && link.taps.length === 0) {
      const end = wholeSuperPacketEnd(hdr, skb.gsoSize, payload, segs, overhead, start, backlogBytes, p);
      if (end >= 0) {
        // Every segment queued, none can be lost, nobody watches the wire: it arrives whole.
        this.busyUntil = end;
        this.stats.sent += segs;
        this.stats.bytes += segs * hdr + payload;
        this.sim.scheduleAt(end + p.latencyNs, this.deliver, skb);
        return;
      }
    }
    let queued = backlogBytes;
    let t = start;
    let admitted = 0;
    let sentBytes = 0;
    for (let i = 0; i < segs; i++) {
      const frame = hdr + Math.min(skb.gsoSize, payload - i * skb.gsoSize);
      queued += frame + overhead;
      if (queued > p.queueBytes) break;
      t += Math.ceil(((frame + overhead) * 8e9) / p.bandwidthBps);
      segEnds[i] = t;
      sentBytes += frame;
      admitted++;
    }
    if (admitted === 0) {
      this.stats.queueDrops++;
      this.dropAt(skb, DropReason.QUEUE_FULL, "net/link:queue");
      return;
    }
    this.busyUntil = segEnds[admitted - 1]!;
    let lost = 0;
    const rng = world.sim.rng;
    for (let i = 0; i < segs; i++) {
      let mark: number = SegMark.SENT;
      if (i >= admitted) mark = SegMark.QUEUE_FULL;
      else if (p.lossRate > 0 && rng.nextFloat() < p.lossRate) mark = SegMark.LOST;
      segMark[i] = mark;
      if (mark !== SegMark.SENT) lost++;
    }
    this.stats.sent += admitted;
    this.stats.bytes += sentBytes;
    if (lost === 0 && this.to.features.gro && link.taps.length === 0) {
      world.sim.scheduleAt(this.busyUntil + p.latencyNs, this.deliver, skb);
      return;
    }
    const ledger = world.ledger;
    const cut = lost > 0 || !this.to.features.gro;
    const segments = gsoSegment(skb, skb.head + l2, cut ? () => ledger.admit() : () => 0);
    if (segments === null) {
      this.dropAt(skb, DropReason.INVALID_PACKET, "net/link:gso-headers");
      return;
    }
    for (let i = 0; i < admitted && i < segments.length; i++) {
      for (const tap of link.taps) tap.onWireFrame(link, this.from, segments[i]!.bytes(), i === 0 ? start : segEnds[i - 1]!);
    }
    if (!cut) {
      world.sim.scheduleAt(this.busyUntil + p.latencyNs, this.deliver, skb);
      return;
    }
    ledger.deliver(DeliveryKind.SPLIT);
    consumeSkb(skb); // the segments carry copies: the super-packet's buffer goes back to the pool
    for (let i = 0; i < segments.length; i++) {
      const seg = segments[i]!;
      const mark = segMark[i];
      if (mark === SegMark.QUEUE_FULL) {
        this.stats.queueDrops++;
        this.dropAt(seg, DropReason.QUEUE_FULL, "net/link:queue");
        consumeSkb(seg); // the link cut this segment and was its only holder: its buffer goes back
      } else if (mark === SegMark.LOST) {
        this.stats.lost++;
        this.dropAt(seg, DropReason.LINK_LOSS, "net/link:loss");
        consumeSkb(seg);
      } else {
        world.sim.scheduleAt(segEnds[i]! + p.latencyNs, this.deliver, seg);
      }
    }
  }
}

export class Link {
  up = true;
  /** Wire taps (see WireTap): frames in both directions as they go onto the medium. */
  readonly taps: WireTap[] = [];
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

  /** The direction `from` sends on, null when it is no end of this link. */
  senderFrom(from: NetDevice): LinkSender | null {
    return from === this.a ? this.ab : from === this.b ? this.ba : null;
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

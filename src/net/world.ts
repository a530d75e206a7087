// NetWorld: what every device and stack in one emulation shares: the simulator, the packet
// ledger, the tracer, and the one place where a packet becomes a drop record.

import type { Simulator } from "../engine/simulator.js";
import type { SkBuff } from "../skb/skbuff.js";
import { PacketLedger } from "../trace/ledger.js";
import type { Tuple } from "../trace/records.js";
import { Tracer } from "../trace/tracer.js";
import { packetTuple } from "../skb/tuple.js";

/** Where a drop happened, as the drop record names it. */
export interface DropSite {
  readonly node: string;
  readonly device: string;
  readonly hook: string;
}

export class NetWorld {
  readonly ledger = new PacketLedger();
  readonly tracer = new Tracer();
  private nextIfindex = 1;
  private flowKey = -1;

  constructor(readonly sim: Simulator) {}

  /**
   * The key of the flow hash (the kernel's per-boot hashrnd behind skb_get_hash): one per world,
   * drawn from the seeded RNG on first use, so every tunnel device hashes a flow the same way.
   */
  get flowHashKey(): number {
    if (this.flowKey < 0) this.flowKey = this.sim.rng.nextU32();
    return this.flowKey;
  }

  /** Interface indexes are unique across the world so captures and traces can name them. */
  allocIfindex(): number {
    return this.nextIfindex++;
  }

  /**
   * Ends a packet as dropped: one ledger entry and one drop record. `l2` says whether the
   * packet starts with an Ethernet header (false on IP-only devices like tunl0).
   */
  drop(
    skb: SkBuff,
    where: DropSite,
    reason: number,
    site: string,
    l2: boolean,
    extra?: { explanation?: string; dstIdentity?: number },
  ): void {
    this.ledger.drop(reason);
    const after = packetTuple(skb, l2);
    const before: Tuple =
      skb.natApplied === 0
        ? after
        : { src: skb.origSrc, dst: skb.origDst, srcPort: skb.origSrcPort, dstPort: skb.origDstPort, proto: after.proto };
    this.tracer.drop({
      time: this.sim.now,
      seq: this.tracer.nextSeq(),
      packetId: skb.id,
      node: where.node,
      device: where.device,
      hook: where.hook,
      reason,
      site,
      srcIdentity: skb.srcIdentity,
      dstIdentity: extra?.dstIdentity ?? 0,
      before,
      after,
      ...(extra?.explanation !== undefined ? { explanation: extra.explanation } : {}),
    });
  }

  /** Records a hop when hop tracing is on (callers may check `tracer.hops` first to skip work). */
  hop(skb: SkBuff, where: DropSite, point: number, note: string, l2: boolean): void {
    if (!this.tracer.hops) return;
    this.tracer.hop({
      time: this.sim.now,
      seq: this.tracer.nextSeq(),
      packetId: skb.id,
      node: where.node,
      device: where.device,
      hook: where.hook,
      point,
      tuple: packetTuple(skb, l2),
      note,
    });
  }
}

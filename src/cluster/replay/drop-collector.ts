// Collects what a replay's drops need for the report: per reason, how many were injected packets and the
// first few drop records with the hops their packet took (from a bounded ring of hop records).
import { dropReasonName } from "../../../datapath/reasons.js";
import type { DropRecord, HopRecord } from "../../trace/records.js";
import type { TraceSink } from "../../trace/tracer.js";

/** Which capture record a packet came from. */
export interface CaptureOrigin {
  /** 1-based record number in the file. */
  readonly index: number;
  /** Byte offset of the record in the file. */
  readonly offset: number;
}

export interface ReplayDropTrace {
  readonly record: DropRecord;
  readonly reasonName: string;
  /** Hops of the packet before the drop (the last HOP_RING hop records of the run at most). */
  readonly hops: readonly HopRecord[];
  /** The capture record of an injected packet; null for a packet the model generated (reply, ARP, ICMP error). */
  readonly origin: CaptureOrigin | null;
}

export interface ReasonGroup {
  readonly reason: number;
  readonly name: string;
  /** Drop records of this reason that were injected packets. */
  injected: number;
  readonly traces: ReplayDropTrace[];
}

/** Hop records kept for traces (the newest ones; older hops of a long-lived packet may be gone). */
export const HOP_RING = 20_000;

export class DropCollector {
  readonly groups = new Map<number, ReasonGroup>();
  private readonly origins = new Map<number, CaptureOrigin>();
  private readonly ring: HopRing | null;
  /** Set while a record is being injected: a drop raised synchronously (a refused frame) belongs to it. */
  injecting: CaptureOrigin | null = null;
  readonly sink: TraceSink;

  constructor(private readonly tracesPerReason: number) {
    this.ring = tracesPerReason > 0 ? new HopRing(HOP_RING) : null;
    const ring = this.ring;
    this.sink = ring === null ? { drop: (r) => this.onDrop(r) } : { hop: (r) => ring.add(r), drop: (r) => this.onDrop(r) };
  }

  /** Remembers that packet `id` is the injected copy of a capture record. */
  injected(id: number, origin: CaptureOrigin): void {
    this.origins.set(id, origin);
  }

  private onDrop(r: DropRecord): void {
    if (this.injecting !== null && !this.origins.has(r.packetId)) this.origins.set(r.packetId, this.injecting);
    let g = this.groups.get(r.reason);
    if (g === undefined) {
      g = { reason: r.reason, name: dropReasonName(r.reason), injected: 0, traces: [] };
      this.groups.set(r.reason, g);
    }
    const origin = this.origins.get(r.packetId) ?? null;
    if (origin !== null) g.injected++;
    if (g.traces.length < this.tracesPerReason) {
      const hops = this.ring === null ? [] : this.ring.packet(r.packetId);
      g.traces.push({ record: r, reasonName: g.name, hops, origin });
    }
  }
}

/** The newest `capacity` hop records in a circular buffer (constant time per record). */
class HopRing {
  private readonly records: (HopRecord | undefined)[];
  private next = 0;

  constructor(private readonly capacity: number) {
    this.records = new Array<HopRecord | undefined>(capacity);
  }

  add(r: HopRecord): void {
    this.records[this.next] = r;
    this.next = (this.next + 1) % this.capacity;
  }

  /** The kept hops of one packet, oldest first. */
  packet(packetId: number): HopRecord[] {
    const out: HopRecord[] = [];
    for (let i = 0; i < this.capacity; i++) {
      const r = this.records[(this.next + i) % this.capacity];
      if (r !== undefined && r.packetId === packetId) out.push(r);
    }
    return out;
  }
}

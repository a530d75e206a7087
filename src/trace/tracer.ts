// Tracer: where hop and drop records go. Devices check `tracer.hops` before building a hop
// record, so a run without hop tracing allocates nothing per packet; drops are always recorded.

import type { DropRecord, HopRecord } from "./records.js";

export interface TraceSink {
  hop?(record: HopRecord): void;
  drop?(record: DropRecord): void;
}

export class Tracer {
  private seq = 0;
  private readonly sinks: TraceSink[] = [];
  /** True when some sink wants hop records (callers skip building them otherwise). */
  hops = false;

  addSink(sink: TraceSink): void {
    this.sinks.push(sink);
    if (sink.hop) this.hops = true;
  }

  /** Removes a sink added before; hop records stop being built once no sink wants them. */
  removeSink(sink: TraceSink): void {
    const i = this.sinks.indexOf(sink);
    if (i >= 0) this.sinks.splice(i, 1);
    this.hops = this.sinks.some((s) => s.hop !== undefined);
  }

  nextSeq(): number {
    return ++this.seq;
  }

  hop(record: HopRecord): void {
    for (const s of this.sinks) s.hop?.(record);
  }

  drop(record: DropRecord): void {
    for (const s of this.sinks) s.drop?.(record);
  }
}

/** Keeps the last `capacity` records of each kind. */
export class RingSink implements TraceSink {
  readonly hopRecords: HopRecord[] = [];
  readonly dropRecords: DropRecord[] = [];
  constructor(private readonly capacity = 10_000) {}

  hop(record: HopRecord): void {
    if (this.hopRecords.length >= this.capacity) this.hopRecords.shift();
    this.hopRecords.push(record);
  }

  drop(record: DropRecord): void {
    if (this.dropRecords.length >= this.capacity) this.dropRecords.shift();
    this.dropRecords.push(record);
  }

  /** Every hop and drop of one packet, in order. */
  packet(packetId: number): { hops: HopRecord[]; drops: DropRecord[] } {
    return {
      hops: this.hopRecords.filter((r) => r.packetId === packetId),
      drops: this.dropRecords.filter((r) => r.packetId === packetId),
    };
  }
}

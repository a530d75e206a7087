// A packets/bytes counter pair (a rule's, a built-in chain's policy's) whose owning table may hold
// deferred updates for it (deferred-counts.ts): every read and -Z flushes them first, so a
// reader sees exactly what eager counting would have left; the per-packet path adds without one.

import type { DeferredCounts } from "./deferred-counts.js";

export class PacketCounter {
  /** Counted so far (the table's deferred counts may hold more: read through packets/bytes). */
  private countedPackets = 0;
  private countedBytes = 0;

  constructor(
    /** The owning table's deferred counter updates (a rule gets them when the table places it). */
    public deferred: DeferredCounts | null = null,
  ) {}

  get packets(): number {
    this.deferred?.flush();
    return this.countedPackets;
  }

  get bytes(): number {
    this.deferred?.flush();
    return this.countedBytes;
  }

  /** -Z: back to zero (pending updates included). */
  zero(): void {
    this.deferred?.flush();
    this.countedPackets = 0;
    this.countedBytes = 0;
  }

  /** Counts packets (the per-packet path and flushes: no flush of its own). */
  addCounts(packets: number, bytes: number): void {
    this.countedPackets += packets;
    this.countedBytes += bytes;
  }
}

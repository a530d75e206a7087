// Rule and policy counter updates a table defers off the per-packet path: a replayed walk adds its
// packet to its record (one write to an object the lookup just read) instead of to every rule it
// matched, and a run through an empty ACCEPT built-in chain adds to a per-hook slot here instead of
// to the chain. Every counter read and write (packet-counter.ts: each rule's counters and each
// chain's policy counters, -Z included) flushes first, so readers see exactly the counts an eager update would have left.

import type { NfChain } from "./chain.js";
import type { WalkRecord } from "./walk-memo.js";

/** Records with pending packets are flushed once this many wait (bounds the list between reads). */
const MAX_PENDING_RECORDS = 4096;
/**
 * A record's pending bytes are flushed from this much on, so that adding a packet (at most 65535
 * bytes) keeps them below 2^31: V8 then keeps the field a small integer in every record instead of
 * boxing it as a heap number.
 */
const FLUSH_PENDING_BYTES_AT = 2 ** 30;

export class DeferredCounts {
  /** Records holding packets not yet added to their rules and policy. */
  private readonly records: WalkRecord[] = [];
  /** Per hook: packets, bytes for the empty built-in chain's policy counters. */
  private readonly emptyPolicy = new Float64Array(10);
  private pending = false;

  constructor(
    /** The table's built-in chain per hook (the chains emptyPolicy's slots belong to). */
    private readonly hooks: readonly (NfChain | null)[],
  ) {}

  /** A replay of record counted a packet of length bytes. */
  replayed(record: WalkRecord, length: number): void {
    if (record.pendingPackets === 0) {
      if (this.records.length >= MAX_PENDING_RECORDS) this.flush();
      this.records.push(record);
      this.pending = true;
    } else if (record.pendingBytes >= FLUSH_PENDING_BYTES_AT) record.flushPending();
    record.pendingPackets++;
    record.pendingBytes += length;
  }

  /** A packet of length bytes ended in hook's empty ACCEPT built-in chain. */
  emptyChainRan(hook: number, length: number): void {
    const slot = hook * 2;
    this.emptyPolicy[slot]!++;
    this.emptyPolicy[slot + 1]! += length;
    this.pending = true;
  }

  /** Adds everything pending to the rules and chains it belongs to. */
  flush(): void {
    if (!this.pending) return;
    this.pending = false;
    const records = this.records;
    for (let k = 0; k < records.length; k++) records[k]!.flushPending();
    records.length = 0;
    const slots = this.emptyPolicy;
    for (let hook = 0; hook < this.hooks.length; hook++) {
      const packets = slots[hook * 2]!;
      if (packets === 0) continue;
      this.hooks[hook]!.policyCounter.addCounts(packets, slots[hook * 2 + 1]!);
      slots[hook * 2] = 0;
      slots[hook * 2 + 1] = 0;
    }
  }
}

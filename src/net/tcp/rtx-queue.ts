// The retransmission queue / SACK scoreboard: one entry per transmitted segment (at most one MSS,
// or the FIN), kept in typed-array rings so a bulk transfer allocates nothing per segment. Each
// entry has its sequence range, first/last transmit time and the Linux "sacked" bits.

import { seqAdd } from "./seq.js";

export const Sacked = { SACKED: 1, RETRANS: 2, LOST: 4, EVER_RETRANS: 8, FIN: 16 } as const;

export class RtxQueue {
  private cap: number;
  private head = 0;
  count = 0;
  seq: Uint32Array;
  end: Uint32Array;
  flags: Uint8Array;
  /** Time of the last transmission of the entry (ns). */
  sentAt: Float64Array;

  constructor(capacity = 64) {
    this.cap = capacity;
    this.seq = new Uint32Array(capacity);
    this.end = new Uint32Array(capacity);
    this.flags = new Uint8Array(capacity);
    this.sentAt = new Float64Array(capacity);
  }

  /** Ring slot of the i-th entry from the front. */
  slot(i: number): number {
    return (this.head + i) & (this.cap - 1);
  }

  push(seq: number, end: number, flags: number, now: number): void {
    if (this.count === this.cap) this.grow();
    const s = this.slot(this.count);
    this.seq[s] = seq;
    this.end[s] = end;
    this.flags[s] = flags;
    this.sentAt[s] = now;
    this.count++;
  }

  /**
   * count entries of len bytes each from seq on, sent at `now` with no flags (a run of full segments):
   * what as many push calls store. Returns the end of the last one.
   */
  pushRun(seq: number, len: number, count: number, now: number): number {
    while (this.count + count > this.cap) this.grow();
    // The rings, head and count in locals: the loop stores only array elements.
    const seqs = this.seq;
    const ends = this.end;
    const flags = this.flags;
    const sentAt = this.sentAt;
    const mask = this.cap - 1;
    let s = this.head + this.count;
    let from = seq;
    for (let k = 0; k < count; k++, s++) {
      const at = s & mask;
      const end = seqAdd(from, len);
      seqs[at] = from;
      ends[at] = end;
      flags[at] = 0;
      sentAt[at] = now;
      from = end;
    }
    this.count += count;
    return from;
  }

  /** Removes the n front entries (n <= count). */
  dropFront(n: number): void {
    this.head = (this.head + n) & (this.cap - 1);
    this.count -= n;
  }

  /** Splits entry i at sequence `at` (for PMTU shrinkage or a partial ACK): entry i keeps [seq, at). */
  split(i: number, at: number): void {
    if (this.count === this.cap) this.grow();
    for (let k = this.count; k > i + 1; k--) this.copy(this.slot(k - 1), this.slot(k));
    const s = this.slot(i);
    const t = this.slot(i + 1);
    this.seq[t] = at;
    this.end[t] = this.end[s]!;
    this.flags[t] = this.flags[s]!;
    this.sentAt[t] = this.sentAt[s]!;
    this.end[s] = at;
    this.count++;
  }

  private copy(from: number, to: number): void {
    this.seq[to] = this.seq[from]!;
    this.end[to] = this.end[from]!;
    this.flags[to] = this.flags[from]!;
    this.sentAt[to] = this.sentAt[from]!;
  }

  private grow(): void {
    const cap = this.cap * 2;
    const seq = new Uint32Array(cap);
    const end = new Uint32Array(cap);
    const flags = new Uint8Array(cap);
    const sentAt = new Float64Array(cap);
    for (let i = 0; i < this.count; i++) {
      const s = this.slot(i);
      seq[i] = this.seq[s]!;
      end[i] = this.end[s]!;
      flags[i] = this.flags[s]!;
      sentAt[i] = this.sentAt[s]!;
    }
    this.seq = seq;
    this.end = end;
    this.flags = flags;
    this.sentAt = sentAt;
    this.cap = cap;
    this.head = 0;
  }
}

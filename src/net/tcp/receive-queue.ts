// The receive side's storage: out-of-order ranges waiting for a hole to fill (kept merged and
// sorted, with copies of their bytes) and the SACK blocks they produce (RFC 2018: the block with
// the most recent segment first), plus in-order bytes the application has not read yet.

import { seqAdd, seqDiff, seqGt, seqLeq, seqLt, seqMax } from "./seq.js";

interface OooRange {
  seq: number;
  end: number;
  bytes: Uint8Array;
}

export class ReceiveQueue {
  private readonly ooo: OooRange[] = [];
  /** seq of the most recently queued out-of-order segment (its block goes first in SACK). */
  private lastOoo = 0;
  private readonly unread: Uint8Array[] = [];
  private unreadHead = 0;
  /** Bytes held out of order. */
  oooBytes = 0;
  /** In-order bytes not yet read by the application. */
  unreadBytes = 0;

  get hasOutOfOrder(): boolean {
    return this.ooo.length > 0;
  }

  /** Stores a copy of an out-of-order segment's payload [seq, seq+len). */
  addOutOfOrder(seq: number, data: Uint8Array, from: number, len: number): void {
    let s = seq;
    let e = seqAdd(seq, len);
    let bytes = data.slice(from, from + len);
    this.lastOoo = seq;
    // Merge with every overlapping or adjacent range.
    let i = 0;
    while (i < this.ooo.length && seqLt(this.ooo[i]!.end, s)) i++;
    while (i < this.ooo.length && seqLeq(this.ooo[i]!.seq, e)) {
      const r = this.ooo[i]!;
      const ns = seqLt(r.seq, s) ? r.seq : s;
      const ne = seqMax(r.end, e);
      const merged = new Uint8Array(seqDiff(ne, ns));
      merged.set(r.bytes, seqDiff(r.seq, ns));
      merged.set(bytes, seqDiff(s, ns));
      this.oooBytes -= r.bytes.length;
      this.ooo.splice(i, 1);
      s = ns;
      e = ne;
      bytes = merged;
    }
    this.ooo.splice(i, 0, { seq: s, end: e, bytes });
    this.oooBytes += bytes.length;
  }

  /**
   * Takes the out-of-order data that now continues rcvNxt: calls deliver(bytes) for each piece and
   * returns the new rcvNxt.
   */
  drainInOrder(rcvNxt: number, deliver: (bytes: Uint8Array) => void): number {
    let next = rcvNxt;
    while (this.ooo.length > 0 && seqLeq(this.ooo[0]!.seq, next)) {
      const r = this.ooo.shift()!;
      this.oooBytes -= r.bytes.length;
      if (seqGt(r.end, next)) {
        deliver(r.bytes.subarray(seqDiff(next, r.seq)));
        next = r.end;
      }
    }
    return next;
  }

  /** Writes up to max SACK blocks above rcvNxt; returns how many. */
  sackBlocks(max: number, left: Uint32Array, right: Uint32Array): number {
    if (this.ooo.length === 0 || max === 0) return 0;
    let n = 0;
    let first = -1;
    for (let i = 0; i < this.ooo.length; i++) {
      const r = this.ooo[i]!;
      if (seqLeq(r.seq, this.lastOoo) && seqLt(this.lastOoo, r.end)) first = i;
    }
    if (first >= 0) {
      left[n] = this.ooo[first]!.seq;
      right[n] = this.ooo[first]!.end;
      n++;
    }
    for (let i = 0; i < this.ooo.length && n < max; i++) {
      if (i === first) continue;
      left[n] = this.ooo[i]!.seq;
      right[n] = this.ooo[i]!.end;
      n++;
    }
    return n;
  }

  /** Keeps a copy of in-order data the application has not read (auto-read off). */
  queueUnread(data: Uint8Array): void {
    this.unread.push(data.slice());
    this.unreadBytes += data.length;
  }

  /** Reads up to max unread bytes (all when max is omitted). */
  read(max = Number.POSITIVE_INFINITY): Uint8Array {
    const n = Math.min(max, this.unreadBytes);
    const out = new Uint8Array(n);
    let at = 0;
    while (at < n) {
      const chunk = this.unread[0]!;
      const take = Math.min(chunk.length - this.unreadHead, n - at);
      out.set(chunk.subarray(this.unreadHead, this.unreadHead + take), at);
      at += take;
      this.unreadHead += take;
      if (this.unreadHead === chunk.length) {
        this.unread.shift();
        this.unreadHead = 0;
      }
    }
    this.unreadBytes -= n;
    return out;
  }
}

// The receive side's storage: out-of-order ranges waiting for a hole to fill (sorted, holding views
// of the arrived packets' bytes, as the kernel keeps the skbs) and the SACK blocks they produce
// (RFC 2018: the block with the most recent segment first), plus copies of in-order bytes the
// application has not read yet. Each held segment is charged its kernel memory (skb truesize).

import { consumeSkb } from "../../skb/buffer-pool.js";
import type { SkBuff } from "../../skb/skbuff.js";
import { F64_ZERO } from "./constants.js";
import { seqAdd, seqDiff, seqGt, seqLeq, seqLt } from "./seq.js";

/**
 * Approximate skb truesize of a received segment of len payload bytes (kmalloc'd head + sk_buff):
 * the head is the smallest power of two from 512 up that holds len + 200 bytes, found from the
 * highest bit (called for every arriving segment) rather than by doubling.
 */
export function segmentTruesize(len: number): number {
  const need = len + 200;
  if (need <= 512) return 512 + 256;
  if (need <= 1 << 30) return (1 << (32 - Math.clz32(need - 1))) + 256;
  let head = 1 << 30;
  while (head < need) head *= 2;
  return head + 256;
}

/**
 * Truesize of len payload bytes that arrived as segments of gsoSize bytes (a GRO-merged skb holds
 * each segment's buffer as a fragment); gsoSize 0 = one ordinary segment.
 */
export function receivedTruesize(len: number, gsoSize: number): number {
  if (gsoSize === 0 || len <= gsoSize) return segmentTruesize(len);
  const full = Math.floor(len / gsoSize);
  const rest = len - full * gsoSize;
  return full * segmentTruesize(gsoSize) + (rest > 0 ? segmentTruesize(rest) : 0);
}

interface OooSegment {
  seq: number;
  end: number;
  bytes: Uint8Array;
  charge: number;
  /** The packet whose buffer `bytes` views (its only view), or null. */
  owner: SkBuff | null;
}

export class ReceiveQueue {
  /** Out-of-order segments, sorted and non-overlapping (adjacent ones are not merged). */
  private readonly ooo: OooSegment[] = [];
  /** seq of the most recently queued out-of-order segment (its block goes first in SACK). */
  private lastOoo = F64_ZERO;
  private readonly unread: Uint8Array[] = [];
  private unreadHead = 0;
  /** Bytes held out of order. */
  oooBytes = 0;
  /** In-order bytes not yet read by the application. */
  unreadBytes = 0;
  /** Receive-buffer memory the held data is charged (sk_rmem_alloc). */
  charge = 0;
  private readonly unreadCharge: number[] = [];

  get hasOutOfOrder(): boolean {
    return this.ooo.length > 0;
  }

  /** Index of the first held segment ending after seq. */
  private firstEndingAfter(seq: number): number {
    const q = this.ooo;
    let lo = 0;
    let hi = q.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (seqLeq(q[mid]!.end, seq)) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  /**
   * Stores a view of an out-of-order segment's payload [seq, seq+len), minus bytes already held; the
   * caller must keep data unchanged while it is held. `owner` is the packet behind data: the queue
   * becomes its last holder if it keeps a view (returns true), and consumes it once it drops the view.
   */
  addOutOfOrder(seq: number, data: Uint8Array, from: number, len: number, gsoSize = 0, owner: SkBuff | null = null): boolean {
    this.lastOoo = seq;
    let s = seq;
    let e = seqAdd(seq, len);
    const q = this.ooo;
    let i = this.firstEndingAfter(s);
    if (i < q.length && seqLeq(q[i]!.seq, s)) {
      // The start is already held: keep only what goes beyond that segment.
      s = q[i]!.end;
      i++;
      if (!seqLt(s, e)) return false;
    }
    // Drop held segments the new one covers entirely; stop at the first one it only overlaps.
    while (i < q.length && seqLeq(q[i]!.end, e) && seqLeq(s, q[i]!.seq)) {
      const r = q[i]!;
      this.oooBytes -= r.bytes.length;
      this.charge -= r.charge;
      q.splice(i, 1);
      if (r.owner !== null) consumeSkb(r.owner);
    }
    if (i < q.length && seqLt(q[i]!.seq, e)) e = q[i]!.seq;
    if (!seqLt(s, e)) return false;
    const off = from + seqDiff(s, seq);
    const bytes = data.subarray(off, off + seqDiff(e, s));
    const charge = receivedTruesize(bytes.length, gsoSize);
    q.splice(i, 0, { seq: s, end: e, bytes, charge, owner });
    this.oooBytes += bytes.length;
    this.charge += charge;
    return true;
  }

  /**
   * Takes the out-of-order data that now continues rcvNxt: calls deliver(bytes, charge, owner) for
   * each piece (its memory charge and its packet move to the caller) and returns the new rcvNxt.
   */
  drainInOrder(rcvNxt: number, deliver: (bytes: Uint8Array, charge: number, owner: SkBuff | null) => void): number {
    let next = rcvNxt;
    const q = this.ooo;
    let n = 0;
    while (n < q.length && seqLeq(q[n]!.seq, next)) {
      const r = q[n]!;
      this.oooBytes -= r.bytes.length;
      this.charge -= r.charge;
      if (seqGt(r.end, next)) {
        deliver(r.bytes.subarray(seqDiff(next, r.seq)), r.charge, r.owner);
        next = r.end;
      } else if (r.owner !== null) {
        consumeSkb(r.owner);
      }
      n++;
    }
    if (n > 0) q.splice(0, n);
    return next;
  }

  /** Writes up to max SACK blocks (contiguous held data) above rcvNxt; returns how many. */
  sackBlocks(max: number, left: Uint32Array, right: Uint32Array): number {
    const q = this.ooo;
    if (q.length === 0 || max === 0) return 0;
    let n = 1;
    // The first block is the one holding the latest segment; the others follow in sequence order.
    let first = this.firstEndingAfter(this.lastOoo);
    if (first >= q.length) first = q.length - 1;
    let a = first;
    while (a > 0 && q[a - 1]!.end === q[a]!.seq) a--;
    let z = first;
    while (z + 1 < q.length && q[z]!.end === q[z + 1]!.seq) z++;
    left[0] = q[a]!.seq;
    right[0] = q[z]!.end;
    for (let i = 0; i < q.length && n < max; ) {
      let j = i;
      while (j + 1 < q.length && q[j]!.end === q[j + 1]!.seq) j++;
      if (i !== a) {
        left[n] = q[i]!.seq;
        right[n] = q[j]!.end;
        n++;
      }
      i = j + 1;
    }
    return n;
  }

  /** Keeps a copy of in-order data the application has not read (auto-read off). */
  queueUnread(data: Uint8Array, charge: number): void {
    this.unread.push(data.slice());
    this.unreadCharge.push(charge);
    this.unreadBytes += data.length;
    this.charge += charge;
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
        this.charge -= this.unreadCharge.shift()!;
        this.unreadHead = 0;
      }
    }
    this.unreadBytes -= n;
    return out;
  }
}

// Lookup index over a long chain (kube-proxy's KUBE-SERVICES, KUBE-NODEPORTS): rules whose only
// way to match is one exact destination address + protocol + destination port are found by hashing
// the packet's (dst, proto, dport); rules with any destination but an exact (proto, dport) by
// hashing (proto, dport); every other rule is "generic". A packet's candidates are its two buckets
// and the generic rules, merged in rule order. A rule left out cannot match the packet, and the
// matches that rule it out (dst, proto, dport) come before any match with side effects (statistic,
// recent) in ruleMatches, so first-match order, counters and side effects equal a linear walk.

import { M, type NfRule } from "./rule.js";

/** Chains shorter than this are walked linearly. */
export const INDEX_MIN_RULES = 16;
/** An index is built only when at least this many rules are keyed (found by hashing rather than walked). */
const INDEX_MIN_KEYED = 8;

const EMPTY = new Int32Array(0);

/** Open-addressing hash from a (hi, lo) pair of 32-bit keys to a bucket number. */
class PairHash {
  private readonly hi: Uint32Array;
  private readonly lo: Uint32Array;
  private readonly slot: Int32Array;
  private readonly mask: number;
  size = 0;

  constructor(expected: number) {
    let cap = 16;
    while (cap < expected * 2) cap *= 2;
    this.hi = new Uint32Array(cap);
    this.lo = new Uint32Array(cap);
    this.slot = new Int32Array(cap).fill(-1);
    this.mask = cap - 1;
  }

  private static hash(hi: number, lo: number): number {
    let h = Math.imul(hi ^ 0x9e3779b9, 0x85ebca6b);
    h ^= Math.imul(lo ^ (h >>> 15), 0xc2b2ae35);
    return (h ^ (h >>> 13)) >>> 0;
  }

  get(hi: number, lo: number): number {
    let i = PairHash.hash(hi, lo) & this.mask;
    for (;;) {
      const b = this.slot[i]!;
      if (b < 0 || (this.hi[i] === hi && this.lo[i] === lo)) return b;
      i = (i + 1) & this.mask;
    }
  }

  /** The bucket of (hi, lo), added as the next bucket number when new. */
  intern(hi: number, lo: number): number {
    let i = PairHash.hash(hi, lo) & this.mask;
    for (;;) {
      const b = this.slot[i]!;
      if (b >= 0 && this.hi[i] === hi && this.lo[i] === lo) return b;
      if (b < 0) {
        this.hi[i] = hi;
        this.lo[i] = lo;
        this.slot[i] = this.size;
        return this.size++;
      }
      i = (i + 1) & this.mask;
    }
  }
}

/** Rule positions per bucket, flattened (bucket k holds positions[starts[k] .. starts[k + 1])). */
class Buckets {
  readonly hash: PairHash;
  starts: Int32Array = EMPTY;
  positions: Int32Array = EMPTY;
  private readonly lists: number[][] = [];

  constructor(expected: number) {
    this.hash = new PairHash(expected);
  }

  add(hi: number, lo: number, position: number): void {
    const b = this.hash.intern(hi, lo);
    (this.lists[b] ??= []).push(position);
  }

  seal(): void {
    const n = this.lists.length;
    this.starts = new Int32Array(n + 1);
    let total = 0;
    for (let b = 0; b < n; b++) {
      this.starts[b] = total;
      total += this.lists[b]!.length;
    }
    this.starts[n] = total;
    this.positions = new Int32Array(total);
    for (let b = 0; b < n; b++) this.positions.set(this.lists[b]!, this.starts[b]!);
    this.lists.length = 0;
  }
}

/** (proto, dport) as one 32-bit key. */
const protoPort = (proto: number, port: number): number => ((proto << 16) | port) >>> 0;

function exactDport(r: NfRule): boolean {
  return (r.has & M.DPORT) !== 0 && !r.dportInv && r.dportLo === r.dportHi && (r.has & M.PROTO) !== 0 && !r.protoInv;
}

function exactDst(r: NfRule): boolean {
  return (r.has & M.DST) !== 0 && !r.dstInv && r.dstMask === 0xffffffff;
}

export class ChainIndex {
  /** Rules with an exact destination address, protocol and destination port. */
  readonly byDst: Buckets;
  /** Rules with an exact protocol and destination port and no exact destination. */
  readonly byPort: Buckets;
  readonly generic: Int32Array;

  private constructor(rules: readonly NfRule[], dstKeyed: number, portKeyed: number) {
    this.byDst = new Buckets(dstKeyed);
    this.byPort = new Buckets(portKeyed);
    const generic: number[] = [];
    for (let pos = 0; pos < rules.length; pos++) {
      const r = rules[pos]!;
      if (!exactDport(r)) generic.push(pos);
      else if (exactDst(r)) this.byDst.add(r.dstNet, protoPort(r.proto, r.dportLo), pos);
      else this.byPort.add(0, protoPort(r.proto, r.dportLo), pos);
    }
    this.byDst.seal();
    this.byPort.seal();
    this.generic = Int32Array.from(generic);
  }

  /** An index for these rules, or null when the chain is shorter than minRules or too few rules can be found by hashing. */
  static build(rules: readonly NfRule[], minRules: number): ChainIndex | null {
    if (rules.length < minRules) return null;
    let dstKeyed = 0;
    let portKeyed = 0;
    for (const r of rules) {
      if (!exactDport(r)) continue;
      if (exactDst(r)) dstKeyed++;
      else portKeyed++;
    }
    const keyed = dstKeyed + portKeyed;
    return keyed > 0 && keyed >= Math.min(INDEX_MIN_KEYED, minRules) ? new ChainIndex(rules, dstKeyed, portKeyed) : null;
  }
}

/**
 * The candidate positions of one chain visit, as three sorted lanes (the two buckets of the packet's
 * key and the generic rules) with cursors. Reused across visits; never allocates.
 */
export class CandidateCursor {
  private dst: Int32Array = EMPTY;
  private dstAt = 0;
  private dstEnd = 0;
  private port: Int32Array = EMPTY;
  private portAt = 0;
  private portEnd = 0;
  private gen: Int32Array = EMPTY;
  private genAt = 0;

  /** Points the lanes at the packet's buckets (keyValid false: no L4 key, only generic rules can match). */
  reset(index: ChainIndex, keyValid: boolean, dst: number, proto: number, dport: number, from: number): void {
    this.gen = index.generic;
    this.genAt = lowerBound(this.gen, 0, this.gen.length, from);
    this.dst = EMPTY;
    this.dstAt = this.dstEnd = 0;
    this.port = EMPTY;
    this.portAt = this.portEnd = 0;
    if (!keyValid) return;
    const key = protoPort(proto, dport);
    const a = index.byDst.hash.get(dst >>> 0, key);
    if (a >= 0) {
      this.dst = index.byDst.positions;
      this.dstEnd = index.byDst.starts[a + 1]!;
      this.dstAt = lowerBound(this.dst, index.byDst.starts[a]!, this.dstEnd, from);
    }
    const b = index.byPort.hash.get(0, key);
    if (b >= 0) {
      this.port = index.byPort.positions;
      this.portEnd = index.byPort.starts[b + 1]!;
      this.portAt = lowerBound(this.port, index.byPort.starts[b]!, this.portEnd, from);
    }
  }

  /** The smallest candidate position >= from (positions only grow within a visit), or `end` when none. */
  next(from: number, end: number): number {
    while (this.dstAt < this.dstEnd && this.dst[this.dstAt]! < from) this.dstAt++;
    while (this.portAt < this.portEnd && this.port[this.portAt]! < from) this.portAt++;
    while (this.genAt < this.gen.length && this.gen[this.genAt]! < from) this.genAt++;
    let best = end;
    if (this.dstAt < this.dstEnd && this.dst[this.dstAt]! < best) best = this.dst[this.dstAt]!;
    if (this.portAt < this.portEnd && this.port[this.portAt]! < best) best = this.port[this.portAt]!;
    if (this.genAt < this.gen.length && this.gen[this.genAt]! < best) best = this.gen[this.genAt]!;
    return best;
  }
}

/** First index in list[lo, hi) whose value is >= value. */
function lowerBound(list: Int32Array, lo: number, hi: number, value: number): number {
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (list[mid]! < value) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

// IPv4 identification for packets the stack builds without a connected socket (ICMP errors and echo
// replies with DF clear), as __ip_select_ident does: a per-namespace keyed hash of (dst, src, proto)
// picks one of 2048 counters, which jumps by a random amount below the jiffies since its last use.

import type { SeededRng } from "../../util/rng.js";

const BUCKETS = 2048;

export class IpIdentGenerator {
  private readonly ids = new Uint16Array(BUCKETS);
  private readonly stamps = new Float64Array(BUCKETS).fill(Number.NEGATIVE_INFINITY);
  private readonly key: number;

  constructor(private readonly rng: SeededRng) {
    this.key = rng.nextU32();
    for (let i = 0; i < BUCKETS; i++) this.ids[i] = rng.nextInt(0x10000);
  }

  /**
   * The ID for one packet from src to dst with protocol proto, at time nowJiffies; a GSO packet of
   * segs segments reserves segs consecutive IDs (ip_select_ident_segs), one per segment.
   */
  next(dst: number, src: number, proto: number, nowJiffies: number, segs = 1): number {
    const bucket = mix(dst, src, proto, this.key) & (BUCKETS - 1);
    const last = this.stamps[bucket]!;
    let delta = 0;
    if (last !== nowJiffies) {
      this.stamps[bucket] = nowJiffies;
      const gap = nowJiffies - last;
      delta = gap === Number.POSITIVE_INFINITY || gap >= 0x10000 ? this.rng.nextInt(0x10000) : gap > 0 ? this.rng.nextInt(gap) : 0;
    }
    const id = (this.ids[bucket]! + delta) & 0xffff;
    this.ids[bucket] = (id + segs) & 0xffff;
    return id;
  }
}

/** A small keyed integer hash (murmur3 finalizer rounds); not siphash, only the spread matters. */
function mix(a: number, b: number, c: number, key: number): number {
  let h = key ^ Math.imul(a, 0xcc9e2d51);
  h = Math.imul(h ^ (h >>> 15), 0x85ebca6b) ^ b;
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35) ^ c;
  h ^= h >>> 16;
  return h >>> 0;
}

// Conntrack entry storage: entries as rows of typed arrays (no object per connection), each hashed
// twice (original and reply tuple) in a chained hash table, plus the NAT "by source" index. Grows by
// doubling up to nf_conntrack_max. Entries are created unconfirmed and enter the hash on confirm.

/** ct->status bits (include/uapi/linux/netfilter/nf_conntrack_common.h). */
export const Ips = {
  EXPECTED: 1 << 0,
  SEEN_REPLY: 1 << 1,
  ASSURED: 1 << 2,
  CONFIRMED: 1 << 3,
  SRC_NAT: 1 << 4,
  DST_NAT: 1 << 5,
  SRC_NAT_DONE: 1 << 7,
  DST_NAT_DONE: 1 << 8,
  DYING: 1 << 9,
  FIXED_TIMEOUT: 1 << 10,
  NAT_CLASH: 1 << 12,
  /** Emulator bookkeeping: the row holds an entry. */
  IN_USE: 1 << 28,
  /** Emulator bookkeeping: the entry is linked in the by-source index. */
  IN_BYSRC: 1 << 29,
  /** Emulator bookkeeping: both tuples are linked in the lookup hash. */
  IN_HASH: 1 << 30,
} as const;
export const IPS_NAT_MASK = Ips.SRC_NAT | Ips.DST_NAT;
export const IPS_NAT_DONE_MASK = Ips.SRC_NAT_DONE | Ips.DST_NAT_DONE;

export const CtDir = { ORIGINAL: 0, REPLY: 1 } as const;

/** u32 row layout. Tuple words per direction d at 3*d: src, dst, ports (sport << 16 | dport). */
export const F = {
  SRC: 0,
  DST: 1,
  PORTS: 2,
  PROTO: 6,
  STATUS: 7,
  MARK: 8,
  MASQ_IFINDEX: 9,
  TCP_STATE: 10,
  /** TCP per-direction window data at TD + 5*dir: end, maxend, maxwin, maxack, scale | flags << 8. */
  TD: 11,
  LAST_INDEX: 21,
  LAST_DIR: 22,
  LAST_SEQ: 23,
  LAST_ACK: 24,
  LAST_END: 25,
  LAST_WIN: 26,
  LAST_WSCALE: 27,
  LAST_FLAGS: 28,
  RETRANS: 29,
  UNCONF_POS: 30,
} as const;
/** u32 words per row: hot paths index `u32[i * ROW_WORDS + F.x]` directly (a call per field costs more than the field). */
export const ROW_WORDS = 31;
const U = ROW_WORDS;
export const TD_END = 0;
export const TD_MAXEND = 1;
export const TD_MAXWIN = 2;
export const TD_MAXACK = 3;
export const TD_SCALE_FLAGS = 4;

/** f64 row layout. */
export const G = { EXPIRES: 0, SEQ: 1, STAMP: 2, UDP_STREAM_TS: 3 } as const;
const D = 4;

const INITIAL_CAPACITY = 64;

export function tupleHash(src: number, dst: number, ports: number, proto: number): number {
  let h = Math.imul(src ^ 0x9e3779b9, 0x85ebca6b);
  h = Math.imul((h ^ (h >>> 15)) ^ dst, 0xc2b2ae35);
  h = Math.imul((h ^ (h >>> 13)) ^ ports, 0x27d4eb2f);
  h ^= proto * 0x165667b1;
  return (h ^ (h >>> 16)) >>> 0;
}

export class CtTable {
  u32: Uint32Array;
  f64: Float64Array;
  capacity: number;
  /** Entries in use (confirmed and unconfirmed), as nf_conntrack_count. */
  count = 0;
  private next: Int32Array;
  private heads: Int32Array;
  private headMask: number;
  private srcNext: Int32Array;
  private srcHeads: Int32Array;
  private freeNext: Int32Array;
  private freeHead = -1;
  private used = 0;
  private seqCounter = 0;
  /** Rows awaiting their reap: unconfirmed or retired entries, with their position kept in F.UNCONF_POS. */
  private unconf: Int32Array;
  unconfCount = 0;

  constructor(readonly maxEntries: number) {
    this.capacity = Math.max(1, Math.min(INITIAL_CAPACITY, maxEntries));
    this.u32 = new Uint32Array(this.capacity * U);
    this.f64 = new Float64Array(this.capacity * D);
    this.next = new Int32Array(this.capacity * 2);
    this.srcNext = new Int32Array(this.capacity);
    this.freeNext = new Int32Array(this.capacity);
    this.unconf = new Int32Array(this.capacity);
    const buckets = bucketCount(this.capacity);
    this.heads = new Int32Array(buckets).fill(-1);
    this.srcHeads = new Int32Array(buckets).fill(-1);
    this.headMask = buckets - 1;
  }

  // ---- row access -------------------------------------------------------------------------

  status(i: number): number {
    return this.u32[i * U + F.STATUS]!;
  }
  setStatus(i: number, bits: number): void {
    this.u32[i * U + F.STATUS] = (this.u32[i * U + F.STATUS]! | bits) >>> 0;
  }
  clearStatus(i: number, bits: number): void {
    this.u32[i * U + F.STATUS] = (this.u32[i * U + F.STATUS]! & ~bits) >>> 0;
  }
  get(i: number, field: number): number {
    return this.u32[i * U + field]!;
  }
  set(i: number, field: number, value: number): void {
    this.u32[i * U + field] = value >>> 0;
  }
  getF(i: number, field: number): number {
    return this.f64[i * D + field]!;
  }
  setF(i: number, field: number, value: number): void {
    this.f64[i * D + field] = value;
  }
  proto(i: number): number {
    return this.u32[i * U + F.PROTO]!;
  }
  src(i: number, dir: number): number {
    return this.u32[i * U + 3 * dir + F.SRC]!;
  }
  dst(i: number, dir: number): number {
    return this.u32[i * U + 3 * dir + F.DST]!;
  }
  ports(i: number, dir: number): number {
    return this.u32[i * U + 3 * dir + F.PORTS]!;
  }
  sport(i: number, dir: number): number {
    return this.u32[i * U + 3 * dir + F.PORTS]! >>> 16;
  }
  dport(i: number, dir: number): number {
    return this.u32[i * U + 3 * dir + F.PORTS]! & 0xffff;
  }
  /** Index into u32 of direction dir's TCP window block. */
  tdBase(i: number, dir: number): number {
    return i * U + F.TD + 5 * dir;
  }
  inUse(i: number): boolean {
    return i >= 0 && i < this.used && (this.u32[i * U + F.STATUS]! & Ips.IN_USE) !== 0;
  }
  confirmed(i: number): boolean {
    return (this.u32[i * U + F.STATUS]! & Ips.CONFIRMED) !== 0;
  }

  // ---- lookup -----------------------------------------------------------------------------

  /** The hashed node (2 * entry + dir) whose tuple equals the given one, or -1. Skips nothing: see Conntrack.find. */
  findNode(src: number, dst: number, ports: number, proto: number): number {
    let n = this.heads[tupleHash(src, dst, ports, proto) & this.headMask]!;
    const u = this.u32;
    while (n >= 0) {
      const i = n >> 1;
      const b = i * U + 3 * (n & 1);
      if (u[b + F.SRC] === src && u[b + F.DST] === dst && u[b + F.PORTS] === ports && u[i * U + F.PROTO] === proto) {
        return n;
      }
      n = this.next[n]!;
    }
    return -1;
  }

  /** Iterates the nodes in the bucket of a tuple (for clash scans); returns the first node after `from` (-1 = start). */
  bucketNext(src: number, dst: number, ports: number, proto: number, from: number): number {
    if (from < 0) return this.heads[tupleHash(src, dst, ports, proto) & this.headMask]!;
    return this.next[from]!;
  }

  nodeMatches(n: number, src: number, dst: number, ports: number, proto: number): boolean {
    const i = n >> 1;
    const b = i * U + 3 * (n & 1);
    const u = this.u32;
    return u[b + F.SRC] === src && u[b + F.DST] === dst && u[b + F.PORTS] === ports && u[i * U + F.PROTO] === proto;
  }

  // ---- allocation -------------------------------------------------------------------------

  /** A fresh unconfirmed row with both tuples set, or -1 when the table is at maxEntries. */
  alloc(
    proto: number,
    src: number,
    dst: number,
    ports: number,
    rsrc: number,
    rdst: number,
    rports: number,
    stamp: number,
  ): number {
    if (this.count >= this.maxEntries) return -1;
    let i = this.freeHead;
    if (i >= 0) {
      this.freeHead = this.freeNext[i]!;
    } else {
      if (this.used === this.capacity) this.grow();
      i = this.used++;
    }
    this.count++;
    const base = i * U;
    this.u32.fill(0, base, base + U);
    this.f64.fill(0, i * D, i * D + D);
    const u = this.u32;
    u[base + F.SRC] = src;
    u[base + F.DST] = dst;
    u[base + F.PORTS] = ports;
    u[base + 3 + F.SRC] = rsrc;
    u[base + 3 + F.DST] = rdst;
    u[base + 3 + F.PORTS] = rports;
    u[base + F.PROTO] = proto;
    u[base + F.STATUS] = Ips.IN_USE;
    this.f64[i * D + G.SEQ] = ++this.seqCounter;
    this.f64[i * D + G.STAMP] = stamp;
    u[base + F.UNCONF_POS] = this.unconfCount;
    this.unconf[this.unconfCount++] = i;
    return i;
  }

  /** Replaces the reply tuple of an unconfirmed entry (nf_conntrack_alter_reply). */
  setReply(i: number, src: number, dst: number, ports: number): void {
    const b = i * U + 3;
    this.u32[b + F.SRC] = src;
    this.u32[b + F.DST] = dst;
    this.u32[b + F.PORTS] = ports >>> 0;
  }

  /** Inserts both tuples into the hash (the entry becomes visible to lookups). */
  confirm(i: number): void {
    this.removePending(i);
    this.link(2 * i);
    this.link(2 * i + 1);
    this.setStatus(i, Ips.CONFIRMED | Ips.IN_HASH);
  }

  /**
   * Takes an entry out of the lookup hash but keeps its row until the current event ends, as the
   * kernel keeps a killed entry alive while a packet still holds a reference to it.
   */
  retire(i: number, stamp: number): void {
    const st = this.status(i);
    if ((st & Ips.IN_USE) === 0 || st & Ips.DYING) return;
    if (st & Ips.IN_HASH) {
      this.unlink(2 * i);
      this.unlink(2 * i + 1);
      this.clearStatus(i, Ips.IN_HASH);
    }
    if (st & Ips.IN_BYSRC) {
      this.unlinkBySource(i);
      this.clearStatus(i, Ips.IN_BYSRC);
    }
    this.setStatus(i, Ips.DYING);
    this.f64[i * D + G.STAMP] = stamp;
    this.removePending(i);
    this.u32[i * U + F.UNCONF_POS] = this.unconfCount;
    this.unconf[this.unconfCount++] = i;
  }

  /** Frees an entry's row now (confirmed or not). */
  free(i: number): void {
    const st = this.status(i);
    if ((st & Ips.IN_USE) === 0) return;
    if (st & Ips.IN_HASH) {
      this.unlink(2 * i);
      this.unlink(2 * i + 1);
    }
    this.removePending(i);
    if (st & Ips.IN_BYSRC) this.unlinkBySource(i);
    this.u32[i * U + F.STATUS] = 0;
    this.freeNext[i] = this.freeHead;
    this.freeHead = i;
    this.count--;
  }

  /** Frees unconfirmed entries whose packet ended in an earlier event without reaching a confirm point, and retired ones. */
  reapPending(stamp: number): void {
    for (let k = this.unconfCount - 1; k >= 0; k--) {
      const i = this.unconf[k]!;
      if (this.f64[i * D + G.STAMP] !== stamp) this.free(i);
    }
  }

  /** Highest row index ever used (rows in [0, rowsUsed) may be in use). */
  get rowsUsed(): number {
    return this.used;
  }

  // ---- NAT by-source index (find_appropriate_src) -----------------------------------------

  linkBySource(i: number): void {
    if (this.status(i) & Ips.IN_BYSRC) return;
    const h = this.bySourceBucket(this.src(i, 0), this.sport(i, 0), this.proto(i));
    this.srcNext[i] = this.srcHeads[h]!;
    this.srcHeads[h] = i;
    this.setStatus(i, Ips.IN_BYSRC);
  }

  /** First entry (after `from`, -1 = start) in the by-source bucket of (src, sport, proto). */
  bySourceNext(src: number, sport: number, proto: number, from: number): number {
    if (from < 0) return this.srcHeads[this.bySourceBucket(src, sport, proto)]!;
    return this.srcNext[from]!;
  }

  private bySourceBucket(src: number, sport: number, proto: number): number {
    return tupleHash(src, 0, sport, proto) & this.headMask;
  }

  private unlinkBySource(i: number): void {
    const h = this.bySourceBucket(this.src(i, 0), this.sport(i, 0), this.proto(i));
    let prev = -1;
    let n = this.srcHeads[h]!;
    while (n >= 0 && n !== i) {
      prev = n;
      n = this.srcNext[n]!;
    }
    if (n < 0) return;
    if (prev < 0) this.srcHeads[h] = this.srcNext[i]!;
    else this.srcNext[prev] = this.srcNext[i]!;
  }

  // ---- internals --------------------------------------------------------------------------

  private removePending(i: number): void {
    const pos = this.u32[i * U + F.UNCONF_POS]!;
    if (pos >= this.unconfCount || this.unconf[pos] !== i) return;
    const last = this.unconf[--this.unconfCount]!;
    this.unconf[pos] = last;
    this.u32[last * U + F.UNCONF_POS] = pos;
  }

  private link(n: number): void {
    const i = n >> 1;
    const b = i * U + 3 * (n & 1);
    const u = this.u32;
    const h = tupleHash(u[b + F.SRC]!, u[b + F.DST]!, u[b + F.PORTS]!, u[i * U + F.PROTO]!) & this.headMask;
    this.next[n] = this.heads[h]!;
    this.heads[h] = n;
  }

  private unlink(n: number): void {
    const i = n >> 1;
    const b = i * U + 3 * (n & 1);
    const u = this.u32;
    const h = tupleHash(u[b + F.SRC]!, u[b + F.DST]!, u[b + F.PORTS]!, u[i * U + F.PROTO]!) & this.headMask;
    let prev = -1;
    let m = this.heads[h]!;
    while (m >= 0 && m !== n) {
      prev = m;
      m = this.next[m]!;
    }
    if (m < 0) return;
    if (prev < 0) this.heads[h] = this.next[n]!;
    else this.next[prev] = this.next[n]!;
  }

  private grow(): void {
    const cap = Math.min(this.capacity * 2, this.maxEntries);
    const u32 = new Uint32Array(cap * U);
    u32.set(this.u32);
    const f64 = new Float64Array(cap * D);
    f64.set(this.f64);
    const freeNext = new Int32Array(cap);
    freeNext.set(this.freeNext);
    const unconf = new Int32Array(cap);
    unconf.set(this.unconf);
    this.u32 = u32;
    this.f64 = f64;
    this.freeNext = freeNext;
    this.unconf = unconf;
    this.capacity = cap;
    this.next = new Int32Array(cap * 2);
    this.srcNext = new Int32Array(cap);
    const buckets = bucketCount(cap);
    this.heads = new Int32Array(buckets).fill(-1);
    this.srcHeads = new Int32Array(buckets).fill(-1);
    this.headMask = buckets - 1;
    for (let i = 0; i < this.used; i++) {
      const st = this.status(i);
      if ((st & Ips.IN_USE) === 0) continue;
      if (st & Ips.IN_HASH) {
        this.link(2 * i);
        this.link(2 * i + 1);
      }
      if (st & Ips.IN_BYSRC) {
        this.clearStatus(i, Ips.IN_BYSRC);
        this.linkBySource(i);
      }
    }
  }
}

function bucketCount(capacity: number): number {
  let b = 16;
  while (b < capacity * 2) b *= 2;
  return b;
}

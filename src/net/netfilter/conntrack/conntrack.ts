// Conntrack: one namespace's connection table (zone-less), on simulated time. Lookups skip and
// reap expired entries, and a cleanup pass runs at most once a minute when entries are created (the
// gc worker's job); a full table (nf_conntrack_max) first reaps expired entries, then refuses new
// connections ("nf_conntrack: table full, dropping packet") and counts the drop.

import { CtDir, CtTable, F, G, Ips, ROW_WORDS } from "./table.js";
import { DEFAULT_CONNTRACK_CONFIG, NS_PER_SECOND, type ConntrackConfig } from "./timeouts.js";
import { formatConntrackEntry, type CtEntryInfo, describeEntry } from "./listing.js";

export interface CtClock {
  /** Simulated time in ns. */
  readonly now: number;
  /** Events run so far: constant while one event runs (used to reap entries of dropped packets). */
  readonly executed: number;
}

/** Counters in the spirit of `conntrack -S`. */
export interface ConntrackStats {
  found: number;
  invalid: number;
  insert: number;
  insertFailed: number;
  drop: number;
  error: number;
  expired: number;
  /** Packets refused because the table was full. */
  tableFull: number;
}

/** How often creating entries triggers a cleanup pass (GC_SCAN_INTERVAL_MAX, 60 s). */
const GC_INTERVAL_NS = 60 * NS_PER_SECOND;

export const IPPROTO_ICMP = 1;
export const IPPROTO_TCP = 6;
export const IPPROTO_UDP = 17;
export const IPPROTO_SCTP = 132;

/** ICMP request/reply type pairs conntrack can invert (nf_conntrack_invert_icmp_tuple). */
export function invertIcmpType(type: number): number {
  switch (type) {
    case 8:
      return 0;
    case 0:
      return 8;
    case 13:
      return 14;
    case 14:
      return 13;
    case 15:
      return 16;
    case 16:
      return 15;
    case 17:
      return 18;
    case 18:
      return 17;
    default:
      return -1;
  }
}

/** Ports word of a tuple: sport << 16 | dport; for ICMP id << 16 | type << 8 | code. */
export function packPorts(sport: number, dport: number): number {
  return ((sport << 16) | dport) >>> 0;
}

/**
 * The inverse of a tuple's ports word for protocol proto, or -1 when it has none (an ICMP type
 * without a reply type). Addresses invert by swapping.
 */
export function invertPorts(proto: number, ports: number): number {
  if (proto === IPPROTO_ICMP) {
    const inv = invertIcmpType((ports >>> 8) & 0xff);
    if (inv < 0) return -1;
    return ((ports & 0xffff0000) | (inv << 8) | (ports & 0xff)) >>> 0;
  }
  return (((ports & 0xffff) << 16) | (ports >>> 16)) >>> 0;
}

export class Conntrack {
  readonly config: ConntrackConfig;
  readonly table: CtTable;
  readonly stats: ConntrackStats = {
    found: 0,
    invalid: 0,
    insert: 0,
    insertFailed: 0,
    drop: 0,
    error: 0,
    expired: 0,
    tableFull: 0,
  };

  private lastGc = 0;

  constructor(
    readonly clock: CtClock,
    config: Partial<ConntrackConfig> = {},
  ) {
    this.config = { ...DEFAULT_CONNTRACK_CONFIG, ...config };
    this.table = new CtTable(this.config.maxEntries);
  }

  /** Entries in use, confirmed or not (nf_conntrack_count). */
  get count(): number {
    return this.table.count;
  }

  /** The timeout for `seconds` from now, in ns. */
  expiresIn(seconds: number): number {
    return this.clock.now + seconds * NS_PER_SECOND;
  }

  isExpired(i: number): boolean {
    return this.table.getF(i, G.EXPIRES) <= this.clock.now;
  }

  /** Sets the entry's timer to now + seconds (nf_ct_refresh), unless its timeout is fixed. */
  refresh(i: number, seconds: number): void {
    if (this.table.u32[i * ROW_WORDS + F.STATUS]! & Ips.FIXED_TIMEOUT) return;
    this.table.setF(i, G.EXPIRES, this.expiresIn(seconds));
  }

  /** Confirmed entry node (2 * entry + dir) for a tuple, reaping expired entries on the way; -1 if none. */
  find(src: number, dst: number, ports: number, proto: number): number {
    const t = this.table;
    for (;;) {
      const n = t.findNode(src, dst, ports, proto);
      if (n < 0) return -1;
      const i = n >> 1;
      if (!this.isExpired(i)) return n;
      this.stats.expired++;
      t.free(i);
    }
  }

  /**
   * True when a confirmed entry other than `ignore` already uses this tuple in either direction
   * (nf_conntrack_tuple_taken), except an entry for the very same original tuple.
   */
  tupleTaken(src: number, dst: number, ports: number, proto: number, ignore: number): boolean {
    const t = this.table;
    let n = t.bucketNext(src, dst, ports, proto, -1);
    while (n >= 0) {
      const next = t.bucketNext(src, dst, ports, proto, n);
      const i = n >> 1;
      if (i !== ignore && t.nodeMatches(n, src, dst, ports, proto)) {
        if (this.isExpired(i)) {
          this.stats.expired++;
          t.free(i);
        } else if (!this.sameOriginal(i, ignore)) {
          return true;
        }
      }
      n = next;
    }
    return false;
  }

  /**
   * A new unconfirmed entry (init_conntrack) or -1 when the table is full (counted). The caller
   * must have checked that the tuple inverts.
   */
  create(proto: number, src: number, dst: number, ports: number, rports: number): number {
    const t = this.table;
    const stamp = this.clock.executed;
    t.reapPending(stamp);
    if (this.clock.now - this.lastGc >= GC_INTERVAL_NS) this.gc();
    let i = t.alloc(proto, src, dst, ports, dst, src, rports, stamp);
    if (i < 0) {
      this.gc();
      i = t.alloc(proto, src, dst, ports, dst, src, rports, stamp);
      if (i < 0) {
        this.stats.tableFull++;
        this.stats.drop++;
        return -1;
      }
    }
    t.setF(i, G.EXPIRES, this.clock.now);
    return i;
  }

  /** Puts an unconfirmed entry into the table (__nf_conntrack_confirm); false if its tuples clash. */
  confirm(i: number): boolean {
    const t = this.table;
    if (t.confirmed(i)) return true;
    const clashOrig = this.find(t.src(i, 0), t.dst(i, 0), t.ports(i, 0), t.proto(i));
    const clashReply = this.find(t.src(i, 1), t.dst(i, 1), t.ports(i, 1), t.proto(i));
    if (clashOrig >= 0 || clashReply >= 0) {
      this.stats.insertFailed++;
      this.stats.drop++;
      return false;
    }
    t.confirm(i);
    this.stats.insert++;
    return true;
  }

  /** Deletes an entry (nf_ct_kill): gone from lookups now, its row freed after the current event. */
  kill(i: number): void {
    if (this.table.inUse(i)) this.table.retire(i, this.clock.executed);
  }

  /** True when entry i is live and not being deleted. */
  isAlive(i: number): boolean {
    return this.table.inUse(i) && (this.table.status(i) & Ips.DYING) === 0;
  }

  /** Reaps every expired confirmed entry (the gc worker's pass); returns how many went. */
  gc(): number {
    this.lastGc = this.clock.now;
    const t = this.table;
    let reaped = 0;
    for (let i = 0; i < t.rowsUsed; i++) {
      if (t.inUse(i) && (t.status(i) & Ips.IN_HASH) !== 0 && this.isExpired(i)) {
        t.free(i);
        reaped++;
      }
    }
    this.stats.expired += reaped;
    return reaped;
  }

  /** Forgets every entry (conntrack -F). */
  flush(): void {
    const t = this.table;
    for (let i = 0; i < t.rowsUsed; i++) if (t.inUse(i)) t.free(i);
  }

  /** Deletes entries whose MASQUERADE binding used interface `ifindex` (device went down). */
  flushMasquerade(ifindex: number): number {
    const t = this.table;
    let n = 0;
    for (let i = 0; i < t.rowsUsed; i++) {
      if (t.inUse(i) && t.get(i, F.MASQ_IFINDEX) === ifindex) {
        t.free(i);
        n++;
      }
    }
    return n;
  }

  /** Live confirmed entries, oldest first, as records (for tests and tools). */
  entries(): CtEntryInfo[] {
    const t = this.table;
    const rows: number[] = [];
    for (let i = 0; i < t.rowsUsed; i++) {
      if (t.inUse(i) && (t.status(i) & Ips.IN_HASH) !== 0 && !this.isExpired(i)) rows.push(i);
    }
    rows.sort((a, b) => t.getF(a, G.SEQ) - t.getF(b, G.SEQ));
    return rows.map((i) => describeEntry(this, i));
  }

  /** `conntrack -L`-style text, one entry per line, oldest first. */
  list(): string {
    return this.entries()
      .map((e) => formatConntrackEntry(e))
      .join("\n");
  }

  private sameOriginal(i: number, j: number): boolean {
    if (j < 0) return false;
    const t = this.table;
    return (
      t.src(i, CtDir.ORIGINAL) === t.src(j, CtDir.ORIGINAL) &&
      t.dst(i, CtDir.ORIGINAL) === t.dst(j, CtDir.ORIGINAL) &&
      t.ports(i, CtDir.ORIGINAL) === t.ports(j, CtDir.ORIGINAL) &&
      t.proto(i) === t.proto(j)
    );
  }
}

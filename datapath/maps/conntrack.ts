// ConntrackMap: the IPv4 connection-tracking table (like Cilium's cilium_ct4_global), an LRU hash keyed by
// the 5-tuple plus tuple flags. Only storage and layout live here; the state machine belongs to datapath/lib.
// Per-packet methods take and return only 32-bit integers (no 64-bit number crosses a call: V8 would box it).
import { LruHashMap } from "./lru.js";
import { addU32ToU64, readU64, writeU64 } from "./words.js";

/** Tuple flags in the key (Cilium's TUPLE_F_* values). */
export const CtTupleFlag = { OUT: 0, IN: 1, RELATED: 2, SERVICE: 4 } as const;

/** Bits of the FLAGS value word (set and read by the conntrack library). */
export const CtFlag = {
  RX_CLOSING: 1,
  TX_CLOSING: 2,
  SEEN_NON_SYN: 4,
  NODE_PORT: 8,
  DSR: 16,
} as const;

/**
 * Key words: 0 saddr, 1 daddr, 2 sport << 16 | dport, 3 proto | tupleFlags << 8.
 * Value words (64-bit numbers take two words, low first; see words.ts):
 */
export const CtValue = {
  FLAGS: 0, // CtFlag bits
  TCP_FLAGS_SEEN: 1, // TCP flags seen: forward direction in bits 0-7, reply direction in bits 8-15
  EXPIRES_NS: 2, // 2 words: simulated time (ns) after which the entry is stale
  TX_PACKETS: 4, // 2 words, forward direction
  TX_BYTES: 6, // 2 words
  RX_PACKETS: 8, // 2 words, reply direction
  RX_BYTES: 10, // 2 words
  REV_NAT_INDEX: 12, // reverse-NAT (service) index to undo DNAT on replies; 0 = none
  BACKEND_ID: 13, // selected service backend; 0 = none
  SRC_IDENTITY: 14, // security identity of the connection's source
  ORIG_SADDR: 15, // original tuple before translation
  ORIG_DADDR: 16,
  ORIG_PORTS: 17, // sport << 16 | dport
  CREATED_NS: 18, // 2 words
  TUNNEL_RETURN: 20, // OUT/IN entries of NodePort flows: node (IPv4) to send replies back to through the tunnel; 0 = none
} as const;
export const CT_VALUE_WORDS = 21;
const KEY_WORDS = 4;

export interface ConntrackMapOptions {
  /** Like BPF_F_NO_PREALLOC: storage starts small and doubles up to maxEntries (a packet that makes it grow allocates). */
  noPrealloc?: boolean;
}

export class ConntrackMap {
  readonly table: LruHashMap;
  /** True when the last createV4/insertV4 made a new entry. */
  created = false;

  constructor(maxEntries: number, options: ConntrackMapOptions = {}) {
    this.table = new LruHashMap({
      keyWords: KEY_WORDS,
      valueWords: CT_VALUE_WORDS,
      maxEntries,
      ...(options.noPrealloc === true ? { noPrealloc: true } : {}),
    });
  }

  get size(): number {
    return this.table.size;
  }

  get stats() {
    return this.table.stats;
  }

  /** Value words: `values[slot * CT_VALUE_WORDS + CtValue.X]` (replaced when a noPrealloc map grows: re-read after creating). */
  get values(): Uint32Array {
    return this.table.values;
  }

  /** Slot of the entry for this tuple (marks it recently used), or -1. */
  lookupV4(saddr: number, daddr: number, sport: number, dport: number, proto: number, tupleFlags: number): number {
    this.loadKey(saddr, daddr, sport, dport, proto, tupleFlags);
    return this.table.lookup();
  }

  /**
   * Slot of the entry for this tuple, creating it when absent (sets `created`): a new entry records
   * CREATED_NS = nowNs, EXPIRES_NS = nowNs + lifetimeNs and the tuple as its original tuple.
   * When full, the least recently used entry is evicted (stats.evictions).
   */
  createV4(
    saddr: number,
    daddr: number,
    sport: number,
    dport: number,
    proto: number,
    tupleFlags: number,
    nowNs: number,
    lifetimeNs: number,
  ): number {
    const slot = this.insertV4(saddr, daddr, sport, dport, proto, tupleFlags);
    if (slot < 0 || !this.created) return slot;
    const v = this.table.values;
    const base = slot * CT_VALUE_WORDS;
    writeU64(v, base + CtValue.CREATED_NS, nowNs);
    writeU64(v, base + CtValue.EXPIRES_NS, nowNs + lifetimeNs);
    return slot;
  }

  /**
   * createV4 without the times, for the datapath (which writes CREATED_NS and EXPIRES_NS from its own clock
   * without passing 64-bit numbers around): a new entry is zeroed except for its original tuple.
   */
  insertV4(saddr: number, daddr: number, sport: number, dport: number, proto: number, tupleFlags: number): number {
    this.loadKey(saddr, daddr, sport, dport, proto, tupleFlags);
    const slot = this.table.upsert();
    this.created = this.table.created;
    if (slot < 0 || !this.created) return slot;
    const v = this.table.values;
    const base = slot * CT_VALUE_WORDS;
    v[base + CtValue.ORIG_SADDR] = saddr;
    v[base + CtValue.ORIG_DADDR] = daddr;
    v[base + CtValue.ORIG_PORTS] = ((sport << 16) | dport) >>> 0;
    return slot;
  }

  deleteV4(saddr: number, daddr: number, sport: number, dport: number, proto: number, tupleFlags: number): boolean {
    this.loadKey(saddr, daddr, sport, dport, proto, tupleFlags);
    return this.table.delete();
  }

  deleteSlot(slot: number): boolean {
    return this.table.deleteSlot(slot);
  }

  expiresAt(slot: number): number {
    return readU64(this.table.values, slot * CT_VALUE_WORDS + CtValue.EXPIRES_NS);
  }

  setExpiry(slot: number, expiresNs: number): void {
    writeU64(this.table.values, slot * CT_VALUE_WORDS + CtValue.EXPIRES_NS, expiresNs);
  }

  /** Counts one forward-direction packet of `bytes` (< 2^32). */
  addTx(slot: number, bytes: number): void {
    const base = slot * CT_VALUE_WORDS;
    addU32ToU64(this.table.values, base + CtValue.TX_PACKETS, 1);
    addU32ToU64(this.table.values, base + CtValue.TX_BYTES, bytes);
  }

  /** Counts one reply-direction packet of `bytes` (< 2^32). */
  addRx(slot: number, bytes: number): void {
    const base = slot * CT_VALUE_WORDS;
    addU32ToU64(this.table.values, base + CtValue.RX_PACKETS, 1);
    addU32ToU64(this.table.values, base + CtValue.RX_BYTES, bytes);
  }

  /** Garbage collection (control-plane timer): deletes entries with EXPIRES_NS <= nowNs; returns how many. */
  gc(nowNs: number): number {
    let removed = 0;
    for (let slot = this.table.nextSlot(-1); slot >= 0; slot = this.table.nextSlot(slot)) {
      if (this.expiresAt(slot) <= nowNs) {
        this.table.deleteSlot(slot);
        removed++;
      }
    }
    return removed;
  }

  clear(): void {
    this.table.clear();
  }

  private loadKey(saddr: number, daddr: number, sport: number, dport: number, proto: number, tupleFlags: number): void {
    const key = this.table.key;
    key[0] = saddr;
    key[1] = daddr;
    key[2] = ((sport & 0xffff) << 16) | (dport & 0xffff);
    key[3] = (proto & 0xff) | ((tupleFlags & 0xff) << 8);
  }
}

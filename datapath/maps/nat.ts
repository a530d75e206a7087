// SNAT map (like Cilium's cilium_snat_v4_external): an LRU of address/port rewrites for eBPF-mode
// masquerade and NodePort SNAT. Each mapping is two entries: EGRESS keyed by the original tuple gives
// the new source, INGRESS keyed by the reply tuple gives the original source to restore.
import { LruHashMap } from "./lru.js";
import { readU64, writeU64 } from "./words.js";

export const SnatDir = { EGRESS: 0, INGRESS: 1 } as const;

/** Value words: translated address and port, creation time (ns, two words). */
export const SnatValue = { ADDR: 0, PORT: 1, CREATED_NS: 2 } as const;
const VALUE_WORDS = 4;

export class SnatMap {
  readonly table: LruHashMap;

  constructor(maxEntries = 65536) {
    this.table = new LruHashMap({ keyWords: 4, valueWords: VALUE_WORDS, maxEntries });
  }

  get size(): number {
    return this.table.size;
  }

  /** Slot of the entry for a packet tuple in a direction, or -1 (refreshes LRU recency). */
  lookup(dir: number, saddr: number, daddr: number, sport: number, dport: number, proto: number): number {
    this.loadKey(dir, saddr, daddr, sport, dport, proto);
    return this.table.lookup();
  }

  /** True when the tuple has an entry, without touching recency (for port allocation probes). */
  has(dir: number, saddr: number, daddr: number, sport: number, dport: number, proto: number): boolean {
    this.loadKey(dir, saddr, daddr, sport, dport, proto);
    return this.table.peek() >= 0;
  }

  addr(slot: number): number {
    return this.table.values[slot * VALUE_WORDS + SnatValue.ADDR]!;
  }

  port(slot: number): number {
    return this.table.values[slot * VALUE_WORDS + SnatValue.PORT]!;
  }

  createdAt(slot: number): number {
    return readU64(this.table.values, slot * VALUE_WORDS + SnatValue.CREATED_NS);
  }

  /**
   * Records the mapping (saddr:sport -> toAddr:toPort for packets to daddr:dport) in both directions.
   * Returns 0, or a negative map error when an entry could not be written.
   */
  create(
    saddr: number,
    daddr: number,
    sport: number,
    dport: number,
    proto: number,
    toAddr: number,
    toPort: number,
    nowNs: number,
  ): number {
    this.loadKey(SnatDir.EGRESS, saddr, daddr, sport, dport, proto);
    const out = this.table.upsert();
    if (out < 0) return out;
    this.store(out, toAddr, toPort, nowNs);
    this.loadKey(SnatDir.INGRESS, daddr, toAddr, dport, toPort, proto);
    const back = this.table.upsert();
    if (back < 0) return back;
    this.store(back, saddr, sport, nowNs);
    return 0;
  }

  clear(): void {
    this.table.clear();
  }

  private store(slot: number, addr: number, port: number, nowNs: number): void {
    const v = this.table.values;
    v[slot * VALUE_WORDS + SnatValue.ADDR] = addr;
    v[slot * VALUE_WORDS + SnatValue.PORT] = port;
    writeU64(v, slot * VALUE_WORDS + SnatValue.CREATED_NS, nowNs);
  }

  private loadKey(dir: number, saddr: number, daddr: number, sport: number, dport: number, proto: number): void {
    const key = this.table.key;
    key[0] = saddr;
    key[1] = daddr;
    key[2] = ((sport & 0xffff) << 16) | (dport & 0xffff);
    key[3] = (proto & 0xff) | ((dir & 0xff) << 8);
  }
}

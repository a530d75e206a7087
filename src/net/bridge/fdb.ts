// The bridge forwarding database (br_fdb): MAC -> port entries in typed arrays with open addressing,
// learned entries aging on simulated time (expired when updated + ageing <= now, as br_fdb_cleanup
// decides), and local (the bridge's and its ports' own MACs) and static entries that never age.

/** Entry flags, as the kernel's BR_FDB_* bits name them. */
export const FdbFlag = {
  /** One of the bridge's own addresses: frames to it go up to the bridge device. */
  LOCAL: 1,
  /** Never ages out (local entries and `bridge fdb add ... static`). */
  STATIC: 2,
  /** Added with `bridge fdb add`. */
  ADDED_BY_USER: 4,
  /** Learning never moves it to another port. */
  STICKY: 8,
} as const;

/** Port index of an entry that points at the bridge device itself (its own MAC). */
export const FDB_PORT_BRIDGE = -1;

/** What learning did with a source address. */
export const LearnResult = { CREATED: 0, REFRESHED: 1, MOVED: 2, LOCAL: 3, FULL: 4 } as const;
export type LearnResult = (typeof LearnResult)[keyof typeof LearnResult];

export interface FdbEntryView {
  readonly mac: number;
  readonly port: number;
  readonly flags: number;
  /** Simulated ns when the entry was last learned or refreshed. */
  readonly updated: number;
  /** Simulated ns when a frame was last forwarded by it. */
  readonly used: number;
}

const EMPTY = -1;
const TWO_24 = 0x1000000;

/**
 * Where one MAC was found in the table (its slot, or -1 when absent) and the table's layout generation
 * then. A bridge port keeps one for the source and one for the destination of its last frame: a port
 * sees the same few MACs frame after frame, and the slot holds (or stays empty) until an entry is
 * inserted, removed or moved, each of which bumps the generation.
 */
export class FdbSlotMemo {
  mac = -1;
  slot = -1;
  generation = -1;
}

export class BridgeFdb {
  /** Entries beyond this count are not learned (the kernel's fdb_max_learned; 0 = no limit). */
  maxLearned = 0;
  private hi: Int32Array;
  private lo: Int32Array;
  private ports: Int32Array;
  private flagBits: Uint8Array;
  private updatedAt: Float64Array;
  private usedAt: Float64Array;
  private mask: number;
  private count = 0;
  private learnedCount = 0;
  /** Bumped whenever an entry is inserted, removed or moved to another slot (FdbSlotMemo's validity). */
  private generation = 0;

  constructor(
    /** Learned entries expire this many ns after they were last refreshed; 0 = never learn. */
    public ageingNs: number,
    initialCapacity = 64,
  ) {
    let cap = 16;
    while (cap < initialCapacity * 2) cap *= 2;
    this.mask = cap - 1;
    this.hi = new Int32Array(cap).fill(EMPTY);
    this.lo = new Int32Array(cap);
    this.ports = new Int32Array(cap);
    this.flagBits = new Uint8Array(cap);
    this.updatedAt = new Float64Array(cap);
    this.usedAt = new Float64Array(cap);
  }

  get size(): number {
    return this.count;
  }

  /** Slot of a live entry for mac, or -1 (an expired learned entry is removed on the way). */
  find(mac: number, now: number): number {
    return this.liveSlot(this.slotOf(mac), now);
  }

  /** find, with the slot search skipped when memo already holds mac's slot for the current layout. */
  findVia(memo: FdbSlotMemo, mac: number, now: number): number {
    return this.liveSlot(this.memoSlot(memo, mac), now);
  }

  private liveSlot(slot: number, now: number): number {
    if (slot < 0) return -1;
    if (this.expired(slot, now)) {
      this.removeSlot(slot);
      return -1;
    }
    return slot;
  }

  portAt(slot: number): number {
    return this.ports[slot]!;
  }

  flagsAt(slot: number): number {
    return this.flagBits[slot]!;
  }

  /** Marks the entry as used for forwarding (br_handle_frame_finish's dst->used). */
  touch(slot: number, now: number): void {
    this.usedAt[slot] = now;
  }

  /**
   * br_fdb_update: learns mac behind port. A local entry is never taken over (the kernel warns about
   * its own address arriving as a source); a sticky one is refreshed but not moved.
   */
  learn(mac: number, port: number, now: number): LearnResult {
    return this.ageingNs === 0 ? LearnResult.REFRESHED : this.learnAt(this.slotOf(mac), mac, port, now);
  }

  /** learn, with the slot search skipped when memo already holds mac's slot for the current layout. */
  learnVia(memo: FdbSlotMemo, mac: number, port: number, now: number): LearnResult {
    return this.ageingNs === 0 ? LearnResult.REFRESHED : this.learnAt(this.memoSlot(memo, mac), mac, port, now);
  }

  /** The slot of mac (-1 when absent): memo's answer while the layout is unchanged, else searched and kept in memo. */
  private memoSlot(memo: FdbSlotMemo, mac: number): number {
    if (memo.mac === mac && memo.generation === this.generation) return memo.slot;
    const slot = this.slotOf(mac);
    memo.mac = mac;
    memo.slot = slot;
    memo.generation = this.generation;
    return slot;
  }

  /** br_fdb_update for mac found at slot (-1 = absent). */
  private learnAt(slot: number, mac: number, port: number, now: number): LearnResult {
    if (slot >= 0 && this.expired(slot, now)) {
      this.removeSlot(slot);
      slot = -1;
    }
    if (slot >= 0) {
      const flags = this.flagBits[slot]!;
      if (flags & FdbFlag.LOCAL) return LearnResult.LOCAL;
      this.updatedAt[slot] = now;
      if (this.ports[slot] !== port && (flags & FdbFlag.STICKY) === 0) {
        this.ports[slot] = port;
        return LearnResult.MOVED;
      }
      return LearnResult.REFRESHED;
    }
    if (this.maxLearned > 0 && this.learnedCount >= this.maxLearned) return LearnResult.FULL;
    this.insert(mac, port, 0, now);
    return LearnResult.CREATED;
  }

  /** Adds or replaces an entry with fixed flags (local or static); returns its slot. */
  set(mac: number, port: number, flags: number, now: number): number {
    const slot = this.slotOf(mac);
    if (slot >= 0) {
      if (this.isLearned(slot)) this.learnedCount--;
      this.ports[slot] = port;
      this.flagBits[slot] = flags;
      this.updatedAt[slot] = now;
      if (this.isLearned(slot)) this.learnedCount++;
      return slot;
    }
    return this.insert(mac, port, flags, now);
  }

  /** Removes a live entry (an aged-out one counts as already gone). */
  delete(mac: number, now: number): boolean {
    const slot = this.find(mac, now);
    if (slot < 0) return false;
    this.removeSlot(slot);
    return true;
  }

  /** Removes every entry pointing at port (br_fdb_delete_by_port), local ones included when asked. */
  deleteByPort(port: number, includeLocal: boolean): number {
    let removed = 0;
    for (let slot = 0; slot <= this.mask; ) {
      if (this.hi[slot] !== EMPTY && this.ports[slot] === port && (includeLocal || (this.flagBits[slot]! & FdbFlag.LOCAL) === 0)) {
        this.removeSlot(slot);
        removed++;
        continue; // backward shift may have moved another entry into this slot
      }
      slot++;
    }
    return removed;
  }

  /** Drops learned entries that have aged out; returns how many. */
  expire(now: number): number {
    let removed = 0;
    for (let slot = 0; slot <= this.mask; ) {
      if (this.hi[slot] !== EMPTY && this.expired(slot, now)) {
        this.removeSlot(slot);
        removed++;
        continue;
      }
      slot++;
    }
    return removed;
  }

  /** Live entries (`bridge fdb show`), sorted by MAC. Allocates: for listings and tests. */
  entries(now: number): FdbEntryView[] {
    const out: FdbEntryView[] = [];
    for (let slot = 0; slot <= this.mask; slot++) {
      if (this.hi[slot] === EMPTY || this.expired(slot, now)) continue;
      out.push({
        mac: this.hi[slot]! * TWO_24 + this.lo[slot]!,
        port: this.ports[slot]!,
        flags: this.flagBits[slot]!,
        updated: this.updatedAt[slot]!,
        used: this.usedAt[slot]!,
      });
    }
    return out.sort((a, b) => a.mac - b.mac);
  }

  private isLearned(slot: number): boolean {
    return (this.flagBits[slot]! & (FdbFlag.LOCAL | FdbFlag.STATIC)) === 0;
  }

  private expired(slot: number, now: number): boolean {
    return this.isLearned(slot) && this.updatedAt[slot]! + this.ageingNs <= now;
  }

  private hash(hi: number, lo: number): number {
    let h = Math.imul(hi ^ 0x2c1b3c6d, 0x9e3779b1) ^ lo;
    h = Math.imul(h ^ (h >>> 15), 0x85ebca6b);
    h ^= h >>> 13;
    return h & this.mask;
  }

  private slotOf(mac: number): number {
    const hi = Math.floor(mac / TWO_24);
    // Subtraction, not %: a 48-bit MAC is no small integer, and % on doubles is a slow fmod call.
    const lo = mac - hi * TWO_24;
    const keysHi = this.hi;
    const mask = this.mask;
    for (let slot = this.hash(hi, lo); ; slot = (slot + 1) & mask) {
      const k = keysHi[slot]!;
      if (k === EMPTY) return -1;
      if (k === hi && this.lo[slot] === lo) return slot;
    }
  }

  private insert(mac: number, port: number, flags: number, now: number): number {
    if ((this.count + 1) * 2 > this.mask + 1) this.grow();
    const hi = Math.floor(mac / TWO_24);
    const lo = mac - hi * TWO_24;
    let slot = this.hash(hi, lo);
    while (this.hi[slot] !== EMPTY) slot = (slot + 1) & this.mask;
    this.generation++;
    this.hi[slot] = hi;
    this.lo[slot] = lo;
    this.ports[slot] = port;
    this.flagBits[slot] = flags;
    this.updatedAt[slot] = now;
    this.usedAt[slot] = now;
    this.count++;
    if (this.isLearned(slot)) this.learnedCount++;
    return slot;
  }

  /** Linear-probing deletion by backward shift: no tombstones, probes stay short. */
  private removeSlot(slot: number): void {
    this.generation++; // covers the backward shift's moves too
    if (this.isLearned(slot)) this.learnedCount--;
    this.count--;
    const mask = this.mask;
    let hole = slot;
    for (let next = (hole + 1) & mask; this.hi[next] !== EMPTY; next = (next + 1) & mask) {
      const home = this.hash(this.hi[next]!, this.lo[next]!);
      // Move next into the hole when its home position is not in (hole, next] cyclically.
      const between = hole <= next ? home > hole && home <= next : home > hole || home <= next;
      if (between) continue;
      this.moveSlot(next, hole);
      hole = next;
    }
    this.hi[hole] = EMPTY;
  }

  private moveSlot(from: number, to: number): void {
    this.hi[to] = this.hi[from]!;
    this.lo[to] = this.lo[from]!;
    this.ports[to] = this.ports[from]!;
    this.flagBits[to] = this.flagBits[from]!;
    this.updatedAt[to] = this.updatedAt[from]!;
    this.usedAt[to] = this.usedAt[from]!;
  }

  private grow(): void {
    const oldHi = this.hi;
    const oldLo = this.lo;
    const oldPorts = this.ports;
    const oldFlags = this.flagBits;
    const oldUpdated = this.updatedAt;
    const oldUsed = this.usedAt;
    const cap = (this.mask + 1) * 2;
    this.mask = cap - 1;
    this.generation++;
    this.hi = new Int32Array(cap).fill(EMPTY);
    this.lo = new Int32Array(cap);
    this.ports = new Int32Array(cap);
    this.flagBits = new Uint8Array(cap);
    this.updatedAt = new Float64Array(cap);
    this.usedAt = new Float64Array(cap);
    for (let i = 0; i < oldHi.length; i++) {
      const hi = oldHi[i]!;
      if (hi === EMPTY) continue;
      let slot = this.hash(hi, oldLo[i]!);
      while (this.hi[slot] !== EMPTY) slot = (slot + 1) & this.mask;
      this.hi[slot] = hi;
      this.lo[slot] = oldLo[i]!;
      this.ports[slot] = oldPorts[i]!;
      this.flagBits[slot] = oldFlags[i]!;
      this.updatedAt[slot] = oldUpdated[i]!;
      this.usedAt[slot] = oldUsed[i]!;
    }
  }
}

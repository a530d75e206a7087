// HashMap: an eBPF-style hash map (BPF_MAP_TYPE_HASH) with fixed key/value word layouts in typed arrays.
// Entries live at stable entry ids; an open-addressing index (linear probing, backward-shift deletion)
// maps keys to ids. Lookups allocate nothing; a full map refuses updates with -MapError.FULL.
import { MapError, checkGeometry, newMapStats } from "./errors.js";
import type { MapStats } from "./errors.js";
import { hash1, hash2, hashWordsI } from "./hash.js";

export interface HashMapOptions {
  keyWords: number;
  valueWords: number;
  maxEntries: number;
  /** Like BPF_F_NO_PREALLOC: start small and double storage up to maxEntries instead of allocating it all. */
  noPrealloc?: boolean;
}

const EMPTY = -1;
const INITIAL_CAPACITY = 16;

/**
 * Calling convention (no allocation): write the key words into `map.key`, call `lookup()`, `upsert()` or
 * `delete()`. A slot (entry id) indexes values at `map.values[slot * valueWords + i]`.
 * A slot stays valid until its entry is deleted or evicted. `map.values` is replaced when a
 * noPrealloc map grows, so read `map.values` again after any upsert instead of keeping the array.
 */
export class HashMap {
  readonly keyWords: number;
  readonly valueWords: number;
  readonly maxEntries: number;
  /** Scratch key the caller fills before lookup/upsert/delete. */
  readonly key: Uint32Array;
  readonly stats: MapStats = newMapStats();
  /** Stored keys: `keys[slot * keyWords + i]`. */
  keys: Uint32Array;
  /** Stored values: `values[slot * valueWords + i]`; a new entry starts zeroed. */
  values: Uint32Array;
  /** Set by every upsert: true when it created the entry, false when the key was already present. */
  created = false;

  protected capacity: number;
  private index: Int32Array; // pairs [slot, hash] per cell; slot EMPTY marks a free cell
  private indexMask: number;
  private hashes: Int32Array; // hash of each slot's key
  private live: Uint8Array;
  private freeSlots: Int32Array;
  private freeTop = 0;
  private highWater = 0;
  private count = 0;

  constructor(options: HashMapOptions) {
    checkGeometry("HashMap key", options.keyWords, options.maxEntries);
    checkGeometry("HashMap value", options.valueWords, options.maxEntries);
    this.keyWords = options.keyWords;
    this.valueWords = options.valueWords;
    this.maxEntries = options.maxEntries;
    this.key = new Uint32Array(options.keyWords);
    this.capacity = options.noPrealloc === true ? Math.min(INITIAL_CAPACITY, this.maxEntries) : this.maxEntries;
    this.keys = new Uint32Array(this.capacity * this.keyWords);
    this.values = new Uint32Array(this.capacity * this.valueWords);
    this.hashes = new Int32Array(this.capacity);
    this.live = new Uint8Array(this.capacity);
    this.freeSlots = new Int32Array(this.capacity);
    const cells = indexCellsFor(this.capacity);
    this.index = new Int32Array(cells * 2).fill(EMPTY);
    this.indexMask = cells - 1;
  }

  get size(): number {
    return this.count;
  }

  /** Slot of the entry whose key is in `this.key`, or -1. */
  lookup(): number {
    this.stats.lookups++;
    const slot = this.find(this.key, 0, this.hashKey(this.key, 0));
    if (slot >= 0) this.stats.hits++;
    else this.stats.misses++;
    return slot;
  }

  /** Slot of the key in `this.key`, inserting a zeroed entry when absent (sets `created`); -MapError.FULL when full. */
  upsert(): number {
    const h = this.hashKey(this.key, 0);
    const found = this.find(this.key, 0, h);
    this.created = false;
    if (found >= 0) return found;
    if (this.count >= this.maxEntries && !this.makeRoom()) {
      this.stats.full++;
      return -MapError.FULL;
    }
    if (this.count >= this.capacity) this.grow();
    return this.insertAbsent(h);
  }

  /** Removes the entry whose key is in `this.key`; false when absent. */
  delete(): boolean {
    const h = this.hashKey(this.key, 0);
    const cell = this.findCell(this.key, 0, h);
    if (cell < 0) return false;
    this.removeCell(cell);
    return true;
  }

  /** Removes the entry at `slot` (e.g. found by iteration); false when the slot is not live. */
  deleteSlot(slot: number): boolean {
    if (slot < 0 || slot >= this.highWater || this.live[slot] === 0) return false;
    let cell = this.hashes[slot]! & this.indexMask;
    while (this.index[cell * 2] !== slot) cell = (cell + 1) & this.indexMask;
    this.removeCell(cell);
    return true;
  }

  clear(): void {
    this.index.fill(EMPTY);
    this.live.fill(0);
    this.freeTop = 0;
    this.highWater = 0;
    this.count = 0;
    this.onClear();
  }

  isLive(slot: number): boolean {
    return slot >= 0 && slot < this.highWater && this.live[slot] === 1;
  }

  /** Next live slot after `previous` (start with -1); -1 at the end. Order is slot order, not insertion order. */
  nextSlot(previous: number): number {
    for (let slot = previous + 1; slot < this.highWater; slot++) if (this.live[slot] === 1) return slot;
    return -1;
  }

  // Typed wrappers for the common 1- and 2-word keys.
  lookup1(k0: number): number {
    this.key[0] = k0;
    return this.lookup();
  }
  lookup2(k0: number, k1: number): number {
    this.key[0] = k0;
    this.key[1] = k1;
    return this.lookup();
  }
  upsert1(k0: number): number {
    this.key[0] = k0;
    return this.upsert();
  }
  upsert2(k0: number, k1: number): number {
    this.key[0] = k0;
    this.key[1] = k1;
    return this.upsert();
  }
  delete1(k0: number): boolean {
    this.key[0] = k0;
    return this.delete();
  }
  delete2(k0: number, k1: number): boolean {
    this.key[0] = k0;
    this.key[1] = k1;
    return this.delete();
  }

  /** Raw probe for a 1-word key (keyWords must be 1): no stats, no scratch (for maps built on top of this one). */
  find1(k0: number): number {
    k0 >>>= 0;
    const h = hash1(k0);
    const index = this.index;
    const mask = this.indexMask;
    let cell = h & mask;
    for (;;) {
      const slot = index[cell * 2]!;
      if (slot === EMPTY) return -1;
      if (index[cell * 2 + 1] === h && this.keys[slot * this.keyWords] === k0) return slot;
      cell = (cell + 1) & mask;
    }
  }

  /** Raw probe for a 2-word key (keyWords must be 2): no stats, no scratch (for maps built on top of this one). */
  find2(k0: number, k1: number): number {
    k0 >>>= 0;
    k1 >>>= 0;
    const h = hash2(k0, k1);
    const index = this.index;
    const mask = this.indexMask;
    const keys = this.keys;
    let cell = h & mask;
    for (;;) {
      const slot = index[cell * 2]!;
      if (slot === EMPTY) return -1;
      if (index[cell * 2 + 1] === h && keys[slot * 2] === k0 && keys[slot * 2 + 1] === k1) return slot;
      cell = (cell + 1) & mask;
    }
  }

  /** Lookup of a key held elsewhere (e.g. another map's key scratch) without counting stats. */
  findKey(words: Uint32Array, offset: number): number {
    return this.find(words, offset, this.hashKey(words, offset));
  }

  // Hooks for LruHashMap.
  protected makeRoom(): boolean {
    return false;
  }
  protected onInsert(_slot: number): void {}
  protected onRemove(_slot: number): void {}
  protected onGrow(_capacity: number): void {}
  protected onClear(): void {}

  private hashKey(words: Uint32Array, offset: number): number {
    const kw = this.keyWords;
    if (kw === 1) return hash1(words[offset]!);
    if (kw === 2) return hash2(words[offset]!, words[offset + 1]!);
    return hashWordsI(words, offset, kw);
  }

  private find(words: Uint32Array, offset: number, h: number): number {
    const cell = this.findCell(words, offset, h);
    return cell < 0 ? -1 : this.index[cell * 2]!;
  }

  private findCell(words: Uint32Array, offset: number, h: number): number {
    const index = this.index;
    const mask = this.indexMask;
    let cell = h & mask;
    for (;;) {
      const slot = index[cell * 2]!;
      if (slot === EMPTY) return -1;
      if (index[cell * 2 + 1] === h && this.keyEquals(slot, words, offset)) return cell;
      cell = (cell + 1) & mask;
    }
  }

  private keyEquals(slot: number, words: Uint32Array, offset: number): boolean {
    const kw = this.keyWords;
    const keys = this.keys;
    const base = slot * kw;
    if (keys[base] !== words[offset]) return false;
    for (let i = 1; i < kw; i++) if (keys[base + i] !== words[offset + i]) return false;
    return true;
  }

  private insertAbsent(h: number): number {
    const slot = this.freeTop > 0 ? this.freeSlots[--this.freeTop]! : this.highWater++;
    const kw = this.keyWords;
    const vw = this.valueWords;
    for (let i = 0; i < kw; i++) this.keys[slot * kw + i] = this.key[i]!;
    this.values.fill(0, slot * vw, slot * vw + vw);
    this.hashes[slot] = h;
    this.live[slot] = 1;
    this.placeInIndex(slot, h);
    this.count++;
    this.stats.inserts++;
    this.created = true;
    this.onInsert(slot);
    return slot;
  }

  private placeInIndex(slot: number, h: number): void {
    const mask = this.indexMask;
    let cell = h & mask;
    while (this.index[cell * 2] !== EMPTY) cell = (cell + 1) & mask;
    this.index[cell * 2] = slot;
    this.index[cell * 2 + 1] = h;
  }

  /** Backward-shift deletion: later cells of the probe run move back so no lookup stops early. */
  private removeCell(cell: number): void {
    const index = this.index;
    const mask = this.indexMask;
    const slot = index[cell * 2]!;
    let hole = cell;
    let next = (hole + 1) & mask;
    for (;;) {
      const moving = index[next * 2]!;
      if (moving === EMPTY) break;
      const home = index[next * 2 + 1]! & mask;
      // The entry at `next` may fill the hole only if its home cell is not inside (hole, next].
      if (((next - home) & mask) >= ((next - hole) & mask)) {
        index[hole * 2] = moving;
        index[hole * 2 + 1] = index[next * 2 + 1]!;
        hole = next;
      }
      next = (next + 1) & mask;
    }
    index[hole * 2] = EMPTY;
    this.live[slot] = 0;
    this.freeSlots[this.freeTop++] = slot;
    this.count--;
    this.stats.deletes++;
    this.onRemove(slot);
  }

  private grow(): void {
    const capacity = Math.min(this.maxEntries, this.capacity * 2);
    const keys = new Uint32Array(capacity * this.keyWords);
    keys.set(this.keys);
    const values = new Uint32Array(capacity * this.valueWords);
    values.set(this.values);
    const hashes = new Int32Array(capacity);
    hashes.set(this.hashes);
    const live = new Uint8Array(capacity);
    live.set(this.live);
    const freeSlots = new Int32Array(capacity);
    freeSlots.set(this.freeSlots);
    this.keys = keys;
    this.values = values;
    this.hashes = hashes;
    this.live = live;
    this.freeSlots = freeSlots;
    this.capacity = capacity;
    const cells = indexCellsFor(capacity);
    if (cells * 2 !== this.index.length) {
      this.index = new Int32Array(cells * 2).fill(EMPTY);
      this.indexMask = cells - 1;
      for (let slot = 0; slot < this.highWater; slot++) if (live[slot] === 1) this.placeInIndex(slot, hashes[slot]!);
    }
    this.onGrow(capacity);
  }
}

/** Index cells: a power of two at least twice the entry capacity (load factor <= 0.5). */
function indexCellsFor(capacity: number): number {
  let cells = 8;
  while (cells < capacity * 2) cells *= 2;
  return cells;
}

// LpmTrieMap: longest-prefix-match map (BPF_MAP_TYPE_LPM_TRIE) for 32-bit (IPv4) and 128-bit (IPv6) keys.
// Prefixes are stored exactly in a HashMap (stable slots, values); a stride-4 multibit trie with
// controlled prefix expansion answers lookups in at most keyBits/4 steps (8 for IPv4) with no allocation.
// IPv4 host prefixes (/32) skip the trie: one probe of a host table answers them, and a miss walks the trie.
// bench/maps.bench.ts compares it with a hash table per prefix length and a one-bit-per-level trie.
import { CELL_WORDS, CellTable, EMPTY, pairHash } from "./cell-table.js";
import { MapError, newMapStats } from "./errors.js";
import type { MapStats } from "./errors.js";
import { HashMap } from "./hashmap.js";

export interface LpmTrieMapOptions {
  keyBits: 32 | 128;
  valueWords: number;
  maxEntries: number;
  /** Grow the prefix table on demand instead of preallocating maxEntries (see HashMapOptions). */
  noPrealloc?: boolean;
}

const STRIDE = 4;
const FANOUT = 16;
const ROOT = 0;
const INITIAL_NODES = 16;
// Trie cell = 2 words: [child node (0 = none; the root is never a child), best] with best = slot << 8 | len
// of the longest prefix homed in the cell's node that covers the cell (len 0 = none; /0 is `defaultSlot`).
const CHILD = 0;
const BEST = 1;

/**
 * Calling convention: write the address words (most significant first, network order as integers) into
 * `map.key`, then `lookup()` (longest match) or `upsert(prefixLen)` / `delete(prefixLen)` / `get(prefixLen)`.
 * Slots index `map.values[slot * valueWords + i]`; `lastPrefixLen` is the length matched by the last lookup.
 */
export class LpmTrieMap {
  readonly keyBits: number;
  readonly keyWords: number;
  readonly valueWords: number;
  readonly maxEntries: number;
  readonly key: Uint32Array;
  readonly stats: MapStats = newMapStats();
  /** Prefix length of the last successful lookup, -1 after a miss. */
  lastPrefixLen = -1;
  /** Set by upsert: true when the prefix was new. */
  created = false;

  private readonly prefixes: HashMap; // key: [prefixLen, masked address words...]
  private readonly scratch: Uint32Array;
  private readonly probe: Uint32Array;
  private defaultSlot = -1; // the /0 entry
  /** IPv4 /32 prefixes: [address, 0] -> [slot] (they are not in the trie). */
  private readonly hosts: CellTable;
  private trie: Int32Array; // FANOUT cells of 2 words per node
  private nodeUse: Int32Array; // prefixes homed in the node + children
  private nodeParentCell: Int32Array;
  private nodeHigh = 1;
  private freeNodes: number[] = [];

  constructor(options: LpmTrieMapOptions) {
    if (options.keyBits !== 32 && options.keyBits !== 128) {
      throw new RangeError(`LpmTrieMap: keyBits must be 32 or 128, got ${String(options.keyBits)}`);
    }
    this.keyBits = options.keyBits;
    this.keyWords = options.keyBits / 32;
    this.valueWords = options.valueWords;
    this.maxEntries = options.maxEntries;
    this.key = new Uint32Array(this.keyWords);
    this.scratch = new Uint32Array(this.keyWords + 1);
    this.probe = new Uint32Array(this.keyWords + 1);
    this.prefixes = new HashMap({
      keyWords: this.keyWords + 1,
      valueWords: options.valueWords,
      maxEntries: options.maxEntries,
      ...(options.noPrealloc === true ? { noPrealloc: true } : {}),
    });
    this.hosts = new CellTable();
    this.trie = new Int32Array(INITIAL_NODES * FANOUT * 2);
    this.nodeUse = new Int32Array(INITIAL_NODES);
    this.nodeParentCell = new Int32Array(INITIAL_NODES);
  }

  /** Values of every prefix: `values[slot * valueWords + i]` (re-read after upserts on noPrealloc maps). */
  get values(): Uint32Array {
    return this.prefixes.values;
  }

  get size(): number {
    return this.prefixes.size;
  }

  /** Trie nodes in use (a memory figure for benches and reports). */
  get nodeCount(): number {
    return this.nodeHigh - this.freeNodes.length;
  }

  /** Slot of the longest prefix containing the address in `this.key`, or -1. Sets `lastPrefixLen`. */
  lookup(): number {
    if (this.keyWords === 1) return this.lookup32(this.key[0]! | 0);
    this.stats.lookups++;
    let best = 0;
    const trie = this.trie;
    let node = ROOT;
    const levels = this.keyBits / STRIDE;
    for (let level = 0; level < levels; level++) {
      const cell = ((node << 4) | this.nibble(this.key, 0, level)) << 1;
      const b = trie[cell + BEST]!;
      if ((b & 0xff) !== 0) best = b;
      node = trie[cell + CHILD]!;
      if (node === 0) break;
    }
    return this.found(best);
  }

  /** IPv4 lookup of `addr` (pass it as int32, `addr | 0`, so it stays a small integer); see lookup(). */
  lookup32(addr: number): number {
    this.stats.lookups++;
    addr |= 0;
    const hosts = this.hosts;
    if (hosts.size !== 0) {
      // findCell(hosts.cells, hosts.wordMask, addr, 0), written out: this probe runs before every IPv4 walk.
      const cells = hosts.cells;
      const mask = hosts.wordMask;
      for (let at = (pairHash(addr, 0) << 2) & mask; ; at = (at + CELL_WORDS) & mask) {
        const w1 = cells[at + 1]!;
        if (w1 === 0 && cells[at] === addr) {
          this.lastPrefixLen = 32;
          this.stats.hits++;
          return cells[at + 2]!;
        }
        if (w1 === EMPTY) break;
      }
    }
    let best = 0;
    const trie = this.trie;
    let node = ROOT;
    for (let shift = 28; ; shift -= STRIDE) {
      const cell = ((node << 4) | ((addr >>> shift) & 15)) << 1;
      const b = trie[cell + BEST]!;
      if ((b & 0xff) !== 0) best = b;
      node = trie[cell + CHILD]!;
      if (node === 0) break;
    }
    return this.found(best);
  }

  /** Ends a trie walk: `best` (slot << 8 | len, 0 = none) or the /0 default. */
  private found(best: number): number {
    if (best !== 0) {
      this.lastPrefixLen = best & 0xff;
      this.stats.hits++;
      return best >>> 8;
    }
    const slot = this.defaultSlot;
    this.lastPrefixLen = slot >= 0 ? 0 : -1;
    if (slot >= 0) this.stats.hits++;
    else this.stats.misses++;
    return slot;
  }

  /** Exact match: slot of prefix (`this.key`, prefixLen) or -1 (host bits are ignored). */
  get(prefixLen: number): number {
    if (!this.validLen(prefixLen)) return -1;
    this.loadPrefixKey(this.scratch, prefixLen);
    return this.prefixes.findKey(this.scratch, 0);
  }

  /** Inserts or finds prefix (`this.key`, prefixLen): slot, or -MapError.FULL / -MapError.INVALID. */
  upsert(prefixLen: number): number {
    this.created = false;
    if (!this.validLen(prefixLen)) return -MapError.INVALID;
    this.loadPrefixKey(this.prefixes.key, prefixLen);
    const slot = this.prefixes.upsert();
    if (slot < 0) {
      this.stats.full++;
      return slot;
    }
    if (!this.prefixes.created) return slot;
    this.created = true;
    this.stats.inserts++;
    if (prefixLen === 0) this.defaultSlot = slot;
    else if (prefixLen === 32 && this.keyWords === 1) {
      const at = this.hosts.insert(this.prefixes.key[1]! | 0, 0); // may replace hosts.cells: read it after
      this.hosts.cells[at + 2] = slot;
    } else this.insertIntoTrie(slot, prefixLen, this.prefixes.key);
    return slot;
  }

  /** Removes prefix (`this.key`, prefixLen); false when absent. */
  delete(prefixLen: number): boolean {
    if (!this.validLen(prefixLen)) return false;
    const words = this.scratch;
    this.loadPrefixKey(words, prefixLen);
    const slot = this.prefixes.findKey(words, 0);
    if (slot < 0) return false;
    if (prefixLen === 0) this.defaultSlot = -1;
    else if (prefixLen === 32 && this.keyWords === 1) this.hosts.removeAt(this.hosts.find(words[1]! | 0, 0));
    else this.removeFromTrie(prefixLen, words);
    this.prefixes.deleteSlot(slot);
    this.stats.deletes++;
    return true;
  }

  clear(): void {
    this.prefixes.clear();
    this.defaultSlot = -1;
    this.hosts.clear();
    this.trie.fill(0);
    this.nodeUse.fill(0);
    this.nodeHigh = 1;
    this.freeNodes.length = 0;
  }

  /** Next live slot after `previous` (start with -1); -1 at the end. */
  nextSlot(previous: number): number {
    return this.prefixes.nextSlot(previous);
  }

  prefixLenOf(slot: number): number {
    return this.prefixes.keys[slot * (this.keyWords + 1)]!;
  }

  /** Word `i` of the (masked) address of the prefix at `slot`. */
  addressWordOf(slot: number, i: number): number {
    return this.prefixes.keys[slot * (this.keyWords + 1) + 1 + i]!;
  }

  // IPv4 conveniences (keyBits 32).
  upsert32(addr: number, prefixLen: number): number {
    this.key[0] = addr;
    return this.upsert(prefixLen);
  }
  delete32(addr: number, prefixLen: number): boolean {
    this.key[0] = addr;
    return this.delete(prefixLen);
  }
  get32(addr: number, prefixLen: number): number {
    this.key[0] = addr;
    return this.get(prefixLen);
  }

  private validLen(prefixLen: number): boolean {
    return Number.isInteger(prefixLen) && prefixLen >= 0 && prefixLen <= this.keyBits;
  }

  /** out = [prefixLen, address words of this.key masked to prefixLen]. */
  private loadPrefixKey(out: Uint32Array, prefixLen: number): void {
    out[0] = prefixLen;
    for (let i = 0; i < this.keyWords; i++) {
      const bits = prefixLen - i * 32;
      const mask = bits >= 32 ? 0xffffffff : bits <= 0 ? 0 : (0xffffffff << (32 - bits)) >>> 0;
      out[1 + i] = (this.key[i]! & mask) >>> 0;
    }
  }

  private nibble(words: Uint32Array, offset: number, level: number): number {
    return (words[offset + (level >> 3)]! >>> (28 - ((level & 7) << 2))) & 15;
  }

  /** Places a new prefix (key words at prefixKey[1..]) in its home node, expanding it over covered cells. */
  private insertIntoTrie(slot: number, prefixLen: number, prefixKey: Uint32Array): void {
    const home = (prefixLen - 1) >> 2;
    let node = ROOT;
    for (let level = 0; level < home; level++) {
      const cell = (node << 4) | this.nibble(prefixKey, 1, level);
      let child = this.trie[(cell << 1) + CHILD]!;
      if (child === 0) {
        child = this.allocNode(cell);
        this.nodeUse[node]!++;
      }
      node = child;
    }
    const span = 1 << (STRIDE - (prefixLen - home * STRIDE));
    const first = (node << 4) | this.nibble(prefixKey, 1, home);
    const trie = this.trie;
    for (let cell = first; cell < first + span; cell++) {
      if ((trie[(cell << 1) + BEST]! & 0xff) < prefixLen) trie[(cell << 1) + BEST] = (slot << 8) | prefixLen;
    }
    this.nodeUse[node]!++;
  }

  /** Undoes insertIntoTrie: cells the prefix owned fall back to the next shorter prefix homed in the node. */
  private removeFromTrie(prefixLen: number, prefixKey: Uint32Array): void {
    const home = (prefixLen - 1) >> 2;
    let node = ROOT;
    for (let level = 0; level < home; level++) node = this.trie[(((node << 4) | this.nibble(prefixKey, 1, level)) << 1) + CHILD]!;
    // Every cell this prefix owned is covered by the same shorter candidates: the prefix masked to each length.
    let replacement = 0; // slot << 8 | len, 0 = none
    const probe = this.probe;
    for (let len = prefixLen - 1; len > home * STRIDE; len--) {
      for (let i = 0; i < this.keyWords; i++) {
        const bits = len - i * 32;
        const mask = bits >= 32 ? 0xffffffff : bits <= 0 ? 0 : (0xffffffff << (32 - bits)) >>> 0;
        probe[1 + i] = (prefixKey[1 + i]! & mask) >>> 0;
      }
      probe[0] = len;
      const found = this.prefixes.findKey(probe, 0);
      if (found >= 0) {
        replacement = (found << 8) | len;
        break;
      }
    }
    const span = 1 << (STRIDE - (prefixLen - home * STRIDE));
    const first = (node << 4) | this.nibble(prefixKey, 1, home);
    const trie = this.trie;
    for (let cell = first; cell < first + span; cell++) {
      if ((trie[(cell << 1) + BEST]! & 0xff) === prefixLen) trie[(cell << 1) + BEST] = replacement;
    }
    this.releaseUse(node);
  }

  private releaseUse(node: number): void {
    while (--this.nodeUse[node]! === 0 && node !== ROOT) {
      const parentCell = this.nodeParentCell[node]!;
      this.trie[(parentCell << 1) + CHILD] = 0;
      this.freeNodes.push(node);
      node = parentCell >> 4;
    }
  }

  private allocNode(parentCell: number): number {
    const node = this.freeNodes.length > 0 ? this.freeNodes.pop()! : this.nodeHigh++;
    if (node >= this.nodeUse.length) this.growNodes();
    this.nodeUse[node] = 0;
    this.nodeParentCell[node] = parentCell;
    this.trie[(parentCell << 1) + CHILD] = node;
    return node;
  }

  private growNodes(): void {
    const nodes = this.nodeUse.length * 2;
    const trie = new Int32Array(nodes * FANOUT * 2);
    trie.set(this.trie);
    const nodeUse = new Int32Array(nodes);
    nodeUse.set(this.nodeUse);
    const nodeParentCell = new Int32Array(nodes);
    nodeParentCell.set(this.nodeParentCell);
    this.trie = trie;
    this.nodeUse = nodeUse;
    this.nodeParentCell = nodeParentCell;
  }
}

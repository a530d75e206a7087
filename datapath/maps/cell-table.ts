// CellTable: an open-addressing hash table whose cells hold key and value together in one Int32Array
// (4 words per cell: two key words, two value words), so a probe touches one cache line. Linear probing,
// load factor <= 3/4, backward-shift deletion (no tombstones); key word 1 = -1 marks a free cell.
// Internal building block of PolicyMap (block keys, per-identity headers, reference counts) and of
// LpmTrieMap (IPv4 hosts). Cells come from the cell arena (arena.ts).
import { leaseCells, releaseCells, renewLease } from "./arena.js";
import type { CellLease } from "./arena.js";

/** Key word 1 of a free cell. */
export const EMPTY = -1;
/** Words per cell: KEY0, KEY1, VALUE0, VALUE1. */
export const CELL_WORDS = 4;
const MIN_CELLS = 8;

/** Hash of a two-word key (int32 inputs): a multiply-xorshift mix, full avalanche on both words. */
export function pairHash(k0: number, k1: number): number {
  let h = Math.imul(k0 ^ 0x2c1b3c6d, 0x297a2d39) ^ k1;
  h = Math.imul(h ^ (h >>> 15), 0x85ebca6b);
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35);
  return h ^ (h >>> 16);
}

/** Word offset of the cell with key (k0, k1) in a CellTable's `cells` / `wordMask`, or -1: CellTable.find as a
 * plain function, small enough for V8 to inline into a hot lookup. */
export function findCell(cells: Int32Array, mask: number, k0: number, k1: number): number {
  let at = (pairHash(k0, k1) << 2) & mask;
  for (;;) {
    const w1 = cells[at + 1]!;
    if (w1 === k1 && cells[at] === k0) return at;
    if (w1 === EMPTY) return -1;
    at = (at + CELL_WORDS) & mask;
  }
}

/**
 * Cells are addressed by word offset (`cell * 4`): `cells[at]`, `cells[at + 1]` are the key,
 * `cells[at + 2]`, `cells[at + 3]` the values. Offsets are valid until the next insert or remove, and
 * insert/reserve may move the table to a new block (the old one goes back to the arena and is handed to
 * other tables): read `cells` after them, never keep it across them (`t.cells[t.insert(..)]` is wrong).
 * Keys are int32 pairs; key word 1 must never be -1. The caller bounds the number of keys.
 */
export class CellTable {
  cells: Int32Array;
  /** Live keys. */
  size = 0;
  /** Set by insert: true when the key was added (values zeroed), false when it was present. */
  created = false;
  /** cells.length - 1: word offsets wrap with `& wordMask` (for callers that inline the probe loop). */
  wordMask: number;

  private readonly lease: CellLease;

  constructor(expectedKeys = 0) {
    const cells = cellsFor(expectedKeys);
    this.lease = leaseCells(this, cells * CELL_WORDS, EMPTY);
    this.cells = this.lease.cells;
    this.wordMask = cells * CELL_WORDS - 1;
  }

  /** Word offset of the key's cell, or -1. */
  find(k0: number, k1: number): number {
    return findCell(this.cells, this.wordMask, k0, k1);
  }

  /** Word offset of the key's cell, adding it with zeroed values when absent (sets `created`). */
  insert(k0: number, k1: number): number {
    let cells = this.cells;
    let mask = this.wordMask;
    let at = (pairHash(k0, k1) << 2) & mask;
    for (;;) {
      const w1 = cells[at + 1]!;
      if (w1 === EMPTY) break;
      if (w1 === k1 && cells[at] === k0) {
        this.created = false;
        return at;
      }
      at = (at + CELL_WORDS) & mask;
    }
    if (overloaded(this.size + 1, cells.length)) {
      this.resize((cells.length / CELL_WORDS) * 2);
      cells = this.cells;
      mask = this.wordMask;
      at = (pairHash(k0, k1) << 2) & mask;
      while (cells[at + 1] !== EMPTY) at = (at + CELL_WORDS) & mask;
    }
    cells[at] = k0;
    cells[at + 1] = k1;
    cells[at + 2] = 0;
    cells[at + 3] = 0;
    this.size++;
    this.created = true;
    return at;
  }

  /** Removes the cell at word offset `at` (from find/insert); later cells of its run shift back. */
  removeAt(at: number): void {
    const cells = this.cells;
    const mask = this.wordMask;
    let hole = at;
    let next = (hole + CELL_WORDS) & mask;
    for (;;) {
      const k1 = cells[next + 1]!;
      if (k1 === EMPTY) break;
      const home = (pairHash(cells[next]!, k1) << 2) & mask;
      // The cell at `next` may move into the hole only if its home is not inside (hole, next].
      if (((next - home) & mask) >= ((next - hole) & mask)) {
        cells[hole] = cells[next]!;
        cells[hole + 1] = k1;
        cells[hole + 2] = cells[next + 2]!;
        cells[hole + 3] = cells[next + 3]!;
        hole = next;
      }
      next = (next + CELL_WORDS) & mask;
    }
    cells[hole + 1] = EMPTY;
    this.size--;
  }

  /** Makes room for `keys` keys without further growth (a capacity hint). */
  reserve(keys: number): void {
    const cells = cellsFor(keys);
    if (cells * CELL_WORDS > this.cells.length) this.resize(cells);
  }

  clear(): void {
    this.cells.fill(EMPTY);
    this.size = 0;
  }

  /** Next live cell's word offset after `previous` (start with -CELL_WORDS); -1 at the end. */
  next(previous: number): number {
    const cells = this.cells;
    for (let at = previous + CELL_WORDS; at < cells.length; at += CELL_WORDS) if (cells[at + 1] !== EMPTY) return at;
    return -1;
  }

  private resize(cellCount: number): void {
    const old = renewLease(this.lease, cellCount * CELL_WORDS, EMPTY);
    const cells = this.lease.cells;
    const mask = cellCount * CELL_WORDS - 1;
    for (let from = 0; from < old.length; from += CELL_WORDS) {
      const k1 = old[from + 1]!;
      if (k1 === EMPTY) continue;
      let at = (pairHash(old[from]!, k1) << 2) & mask;
      while (cells[at + 1] !== EMPTY) at = (at + CELL_WORDS) & mask;
      cells[at] = old[from]!;
      cells[at + 1] = k1;
      cells[at + 2] = old[from + 2]!;
      cells[at + 3] = old[from + 3]!;
    }
    this.cells = cells;
    this.wordMask = mask;
    releaseCells(old);
  }
}

/** Cells for `keys` keys at load <= 3/4: a power of two, at least MIN_CELLS. */
export function cellsFor(keys: number): number {
  let cells = MIN_CELLS;
  while (cells * 3 < keys * 4) cells *= 2;
  return cells;
}

/** True when `keys` keys would exceed load 3/4 in a table of `words` words. */
export function overloaded(keys: number, words: number): boolean {
  return keys * 4 * CELL_WORDS > words * 3;
}

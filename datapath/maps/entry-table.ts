// EntryTable: PolicyMap's record of the entries the control plane wrote, one 4-word cell per entry
// [identity, portLo << 16 | portHi, direction << 8 | proto | verdict << 9, ruleRef] in an open-addressing
// Int32Array from the cell arena (linear probing, load <= 3/4, backward-shift deletion; word 2 = -1 marks
// a free cell).
import { leaseCells, releaseCells, renewLease } from "./arena.js";
import type { CellLease } from "./arena.js";
import { CELL_WORDS, cellsFor, overloaded, pairHash } from "./cell-table.js";

const EMPTY = -1;
const KEY_BITS = 0x1ff; // direction << 8 | proto: the key part of word 2
// Word 0 of a cell is the identity.
export const ENTRY_PORTS = 1;
export const ENTRY_KIND = 2;
export const ENTRY_RULE = 3;
export const VERDICT_SHIFT = 9;

function entryHash(identity: number, ports: number, dirProto: number): number {
  return pairHash(identity ^ Math.imul(dirProto, 0x9e3779b1), ports);
}

/** Cells addressed by word offset, valid until the next insert or remove (see CellTable). */
export class EntryTable {
  cells: Int32Array;
  size = 0;
  private wordMask: number;

  private readonly lease: CellLease;

  constructor() {
    const cells = cellsFor(0);
    this.lease = leaseCells(this, cells * CELL_WORDS, EMPTY);
    this.cells = this.lease.cells;
    this.wordMask = cells * CELL_WORDS - 1;
  }

  /** Word offset of the entry, or -1. `ports` = portLo << 16 | portHi as int32, `dirProto` = direction << 8 | proto. */
  find(identity: number, ports: number, dirProto: number): number {
    const cells = this.cells;
    const mask = this.wordMask;
    let at = (entryHash(identity, ports, dirProto) << 2) & mask;
    for (;;) {
      const kind = cells[at + ENTRY_KIND]!;
      if (kind === EMPTY) return -1;
      if ((kind & KEY_BITS) === dirProto && cells[at + ENTRY_PORTS] === ports && cells[at] === identity) return at;
      at = (at + CELL_WORDS) & mask;
    }
  }

  /** Adds an entry known to be absent; returns its word offset. */
  add(identity: number, ports: number, dirProto: number, verdict: number, ruleRef: number): number {
    if (overloaded(this.size + 1, this.cells.length)) this.resize((this.cells.length / CELL_WORDS) * 2);
    const cells = this.cells;
    const mask = this.wordMask;
    let at = (entryHash(identity, ports, dirProto) << 2) & mask;
    while (cells[at + ENTRY_KIND] !== EMPTY) at = (at + CELL_WORDS) & mask;
    cells[at] = identity;
    cells[at + ENTRY_PORTS] = ports;
    cells[at + ENTRY_KIND] = dirProto | (verdict << VERDICT_SHIFT);
    cells[at + ENTRY_RULE] = ruleRef;
    this.size++;
    return at;
  }

  removeAt(at: number): void {
    const cells = this.cells;
    const mask = this.wordMask;
    let hole = at;
    let next = (hole + CELL_WORDS) & mask;
    for (;;) {
      const kind = cells[next + ENTRY_KIND]!;
      if (kind === EMPTY) break;
      const home = (entryHash(cells[next]!, cells[next + ENTRY_PORTS]!, kind & KEY_BITS) << 2) & mask;
      if (((next - home) & mask) >= ((next - hole) & mask)) {
        cells[hole] = cells[next]!;
        cells[hole + ENTRY_PORTS] = cells[next + ENTRY_PORTS]!;
        cells[hole + ENTRY_KIND] = kind;
        cells[hole + ENTRY_RULE] = cells[next + ENTRY_RULE]!;
        hole = next;
      }
      next = (next + CELL_WORDS) & mask;
    }
    cells[hole + ENTRY_KIND] = EMPTY;
    this.size--;
  }

  /** Makes room for `keys` entries without further growth (a capacity hint). */
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
    for (let at = previous + CELL_WORDS; at < cells.length; at += CELL_WORDS) if (cells[at + ENTRY_KIND] !== EMPTY) return at;
    return -1;
  }

  private resize(cellCount: number): void {
    const old = renewLease(this.lease, cellCount * CELL_WORDS, EMPTY);
    const cells = this.lease.cells;
    const mask = cellCount * CELL_WORDS - 1;
    for (let from = 0; from < old.length; from += CELL_WORDS) {
      const kind = old[from + ENTRY_KIND]!;
      if (kind === EMPTY) continue;
      let at = (entryHash(old[from]!, old[from + ENTRY_PORTS]!, kind & KEY_BITS) << 2) & mask;
      while (cells[at + ENTRY_KIND] !== EMPTY) at = (at + CELL_WORDS) & mask;
      cells[at] = old[from]!;
      cells[at + ENTRY_PORTS] = old[from + ENTRY_PORTS]!;
      cells[at + ENTRY_KIND] = kind;
      cells[at + ENTRY_RULE] = old[from + ENTRY_RULE]!;
    }
    this.cells = cells;
    this.wordMask = mask;
    releaseCells(old);
  }
}

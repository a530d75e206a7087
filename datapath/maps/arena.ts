// Cell arena: power-of-two blocks of int32 words handed out as views into shared 1 MiB chunks, for the
// many small hash tables of policy maps. Allocating a typed array of its own costs microseconds and GC
// pressure (an off-heap backing store each); a view costs a small heap object. Blocks are reused once
// released: by their table when it grows, or (FinalizationRegistry) when the table is garbage-collected.
// Chunks are kept for reuse, never freed. Only memory reuse depends on GC timing; what a table stores and
// answers never does.

const CHUNK_WORDS = 1 << 18;
/** Larger blocks get a typed array of their own (the GC frees those). */
const MAX_POOLED_WORDS = 1 << 16;

class Int32Arena {
  private chunk = new Int32Array(0);
  private used = 0;
  /** Released blocks by log2(words). */
  private readonly pools: Int32Array[][] = [];

  /** A block of `words` words (a power of two); its contents are unspecified: the caller initialises it. */
  alloc(words: number): Int32Array {
    if (words > MAX_POOLED_WORDS) return new Int32Array(words);
    const pool = this.pools[31 - Math.clz32(words)];
    if (pool !== undefined && pool.length > 0) return pool.pop()!;
    if (this.used + words > this.chunk.length) this.newChunk();
    const view = this.chunk.subarray(this.used, this.used + words);
    this.used += words;
    return view;
  }

  /** Returns a block from alloc() for reuse; the caller must not touch it afterwards. */
  release(block: Int32Array): void {
    const words = block.length;
    if (words > MAX_POOLED_WORDS) return;
    (this.pools[31 - Math.clz32(words)] ??= []).push(block);
  }

  /** Starts a fresh chunk; the old chunk's unused tail goes to the pools as power-of-two blocks. */
  private newChunk(): void {
    let rest = this.chunk.length - this.used;
    for (let size = MAX_POOLED_WORDS; size >= 1 && rest > 0; size >>>= 1) {
      if (rest >= size) {
        this.release(this.chunk.subarray(this.used, this.used + size));
        this.used += size;
        rest -= size;
      }
    }
    this.chunk = new Int32Array(CHUNK_WORDS);
    this.used = 0;
  }
}

const arena = new Int32Arena();

/** The block a table currently uses; kept apart from the table so the registry can free it after the table. */
export interface CellLease {
  cells: Int32Array;
}

const leases = new FinalizationRegistry<CellLease>((lease) => arena.release(lease.cells));

/** A block of `words` words (a power of two) filled with `fill`, returned to the arena when `owner` is collected. */
export function leaseCells(owner: object, words: number, fill: number): CellLease {
  const lease: CellLease = { cells: arena.alloc(words).fill(fill) };
  leases.register(owner, lease);
  return lease;
}

/** Moves a lease to a new block of `words` words filled with `fill`; returns the old block, to be released with releaseCells once copied. */
export function renewLease(lease: CellLease, words: number, fill: number): Int32Array {
  const old = lease.cells;
  lease.cells = arena.alloc(words).fill(fill);
  return old;
}

/** Gives a block back to the arena (after renewLease, when its contents have been copied). */
export function releaseCells(block: Int32Array): void {
  arena.release(block);
}

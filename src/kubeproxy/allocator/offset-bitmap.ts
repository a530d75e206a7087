// The API server's allocation bitmap with a reserved lower band (allocator.NewAllocationMapWithOffset):
// values 0..max-1; AllocateNext picks a random free value in the upper band [offset, max) first and
// falls back to the lower band [0, offset), which is kept for values users ask for explicitly
// (KEP-3070 static/dynamic subranges). Randomness comes from the model's seeded RNG.
import type { SeededRng } from "../../util/rng.js";

/** min(max(lo, size/step), hi), 0 for ranges of at most `lo` (calculateRangeOffset). */
export function rangeOffset(size: number, lo: number, hi: number, step: number): number {
  if (size <= lo) return 0;
  const offset = Math.floor(size / step);
  return offset < lo ? lo : offset > hi ? hi : offset;
}

export class OffsetBitmap {
  private readonly bits: Uint8Array;
  private used = 0;

  constructor(
    readonly max: number,
    readonly offset: number,
    private readonly rng: SeededRng,
  ) {
    this.bits = new Uint8Array(Math.ceil(max / 8));
  }

  get count(): number {
    return this.used;
  }

  has(i: number): boolean {
    return (this.bits[i >>> 3]! & (1 << (i & 7))) !== 0;
  }

  /** Marks i used; false when it already was. */
  allocate(i: number): boolean {
    if (this.has(i)) return false;
    this.bits[i >>> 3]! |= 1 << (i & 7);
    this.used++;
    return true;
  }

  release(i: number): void {
    if (!this.has(i)) return;
    this.bits[i >>> 3]! &= ~(1 << (i & 7));
    this.used--;
  }

  /** A free value (upper band first, random start, linear probe), or -1 when full. */
  allocateNext(): number {
    if (this.used >= this.max) return -1;
    const upper = this.max - this.offset;
    if (upper > 0) {
      const start = this.rng.nextInt(upper);
      for (let k = 0; k < upper; k++) {
        const at = this.offset + ((start + k) % upper);
        if (this.allocate(at)) return at;
      }
    }
    if (this.offset > 0) {
      const start = this.rng.nextInt(this.offset);
      for (let k = 0; k < this.offset; k++) {
        const at = (start + k) % this.offset;
        if (this.allocate(at)) return at;
      }
    }
    return -1;
  }
}

// Splits an inclusive port range into prefix-aligned blocks (the maximal aligned power-of-two blocks
// inside the range), as Cilium does for port ranges in policy map keys. At most 30 blocks per range.

/** Prefix length (0..16) of the largest aligned block that starts at `start` and ends at or before `hi`. */
export function portBlockLen(start: number, hi: number): number {
  // Largest block size aligned at `start` (lowest set bit; 65536 at 0) that still fits inside [start, hi].
  let size = start === 0 ? 0x10000 : start & -start;
  while (start + size - 1 > hi) size >>>= 1;
  return 16 - (31 - Math.clz32(size));
}

/**
 * Calls visit(start, prefixLen) for each block of [lo, hi] (0 <= lo <= hi <= 65535), low to high.
 * Allocation-free callers loop themselves: `for (s = lo; s <= hi; s += 0x10000 >>> len) len = portBlockLen(s, hi)`.
 */
export function forEachPortBlock(lo: number, hi: number, visit: (start: number, prefixLen: number) => void): void {
  for (let start = lo; start <= hi; ) {
    const len = portBlockLen(start, hi);
    visit(start, len);
    start += 0x10000 >>> len;
  }
}

/** Number of blocks [lo, hi] splits into (1..30). */
export function portBlockCount(lo: number, hi: number): number {
  let n = 0;
  for (let start = lo; start <= hi; start += 0x10000 >>> portBlockLen(start, hi)) n++;
  return n;
}

/** Mask keeping the top `prefixLen` bits of a 16-bit port. */
export function portMask(prefixLen: number): number {
  return (0xffff << (16 - prefixLen)) & 0xffff;
}

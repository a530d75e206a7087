// Helpers for numbers wider than one 32-bit word inside map values (counters, nanosecond times):
// stored as two words, low word first, exact up to 2^53.

const TWO_32 = 0x100000000;

export function readU64(words: Uint32Array, index: number): number {
  return words[index]! + words[index + 1]! * TWO_32;
}

export function writeU64(words: Uint32Array, index: number, value: number): void {
  words[index] = value >>> 0;
  words[index + 1] = Math.floor(value / TWO_32) >>> 0;
}

export function addU64(words: Uint32Array, index: number, delta: number): void {
  writeU64(words, index, readU64(words, index) + delta);
}

/** Adds `delta` (0 <= delta < 2^32) to the two-word number at `index` with 32-bit carry: no wide number is formed. */
export function addU32ToU64(words: Uint32Array, index: number, delta: number): void {
  const lo = words[index]!;
  const sum = (lo + delta) >>> 0;
  words[index] = sum;
  if (sum < lo) words[index + 1] = (words[index + 1]! + 1) >>> 0;
}

// MurmurHash3 (x86, 32-bit) over 32-bit key words, with its fmix32 finaliser.
// Deterministic (fixed seed) so map layouts, and therefore runs, are reproducible.

const C1 = 0xcc9e2d51;
const C2 = 0x1b873593;
const SEED = 0x9747b28c;

/** fmix32: the MurmurHash3 finaliser, a full-avalanche mix of one 32-bit integer. */
export function fmix32(h: number): number {
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

function mixWord(h: number, word: number): number {
  let k = Math.imul(word, C1);
  k = (k << 15) | (k >>> 17);
  k = Math.imul(k, C2);
  h ^= k;
  h = (h << 13) | (h >>> 19);
  return (Math.imul(h, 5) + 0xe6546b64) | 0;
}

/** MurmurHash3 of `count` words starting at `offset`; returns an unsigned 32-bit hash. */
export function hashWords(words: Uint32Array, offset: number, count: number): number {
  let h = SEED;
  for (let i = 0; i < count; i++) h = mixWord(h, words[offset + i]!);
  return fmix32(h ^ (count << 2));
}

/** Same as hashWords for a 1-word key, without the array. */
export function hash1(a: number): number {
  return fmix32(mixWord(SEED, a) ^ 4);
}

/** Same as hashWords for a 2-word key, without the array. */
export function hash2(a: number, b: number): number {
  return fmix32(mixWord(mixWord(SEED, a), b) ^ 8);
}

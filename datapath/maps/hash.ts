// MurmurHash3 (x86, 32-bit) over 32-bit key words, with its fmix32 finaliser.
// Deterministic (fixed seed) so map layouts, and therefore runs, are reproducible.
// The internal variants return the hash as an int32 (same bits): a u32 above 2^31 returned from a call
// V8 does not inline would be boxed, i.e. allocated on every lookup.

const C1 = 0xcc9e2d51;
const C2 = 0x1b873593;
const SEED = 0x9747b28c;

/** fmix32 as an int32 (the same 32 bits as fmix32). */
export function fmix32i(h: number): number {
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  return h ^ (h >>> 16);
}

/** fmix32: the MurmurHash3 finaliser, a full-avalanche mix of one 32-bit integer (unsigned result). */
export function fmix32(h: number): number {
  return fmix32i(h) >>> 0;
}

function mixWord(h: number, word: number): number {
  let k = Math.imul(word, C1);
  k = (k << 15) | (k >>> 17);
  k = Math.imul(k, C2);
  h ^= k;
  h = (h << 13) | (h >>> 19);
  return (Math.imul(h, 5) + 0xe6546b64) | 0;
}

/** hashWords as an int32 (the same 32 bits). */
export function hashWordsI(words: Uint32Array, offset: number, count: number): number {
  let h = SEED;
  for (let i = 0; i < count; i++) h = mixWord(h, words[offset + i]!);
  return fmix32i(h ^ (count << 2));
}

/** MurmurHash3 of `count` words starting at `offset`; returns an unsigned 32-bit hash. */
export function hashWords(words: Uint32Array, offset: number, count: number): number {
  return hashWordsI(words, offset, count) >>> 0;
}

/** Same bits as hashWords for a 1-word key, without the array, as an int32. */
export function hash1(a: number): number {
  return fmix32i(mixWord(SEED, a) ^ 4);
}

/** Same bits as hashWords for a 2-word key, without the array, as an int32. */
export function hash2(a: number, b: number): number {
  return fmix32i(mixWord(mixWord(SEED, a), b) ^ 8);
}

// Generated names as the API server and controllers make them: apimachinery's rand.String (five
// characters from "bcdfghjklmnpqrstvwxz2456789", drawn 5 bits at a time from 63-bit random
// numbers, rejecting values >= 27) from the cluster's seeded RNG.
import type { SeededRng } from "../util/rng.js";
import { SAFE_ALPHANUMS } from "./template-hash/compute-hash.js";

const BITS = 5;
const MASK = (1 << BITS) - 1;
const PER_INT63 = Math.floor(63 / BITS);

/** A 63-bit random value as [high 31 bits, low 32 bits]. */
function int63(rng: SeededRng): [number, number] {
  return [rng.nextU32() >>> 1, rng.nextU32()];
}

/** rand.String(n). */
export function randomString(rng: SeededRng, n: number): string {
  let out = "";
  let [hi, lo] = int63(rng);
  let remaining = PER_INT63;
  while (out.length < n) {
    if (remaining === 0) {
      [hi, lo] = int63(rng);
      remaining = PER_INT63;
    }
    const idx = lo & MASK;
    if (idx < SAFE_ALPHANUMS.length) out += SAFE_ALPHANUMS[idx];
    // Shift the 63-bit value right by 5.
    lo = ((lo >>> BITS) | ((hi & MASK) << (32 - BITS))) >>> 0;
    hi = hi >>> BITS;
    remaining--;
  }
  return out;
}

/** names.SimpleNameGenerator: the prefix (cut to leave room, max 63 chars) plus five random characters. */
export function generateName(rng: SeededRng, prefix: string): string {
  const maxPrefix = 63 - 5;
  return (prefix.length > maxPrefix ? prefix.slice(0, maxPrefix) : prefix) + randomString(rng, 5);
}

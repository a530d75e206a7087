// Seeded pseudo-random numbers for the model (never Math.random): xoshiro128** on 32-bit state,
// seeded through splitmix32 so that nearby seeds give unrelated streams.

/** Largest seed: the generator takes 32 bits, so a larger or negative seed would alias a smaller one. */
export const MAX_SEED = 0xffffffff;

/** Whether n is a seed the generator takes as given (an integer 0..MAX_SEED). */
export function isSeed(n: number): boolean {
  return Number.isInteger(n) && n >= 0 && n <= MAX_SEED;
}

export class SeededRng {
  private s0: number;
  private s1: number;
  private s2: number;
  private s3: number;

  constructor(seed: number) {
    let x = seed >>> 0;
    const next = (): number => {
      x = (x + 0x9e3779b9) >>> 0;
      let z = x;
      z = Math.imul(z ^ (z >>> 16), 0x85ebca6b) >>> 0;
      z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35) >>> 0;
      return (z ^ (z >>> 16)) >>> 0;
    };
    this.s0 = next();
    this.s1 = next();
    this.s2 = next();
    this.s3 = next();
  }

  /** Next unsigned 32-bit integer. */
  nextU32(): number {
    const result = Math.imul(rotl(Math.imul(this.s1, 5) >>> 0, 7), 9) >>> 0;
    const t = (this.s1 << 9) >>> 0;
    this.s2 = (this.s2 ^ this.s0) >>> 0;
    this.s3 = (this.s3 ^ this.s1) >>> 0;
    this.s1 = (this.s1 ^ this.s2) >>> 0;
    this.s0 = (this.s0 ^ this.s3) >>> 0;
    this.s2 = (this.s2 ^ t) >>> 0;
    this.s3 = rotl(this.s3, 11);
    return result;
  }

  /** Uniform float in [0, 1). */
  nextFloat(): number {
    return this.nextU32() / 0x100000000;
  }

  /** Uniform integer in [0, bound) without modulo bias. */
  nextInt(bound: number): number {
    if (!Number.isInteger(bound) || bound <= 0 || bound > 0x100000000) {
      throw new RangeError(`nextInt bound must be an integer in 1..2^32, got ${bound}`);
    }
    const limit = 0x100000000 - (0x100000000 % bound);
    for (;;) {
      const v = this.nextU32();
      if (v < limit) return v % bound;
    }
  }

  /** A new independent generator derived from this one (for per-component streams). */
  fork(): SeededRng {
    return new SeededRng(this.nextU32());
  }
}

function rotl(x: number, k: number): number {
  return ((x << k) | (x >>> (32 - k))) >>> 0;
}

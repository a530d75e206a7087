// Exact powers of two for window scaling and TSO sizing: `2 ** n` goes through the C library's
// pow() on every ACK and segment; a table holds the same doubles (2^n is exact for these n).

const POW2 = Float64Array.from({ length: 64 }, (_, n) => 2 ** n);

/** 2 ** n, the same value, from a table for integer n in 0..63. */
export function pow2(n: number): number {
  return n >= 0 && n < 64 && (n | 0) === n ? POW2[n]! : 2 ** n;
}

// 32-bit sequence-number arithmetic (RFC 9293 3.4): comparisons modulo 2^32.

export const seqAdd = (a: number, n: number): number => (a + n) >>> 0;
/** b - a as a signed 32-bit distance. */
export const seqDiff = (b: number, a: number): number => (b - a) | 0;
export const seqLt = (a: number, b: number): boolean => ((a - b) | 0) < 0;
export const seqLeq = (a: number, b: number): boolean => ((a - b) | 0) <= 0;
export const seqGt = (a: number, b: number): boolean => ((a - b) | 0) > 0;
export const seqGeq = (a: number, b: number): boolean => ((a - b) | 0) >= 0;
/** lo <= x <= hi in sequence space. */
export const seqBetween = (x: number, lo: number, hi: number): boolean => ((hi - lo) >>> 0) >= ((x - lo) >>> 0);

// The statistic-match probabilities kube-proxy writes: 1/n printed as Go's "%0.10f" does, i.e.
// the exact binary value of the double rounded to 10 decimals, ties to even (strconv's bigFtoa).
// Kept as a cache because a sync asks for the same few values for every service.

const cache: string[] = ["<bad value>"];

/** Go's strconv.FormatFloat(x, 'f', digits, 64) for a finite x >= 0. */
export function formatFixedGo(x: number, digits: number): string {
  const view = new DataView(new ArrayBuffer(8));
  view.setFloat64(0, x);
  const bits = view.getBigUint64(0);
  const rawExp = Number((bits >> 52n) & 0x7ffn);
  const frac = bits & ((1n << 52n) - 1n);
  const mant = rawExp === 0 ? frac : frac | (1n << 52n);
  const exp = (rawExp === 0 ? 1 : rawExp) - 1075;
  const scale = 10n ** BigInt(digits);
  let q: bigint;
  if (exp >= 0) {
    q = (mant << BigInt(exp)) * scale;
  } else {
    const num = mant * scale;
    const den = 1n << BigInt(-exp);
    q = num / den;
    const twice = (num % den) * 2n;
    if (twice > den || (twice === den && q % 2n === 1n)) q += 1n;
  }
  const text = q.toString().padStart(digits + 1, "0");
  return digits === 0 ? text : `${text.slice(0, -digits)}.${text.slice(-digits)}`;
}

/** kube-proxy's computeProbability(n): 1/n with ten decimals. */
export function computeProbability(n: number): string {
  return formatFixedGo(1 / n, 10);
}

/** The cached probability string for the i-th of n remaining endpoints (n >= 1). */
export function probability(n: number): string {
  for (let i = cache.length; i <= n; i++) cache.push(computeProbability(i));
  return cache[n]!;
}

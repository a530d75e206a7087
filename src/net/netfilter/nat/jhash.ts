// Bob Jenkins' lookup3 jhash2 over 32-bit words, as the kernel's <linux/jhash.h> computes it
// (used by NAT to pick an address from a range, so the choice matches the kernel's).

const JHASH_INITVAL = 0xdeadbeef;

const rol32 = (x: number, k: number): number => ((x << k) | (x >>> (32 - k))) >>> 0;

/** jhash2(k, k.length, initval) with unsigned 32-bit words. */
export function jhash2(k: readonly number[], initval: number): number {
  let length = k.length;
  let a = (JHASH_INITVAL + (length << 2) + initval) >>> 0;
  let b = a;
  let c = a;
  let at = 0;
  while (length > 3) {
    a = (a + k[at]!) >>> 0;
    b = (b + k[at + 1]!) >>> 0;
    c = (c + k[at + 2]!) >>> 0;
    // __jhash_mix
    a = (a - c) >>> 0; a = (a ^ rol32(c, 4)) >>> 0; c = (c + b) >>> 0;
    b = (b - a) >>> 0; b = (b ^ rol32(a, 6)) >>> 0; a = (a + c) >>> 0;
    c = (c - b) >>> 0; c = (c ^ rol32(b, 8)) >>> 0; b = (b + a) >>> 0;
    a = (a - c) >>> 0; a = (a ^ rol32(c, 16)) >>> 0; c = (c + b) >>> 0;
    b = (b - a) >>> 0; b = (b ^ rol32(a, 19)) >>> 0; a = (a + c) >>> 0;
    c = (c - b) >>> 0; c = (c ^ rol32(b, 4)) >>> 0; b = (b + a) >>> 0;
    length -= 3;
    at += 3;
  }
  if (length === 0) return c;
  if (length === 3) c = (c + k[at + 2]!) >>> 0;
  if (length >= 2) b = (b + k[at + 1]!) >>> 0;
  a = (a + k[at]!) >>> 0;
  // __jhash_final
  c = (c ^ b) >>> 0; c = (c - rol32(b, 14)) >>> 0;
  a = (a ^ c) >>> 0; a = (a - rol32(c, 11)) >>> 0;
  b = (b ^ a) >>> 0; b = (b - rol32(a, 25)) >>> 0;
  c = (c ^ b) >>> 0; c = (c - rol32(b, 16)) >>> 0;
  a = (a ^ c) >>> 0; a = (a - rol32(c, 4)) >>> 0;
  b = (b ^ a) >>> 0; b = (b - rol32(a, 14)) >>> 0;
  c = (c ^ b) >>> 0; c = (c - rol32(b, 24)) >>> 0;
  return c;
}

/** An IPv4 address (host-order integer) as the kernel's in-memory __be32 read as a little-endian u32. */
export function beAsLe(addr: number): number {
  return (((addr & 0xff) << 24) | ((addr & 0xff00) << 8) | ((addr >>> 8) & 0xff00) | (addr >>> 24)) >>> 0;
}

/** reciprocal_scale: maps a 32-bit value onto [0, range). */
export function reciprocalScale(value: number, range: number): number {
  return Math.floor((value * range) / 0x100000000);
}

// IPv4 prefixes for ipBlocks: parsing (host bits cleared), containment, a numeric key, and a
// set answering "longest member prefix that contains this address" with one probe per length.
import { formatIPv4, ipv4Mask, parseIPv4Cidr } from "../util/ip.js";

export type Prefix = { readonly addr: number; readonly len: number };

/** Parses "a.b.c.d/n"; host bits are cleared, as the API server's CIDR parsing does. */
export function parsePrefix(text: string): Prefix | null {
  const p = parseIPv4Cidr(text);
  if (p === null) return null;
  return { addr: (p.address & ipv4Mask(p.prefixLength)) >>> 0, len: p.prefixLength };
}

/** A number unique per prefix (addr * 64 + len), exact in a double. */
export function prefixKey(p: Prefix): number {
  return p.addr * 64 + p.len;
}

export function prefixFromKey(key: number): Prefix {
  return { addr: Math.floor(key / 64), len: key % 64 };
}

export function formatPrefix(p: Prefix): string {
  return `${formatIPv4(p.addr)}/${p.len}`;
}

export function prefixContainsAddr(p: Prefix, addr: number): boolean {
  return ((addr & ipv4Mask(p.len)) >>> 0) === p.addr;
}

/** True when inner lies within outer (equal counts as within). */
export function prefixWithin(inner: Prefix, outer: Prefix): boolean {
  return inner.len >= outer.len && prefixContainsAddr(outer, inner.addr);
}

/** A reference-counted set of prefixes with longest-prefix lookup by address. */
export class PrefixSet {
  private readonly counts = new Map<number, number>();
  private readonly perLength: Array<Set<number>> = Array.from({ length: 33 }, () => new Set<number>());

  /** Adds one reference; returns true when the prefix is new to the set. */
  add(p: Prefix): boolean {
    const k = prefixKey(p);
    const c = this.counts.get(k) ?? 0;
    this.counts.set(k, c + 1);
    if (c === 0) this.perLength[p.len]!.add(p.addr);
    return c === 0;
  }

  /** Drops one reference; returns true when the prefix left the set. */
  remove(p: Prefix): boolean {
    const k = prefixKey(p);
    const c = this.counts.get(k) ?? 0;
    if (c <= 1) {
      this.counts.delete(k);
      this.perLength[p.len]!.delete(p.addr);
      return c === 1;
    }
    this.counts.set(k, c - 1);
    return false;
  }

  has(p: Prefix): boolean {
    return this.counts.has(prefixKey(p));
  }

  /** The longest prefix of the set that contains addr, or null. */
  longestMatch(addr: number): Prefix | null {
    for (let len = 32; len >= 0; len--) {
      const set = this.perLength[len]!;
      if (set.size === 0) continue;
      const net = (addr & ipv4Mask(len)) >>> 0;
      if (set.has(net)) return { addr: net, len };
    }
    return null;
  }

  *[Symbol.iterator](): IterableIterator<Prefix> {
    for (const k of this.counts.keys()) yield prefixFromKey(k);
  }
}

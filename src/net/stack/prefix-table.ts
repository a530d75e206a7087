// Longest-prefix match over IPv4 prefixes: one hash map per prefix length, probed from the longest
// populated length down (at most 33 integer-keyed probes, usually a handful). Each prefix holds a
// list of values kept in caller order (routes: by metric), so equal prefixes resolve by preference.
// Keys are the masked prefixes as signed 32-bit integers (small integers to the Map; the unsigned
// form of an address from 128.0.0.0 up is a heap number, slower to hash and allocated per lookup).

import { ipv4Mask } from "../../util/ip.js";

const MASKS = Uint32Array.from({ length: 33 }, (_, len) => ipv4Mask(len));

export class PrefixTable<V> {
  private readonly byLength: (Map<number, V[]> | undefined)[] = new Array<Map<number, V[]> | undefined>(33);
  /** Populated prefix lengths, longest first. */
  private lengths: number[] = [];
  private count = 0;
  /** Bumped by every insert and remove (caches of lookups compare it). */
  version = 0;

  get size(): number {
    return this.count;
  }

  /** Inserts value under prefix/len; `before(a, b)` true means a is preferred to b (stable otherwise). */
  insert(prefix: number, len: number, value: V, before: (a: V, b: V) => boolean): void {
    const key = prefix & ipv4Mask(len);
    let map = this.byLength[len];
    if (map === undefined) {
      map = new Map();
      this.byLength[len] = map;
      this.lengths = this.lengths.concat(len).sort((a, b) => b - a);
    }
    const list = map.get(key);
    if (list === undefined) {
      map.set(key, [value]);
    } else {
      let i = 0;
      while (i < list.length && !before(value, list[i]!)) i++;
      list.splice(i, 0, value);
    }
    this.count++;
    this.version++;
  }

  /** Removes the first value under prefix/len that `match` accepts; returns it or undefined. */
  remove(prefix: number, len: number, match: (v: V) => boolean): V | undefined {
    const map = this.byLength[len];
    if (map === undefined) return undefined;
    const key = prefix & ipv4Mask(len);
    const list = map.get(key);
    if (list === undefined) return undefined;
    const i = list.findIndex(match);
    if (i < 0) return undefined;
    const [removed] = list.splice(i, 1);
    this.count--;
    this.version++;
    if (list.length === 0) {
      map.delete(key);
      if (map.size === 0) {
        this.byLength[len] = undefined;
        this.lengths = this.lengths.filter((l) => l !== len);
      }
    }
    return removed;
  }

  /** Values stored under exactly prefix/len (preferred first). */
  exact(prefix: number, len: number): readonly V[] {
    return this.byLength[len]?.get(prefix & ipv4Mask(len)) ?? [];
  }

  /**
   * The first value, longest prefix first and in preference order within a prefix, that `accept`
   * takes (pass a long-lived function: nothing is allocated per lookup). null when none matches.
   */
  lookup(addr: number, accept: (v: V) => boolean): V | null {
    const lengths = this.lengths;
    for (let i = 0; i < lengths.length; i++) {
      const len = lengths[i]!;
      const list = this.byLength[len]!.get(addr & MASKS[len]!);
      if (list === undefined) continue;
      for (let j = 0; j < list.length; j++) {
        const v = list[j]!;
        if (accept(v)) return v;
      }
    }
    return null;
  }

  values(): V[] {
    const out: V[] = [];
    for (const len of this.lengths) for (const list of this.byLength[len]!.values()) out.push(...list);
    return out;
  }
}

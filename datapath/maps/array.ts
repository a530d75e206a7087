// ArrayMap: a fixed-size array of values indexed by a u32 key (BPF_MAP_TYPE_ARRAY).
// Every index in [0, maxEntries) always exists (zeroed at creation); there is no delete, only clear.
import { checkGeometry, newMapStats } from "./errors.js";
import type { MapStats } from "./errors.js";

export interface ArrayMapOptions {
  valueWords: number;
  maxEntries: number;
}

export class ArrayMap {
  readonly valueWords: number;
  readonly maxEntries: number;
  /** Values: `values[index * valueWords + i]`. */
  readonly values: Uint32Array;
  readonly stats: MapStats = newMapStats();

  constructor(options: ArrayMapOptions) {
    checkGeometry("ArrayMap value", options.valueWords, options.maxEntries);
    this.valueWords = options.valueWords;
    this.maxEntries = options.maxEntries;
    this.values = new Uint32Array(options.valueWords * options.maxEntries);
  }

  /** The slot for `index` (the index itself) or -1 when out of range, like bpf_map_lookup_elem on an array. */
  lookup(index: number): number {
    this.stats.lookups++;
    if (index >>> 0 === index && index < this.maxEntries) {
      this.stats.hits++;
      return index;
    }
    this.stats.misses++;
    return -1;
  }

  /** Zeroes the values at `index`; false when out of range. */
  clear(index: number): boolean {
    if (index >>> 0 !== index || index >= this.maxEntries) return false;
    this.values.fill(0, index * this.valueWords, (index + 1) * this.valueWords);
    return true;
  }
}

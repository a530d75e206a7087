// Map error codes and per-map statistics shared by every datapath map.
// Hot-path methods never throw: they return a negative number -(MapError code) or a boolean.

/** Error codes of map updates. Methods returning a slot report failure as `-code` (always < 0). */
export const MapError = {
  /** The map holds maxEntries entries and nothing could be evicted. */
  FULL: 1,
  /** A key or value field is out of range (e.g. prefix length > key bits, port > 65535). */
  INVALID: 2,
} as const;
export type MapErrorCode = (typeof MapError)[keyof typeof MapError];

/** Counters every map keeps; they never reset except through `resetStats`. */
export interface MapStats {
  lookups: number;
  hits: number;
  misses: number;
  /** Updates refused because the map was full. */
  full: number;
  /** Entries removed to make room (LRU maps only). */
  evictions: number;
  inserts: number;
  deletes: number;
}

export function newMapStats(): MapStats {
  return { lookups: 0, hits: 0, misses: 0, full: 0, evictions: 0, inserts: 0, deletes: 0 };
}

export function resetStats(stats: MapStats): void {
  stats.lookups = 0;
  stats.hits = 0;
  stats.misses = 0;
  stats.full = 0;
  stats.evictions = 0;
  stats.inserts = 0;
  stats.deletes = 0;
}

/** True when a slot-returning map method reported an error instead of a slot. */
export function isMapError(result: number): boolean {
  return result < 0;
}

/** Validates a map geometry at construction (control-plane time: throwing is allowed here). */
export function checkGeometry(what: string, words: number, maxEntries: number): void {
  if (!Number.isInteger(words) || words < 1 || words > 64) {
    throw new RangeError(`${what}: word count must be an integer in 1..64, got ${words}`);
  }
  if (!Number.isInteger(maxEntries) || maxEntries < 1 || maxEntries > 1 << 24) {
    throw new RangeError(`${what}: maxEntries must be an integer in 1..16777216, got ${maxEntries}`);
  }
}

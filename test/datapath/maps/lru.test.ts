import { test } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import { LruHashMap } from "../../../datapath/maps/index.js";

test("evicts the least recently used entry when full; lookups refresh recency", () => {
  const map = new LruHashMap({ keyWords: 1, valueWords: 1, maxEntries: 3 });
  for (const k of [1, 2, 3]) map.values[map.upsert1(k)] = k * 10;
  assert.ok(map.lookup1(1) >= 0); // order now 1, 3, 2 (most to least recent)
  const slot = map.upsert1(4); // evicts 2
  assert.ok(slot >= 0);
  assert.equal(map.values[slot], 0, "a new entry starts zeroed even in an evicted slot");
  assert.equal(map.lookup1(2), -1);
  assert.equal(map.stats.evictions, 1);
  assert.equal(map.stats.full, 0, "LRU maps evict instead of refusing");
  assert.deepEqual(
    map.recencyOrder().map((s) => map.keys[s]),
    [4, 1, 3],
  );
});

test("peek does not change the eviction order", () => {
  const map = new LruHashMap({ keyWords: 1, valueWords: 1, maxEntries: 2 });
  map.upsert1(1);
  map.upsert1(2);
  map.key[0] = 1;
  assert.ok(map.peek() >= 0);
  map.upsert1(3);
  assert.equal(map.lookup1(1), -1, "1 was still least recent");
});

/** Reference LRU: a JS Map keeps insertion order; re-inserting moves a key to the end (most recent). */
class RefLru {
  readonly m = new Map<number, number>();
  constructor(readonly max: number) {}
  touch(k: number): boolean {
    if (!this.m.has(k)) return false;
    const v = this.m.get(k)!;
    this.m.delete(k);
    this.m.set(k, v);
    return true;
  }
  upsert(k: number, v: number): number | null {
    if (this.touch(k)) {
      this.m.set(k, v);
      return null;
    }
    let evicted: number | null = null;
    if (this.m.size >= this.max) {
      evicted = this.m.keys().next().value!;
      this.m.delete(evicted);
    }
    this.m.set(k, v);
    return evicted;
  }
}

test("agrees with a reference LRU over random operations, including eviction order", () => {
  const op = fc.record({ kind: fc.constantFrom("upsert", "lookup", "delete"), key: fc.integer({ min: 0, max: 80 }) });
  fc.assert(
    fc.property(fc.array(op, { minLength: 500, maxLength: 3000 }), fc.boolean(), (ops, noPrealloc) => {
      const max = 20;
      const map = new LruHashMap({ keyWords: 1, valueWords: 1, maxEntries: max, noPrealloc });
      const ref = new RefLru(max);
      let evictions = 0;
      for (const { kind, key } of ops) {
        if (kind === "upsert") {
          const lruBefore = map.leastRecentlyUsed >= 0 ? map.keys[map.leastRecentlyUsed] : -1;
          const evicted = ref.upsert(key, key + 1);
          const slot = map.upsert1(key);
          map.values[slot] = key + 1;
          if (evicted !== null) {
            evictions++;
            assert.equal(evicted, lruBefore, "the evicted key was the least recently used");
          }
        } else if (kind === "lookup") {
          const slot = map.lookup1(key);
          const had = ref.touch(key);
          assert.equal(slot >= 0, had);
          if (had) assert.equal(map.values[slot], key + 1);
        } else {
          assert.equal(map.delete1(key), ref.m.delete(key));
        }
        assert.equal(map.size, ref.m.size);
      }
      assert.equal(map.stats.evictions, evictions);
      assert.deepEqual(
        map.recencyOrder().map((s) => map.keys[s]),
        [...ref.m.keys()].reverse(),
      );
    }),
    { seed: 4242, numRuns: 60 },
  );
});

import { test } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import { HashMap, MapError } from "../../../datapath/maps/index.js";

const SEED = 20240601;

test("stores and finds fixed-size keys and values", () => {
  const map = new HashMap({ keyWords: 2, valueWords: 3, maxEntries: 8 });
  const slot = map.upsert2(0x0a000001, 80);
  assert.ok(slot >= 0);
  assert.equal(map.created, true);
  map.values[slot * 3 + 2] = 777;
  assert.equal(map.lookup2(0x0a000001, 80), slot);
  assert.equal(map.values[map.lookup2(0x0a000001, 80) * 3 + 2], 777);
  assert.equal(map.lookup2(0x0a000001, 81), -1);
  assert.equal(map.upsert2(0x0a000001, 80), slot, "upsert of a present key returns its slot");
  assert.equal(map.created, false);
  assert.deepEqual(
    { lookups: map.stats.lookups, hits: map.stats.hits, misses: map.stats.misses },
    { lookups: 3, hits: 2, misses: 1 },
  );
  assert.equal(map.delete2(0x0a000001, 80), true);
  assert.equal(map.delete2(0x0a000001, 80), false);
  assert.equal(map.size, 0);
});

test("a full map refuses new keys with -MapError.FULL, counts it, and still updates present keys", () => {
  const map = new HashMap({ keyWords: 1, valueWords: 1, maxEntries: 3 });
  for (const k of [1, 2, 3]) assert.ok(map.upsert1(k) >= 0);
  assert.equal(map.upsert1(4), -MapError.FULL);
  assert.equal(map.stats.full, 1);
  assert.ok(map.upsert1(2) >= 0, "present key is still found");
  assert.equal(map.size, 3);
  map.delete1(1);
  assert.ok(map.upsert1(4) >= 0, "room again after a delete");
});

test("key words compare as unsigned 32-bit values", () => {
  const map = new HashMap({ keyWords: 1, valueWords: 1, maxEntries: 4 });
  const slot = map.upsert1(0xffffffff);
  assert.equal(map.lookup1(-1), slot, "-1 is stored as 0xffffffff by the Uint32Array scratch");
  assert.equal(map.find1(-1), slot);
});

test("geometry errors are reported at construction", () => {
  assert.throws(() => new HashMap({ keyWords: 0, valueWords: 1, maxEntries: 4 }), /word count/);
  assert.throws(() => new HashMap({ keyWords: 1, valueWords: 1, maxEntries: 0 }), /maxEntries/);
});

type Op = { kind: "upsert" | "delete" | "lookup"; key: number[]; value: number };

function opsArb(keyWords: number, keySpace: number) {
  const key = fc.array(fc.integer({ min: 0, max: keySpace - 1 }), { minLength: keyWords, maxLength: keyWords });
  return fc.array(
    fc.record({
      kind: fc.constantFrom<Op["kind"]>("upsert", "upsert", "delete", "lookup"),
      key,
      value: fc.nat(),
    }),
    { minLength: 200, maxLength: 3000 },
  );
}

function runAgainstReference(keyWords: number, maxEntries: number, noPrealloc: boolean, ops: Op[]): void {
  const map = new HashMap({ keyWords, valueWords: 2, maxEntries, noPrealloc });
  const ref = new Map<string, number>();
  let fullCount = 0;
  for (const op of ops) {
    map.key.set(op.key);
    const id = op.key.join(",");
    if (op.kind === "upsert") {
      const slot = map.upsert();
      if (!ref.has(id) && ref.size >= maxEntries) {
        assert.equal(slot, -MapError.FULL);
        fullCount++;
        continue;
      }
      assert.ok(slot >= 0);
      assert.equal(map.created, !ref.has(id));
      map.values[slot * 2] = op.value;
      map.values[slot * 2 + 1] = op.key[0]!;
      ref.set(id, op.value);
    } else if (op.kind === "delete") {
      assert.equal(map.delete(), ref.delete(id));
    } else {
      const slot = map.lookup();
      if (ref.has(id)) {
        assert.ok(slot >= 0, `key ${id} must be found`);
        assert.equal(map.values[slot * 2], ref.get(id));
      } else assert.equal(slot, -1);
    }
    assert.equal(map.size, ref.size);
  }
  assert.equal(map.stats.full, fullCount);
  // Every reference key is found, and iteration yields exactly the reference keys.
  const seen = new Set<string>();
  for (let slot = map.nextSlot(-1); slot >= 0; slot = map.nextSlot(slot)) {
    seen.add(Array.from(map.keys.subarray(slot * keyWords, slot * keyWords + keyWords)).join(","));
  }
  assert.deepEqual([...seen].sort(), [...ref.keys()].sort());
}

for (const keyWords of [1, 2, 4]) {
  for (const noPrealloc of [false, true]) {
    test(`agrees with a JS Map over random upsert/delete/lookup (${keyWords}-word keys, noPrealloc ${noPrealloc})`, () => {
      fc.assert(
        fc.property(opsArb(keyWords, keyWords === 1 ? 400 : 6), (ops) => runAgainstReference(keyWords, 150, noPrealloc, ops)),
        { seed: SEED + keyWords, numRuns: 40 },
      );
    });
  }
}

test("dense churn in a small map keeps every probe chain intact (backward-shift deletion)", () => {
  // 1000 keys through a 32-entry map: long chains, constant deletes and reinserts.
  const map = new HashMap({ keyWords: 1, valueWords: 1, maxEntries: 32 });
  const live = new Set<number>();
  let x = 12345;
  for (let i = 0; i < 50000; i++) {
    x = (Math.imul(x, 1103515245) + 12345) >>> 0;
    const k = x % 1000;
    if (live.has(k)) {
      assert.equal(map.delete1(k), true);
      live.delete(k);
    } else if (live.size < 32) {
      assert.ok(map.upsert1(k) >= 0);
      live.add(k);
    }
    if (i % 997 === 0) for (const k2 of live) assert.ok(map.lookup1(k2) >= 0, `lost key ${k2}`);
  }
});

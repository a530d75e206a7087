import { test } from "node:test";
import assert from "node:assert/strict";
import { ArrayMap } from "../../../datapath/maps/index.js";

test("every index below maxEntries exists and starts zeroed; others miss", () => {
  const map = new ArrayMap({ valueWords: 2, maxEntries: 4 });
  assert.equal(map.lookup(3), 3);
  assert.equal(map.values[3 * 2 + 1], 0);
  map.values[3 * 2 + 1] = 9;
  assert.equal(map.values[map.lookup(3) * 2 + 1], 9);
  assert.equal(map.lookup(4), -1);
  assert.equal(map.lookup(-1), -1);
  assert.equal(map.lookup(1.5), -1);
  assert.deepEqual({ hits: map.stats.hits, misses: map.stats.misses }, { hits: 2, misses: 3 });
  assert.equal(map.clear(3), true);
  assert.equal(map.values[3 * 2 + 1], 0);
  assert.equal(map.clear(4), false);
});

import { test } from "node:test";
import assert from "node:assert/strict";
import { SeededRng } from "../../src/util/rng.js";

test("same seed gives the same stream; different seeds differ", () => {
  const a = new SeededRng(42);
  const b = new SeededRng(42);
  const c = new SeededRng(43);
  const sa = Array.from({ length: 16 }, () => a.nextU32());
  const sb = Array.from({ length: 16 }, () => b.nextU32());
  const sc = Array.from({ length: 16 }, () => c.nextU32());
  assert.deepEqual(sa, sb);
  assert.notDeepEqual(sa, sc);
});

test("nextInt stays in range and covers it roughly uniformly", () => {
  const rng = new SeededRng(7);
  const counts = new Array<number>(6).fill(0);
  for (let i = 0; i < 60000; i++) counts[rng.nextInt(6)]!++;
  for (const c of counts) assert.ok(c > 9000 && c < 11000, `bucket count ${c}`);
  assert.throws(() => rng.nextInt(0), RangeError);
});

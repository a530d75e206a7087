// Generated names: rand.String's alphabet and length, determinism per seed.
import { test } from "node:test";
import assert from "node:assert/strict";
import { generateName, randomString, SAFE_ALPHANUMS } from "../../src/controllers/index.js";
import { SeededRng } from "../../src/util/rng.js";

test("randomString draws five characters from bcdfghjklmnpqrstvwxz2456789", () => {
  const rng = new SeededRng(7);
  const seen = new Set<string>();
  for (let i = 0; i < 400; i++) {
    const s = randomString(rng, 5);
    assert.match(s, /^[bcdfghjklmnpqrstvwxz2456789]{5}$/);
    for (const c of s) seen.add(c);
  }
  assert.equal(seen.size, SAFE_ALPHANUMS.length, "every character of the alphabet occurs");
});

test("names are deterministic per seed and differ between seeds", () => {
  const a = Array.from({ length: 5 }, ((rng) => () => randomString(rng, 5))(new SeededRng(1)));
  const b = Array.from({ length: 5 }, ((rng) => () => randomString(rng, 5))(new SeededRng(1)));
  const c = Array.from({ length: 5 }, ((rng) => () => randomString(rng, 5))(new SeededRng(2)));
  assert.deepEqual(a, b);
  assert.notDeepEqual(a, c);
});

test("generateName keeps the prefix and cuts it to leave room for the suffix (63 characters)", () => {
  const rng = new SeededRng(3);
  assert.match(generateName(rng, "web-59b9bb7664-"), /^web-59b9bb7664-[bcdfghjklmnpqrstvwxz2456789]{5}$/);
  const long = generateName(rng, "x".repeat(70));
  assert.equal(long.length, 63);
  assert.ok(long.startsWith("x".repeat(58)));
});

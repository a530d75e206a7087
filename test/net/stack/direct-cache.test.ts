// DirectMappedCache: a stored value comes back for its own key pair only, a colliding key replaces
// it, clear() forgets everything; the route cache built on it answers exactly as uncached lookups do.

import { test } from "node:test";
import assert from "node:assert/strict";
import { DirectMappedCache } from "../../../src/net/stack/direct-cache.js";
import { NetNamespace } from "../../../src/net/stack/index.js";
import { ip, mac, newWorld, vethBetween } from "./topology.js";

test("values come back for their own key pair, negative and unsigned keys included", () => {
  const cache = new DirectMappedCache<string>(4);
  cache.set(ip("10.0.0.1"), 3, "a");
  cache.set(ip("192.168.1.1"), 3, "b");
  cache.set(0xffffffff, 0, "c");
  assert.equal(cache.get(ip("10.0.0.1"), 3), "a");
  assert.equal(cache.get(ip("192.168.1.1"), 3), "b");
  assert.equal(cache.get(0xffffffff, 0), "c");
  assert.equal(cache.get(-1, 0), "c", "keys are compared as 32-bit integers");
  assert.equal(cache.get(ip("10.0.0.1"), 4), undefined);
  assert.equal(cache.get(ip("10.0.0.2"), 3), undefined);
});

test("a key hashing to a taken slot replaces it; clear forgets everything", () => {
  const cache = new DirectMappedCache<number>(1);
  for (let i = 0; i < 64; i++) cache.set(i, 0, i);
  let present = 0;
  for (let i = 0; i < 64; i++) {
    const v = cache.get(i, 0);
    if (v !== undefined) {
      assert.equal(v, i);
      present++;
    }
  }
  assert.ok(present >= 1 && present <= 2, `two slots hold at most two keys (${present})`);
  cache.clear();
  for (let i = 0; i < 64; i++) assert.equal(cache.get(i, 0), undefined);
});

test("route lookups through the cache follow route changes and link state", () => {
  const { world } = newWorld(5);
  const a = new NetNamespace(world, "a", "n");
  const b = new NetNamespace(world, "b", "n");
  const [va] = vethBetween(world, a, "va", mac("02:00:00:00:00:0a"), b, "vb", mac("02:00:00:00:00:0b"));
  a.addAddress(va, ip("10.0.0.1"), 24);
  const dst = ip("10.9.0.7");
  assert.equal(a.routes.lookup(dst), null);
  a.routes.add({ dst: ip("10.9.0.0"), prefixLen: 16, via: ip("10.0.0.2") });
  assert.equal(a.routes.lookup(dst)?.via, ip("10.0.0.2"));
  for (let i = 0; i < 300; i++) a.routes.lookup(ip("10.9.1.0") + i); // evicts whatever shares a slot
  assert.equal(a.routes.lookup(dst)?.via, ip("10.0.0.2"));
  a.routes.add({ dst: ip("10.9.0.0"), prefixLen: 24, via: ip("10.0.0.3") });
  assert.equal(a.routes.lookup(dst)?.via, ip("10.0.0.3"), "a longer prefix added later wins at once");
  va.up = false;
  assert.equal(a.routes.lookup(dst), null, "routes through a down device are skipped");
  va.up = true;
  assert.equal(a.routes.lookup(dst)?.via, ip("10.0.0.3"));
});

// The bridge FDB's open-addressing table against a Map model under random learn / set / delete /
// deleteByPort / expire operations (fast-check), plus the br_fdb_update rules: local entries are
// never taken over, static entries are moved by learning unless sticky, ageing_time 0 learns nothing.

import { test } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import { BridgeFdb, FdbFlag, LearnResult } from "../../../src/net/bridge.js";

const AGE = 1000;

type Op =
  | { readonly op: "learn"; readonly mac: number; readonly port: number }
  | { readonly op: "set"; readonly mac: number; readonly port: number; readonly flags: number }
  | { readonly op: "delete"; readonly mac: number }
  | { readonly op: "deleteByPort"; readonly port: number }
  | { readonly op: "tick"; readonly dt: number };

interface ModelEntry {
  port: number;
  flags: number;
  updated: number;
}

// A few MACs spanning both 24-bit halves so that collisions and wrap-around happen.
const macArb = fc.constantFrom(0x020000000001, 0x020000000002, 0x0a0b0c0d0e0f, 0xfe0000000000, 0x000000ffffff, 0x123456789abc, 0x020000000100, 0x7f7f7f7f7f7f);
const opArb: fc.Arbitrary<Op> = fc.oneof(
  fc.record({ op: fc.constant("learn" as const), mac: macArb, port: fc.integer({ min: 0, max: 3 }) }),
  fc.record({ op: fc.constant("set" as const), mac: macArb, port: fc.integer({ min: -1, max: 3 }), flags: fc.constantFrom(FdbFlag.LOCAL | FdbFlag.STATIC, FdbFlag.STATIC, FdbFlag.STATIC | FdbFlag.STICKY) }),
  fc.record({ op: fc.constant("delete" as const), mac: macArb }),
  fc.record({ op: fc.constant("deleteByPort" as const), port: fc.integer({ min: 0, max: 3 }) }),
  fc.record({ op: fc.constant("tick" as const), dt: fc.integer({ min: 1, max: 700 }) }),
);

const learned = (e: ModelEntry): boolean => (e.flags & (FdbFlag.LOCAL | FdbFlag.STATIC)) === 0;

test("the FDB behaves like a map with ageing under random operations", () => {
  fc.assert(
    fc.property(fc.array(opArb, { maxLength: 80 }), (ops) => {
      const fdb = new BridgeFdb(AGE, 2);
      const model = new Map<number, ModelEntry>();
      let now = 0;
      const live = (mac: number): ModelEntry | undefined => {
        const e = model.get(mac);
        if (e !== undefined && learned(e) && e.updated + AGE <= now) {
          model.delete(mac);
          return undefined;
        }
        return e;
      };
      for (const o of ops) {
        switch (o.op) {
          case "learn": {
            const e = live(o.mac);
            if (e === undefined) model.set(o.mac, { port: o.port, flags: 0, updated: now });
            else if ((e.flags & FdbFlag.LOCAL) === 0) {
              e.updated = now;
              if ((e.flags & FdbFlag.STICKY) === 0) e.port = o.port;
            }
            fdb.learn(o.mac, o.port, now);
            break;
          }
          case "set":
            model.set(o.mac, { port: o.port, flags: o.flags, updated: now });
            fdb.set(o.mac, o.port, o.flags, now);
            break;
          case "delete":
            assert.equal(fdb.delete(o.mac, now), live(o.mac) !== undefined && model.delete(o.mac));
            break;
          case "deleteByPort":
            for (const [mac, e] of [...model]) if (e.port === o.port) model.delete(mac);
            fdb.deleteByPort(o.port, true);
            break;
          case "tick":
            now += o.dt;
            break;
        }
        for (const mac of [...model.keys()]) live(mac);
        const got = fdb.entries(now).map((e) => [e.mac, e.port, e.flags]);
        const want = [...model].sort((a, b) => a[0] - b[0]).map(([mac, e]) => [mac, e.port, e.flags]);
        assert.deepEqual(got, want);
      }
    }),
    { seed: 42, numRuns: 300 },
  );
});

test("br_fdb_update rules: local entries stay, static ones move unless sticky, ageing 0 never learns", () => {
  const fdb = new BridgeFdb(AGE);
  fdb.set(1, -1, FdbFlag.LOCAL | FdbFlag.STATIC, 0);
  assert.equal(fdb.learn(1, 2, 5), LearnResult.LOCAL);
  fdb.set(2, 0, FdbFlag.STATIC, 0);
  assert.equal(fdb.learn(2, 3, 5), LearnResult.MOVED);
  fdb.set(3, 0, FdbFlag.STATIC | FdbFlag.STICKY, 0);
  assert.equal(fdb.learn(3, 3, 5), LearnResult.REFRESHED);
  assert.equal(fdb.portAt(fdb.find(3, 5)), 0);
  assert.equal(fdb.learn(4, 1, 5), LearnResult.CREATED);
  assert.equal(fdb.find(4, 5 + AGE), -1, "expired at updated + ageing");
  assert.equal(fdb.find(2, 10 * AGE) >= 0, true, "static entries do not age");
  const never = new BridgeFdb(0);
  never.learn(9, 1, 0);
  assert.equal(never.size, 0);
  const capped = new BridgeFdb(AGE);
  capped.maxLearned = 1;
  capped.learn(10, 1, 0);
  assert.equal(capped.learn(11, 1, 0), LearnResult.FULL);
  for (let i = 0; i < 500; i++) fdb.learn(0x020000000000 + i, i % 4, 7);
  assert.equal(fdb.expire(7 + AGE), 500, "bulk expiry after growth");
  assert.equal(fdb.size, 3);
});

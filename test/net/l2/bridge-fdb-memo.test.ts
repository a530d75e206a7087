// The bridge FDB's per-port slot memos (findVia / learnVia) against plain find / learn: two tables
// fed the same random operations, one looking MACs up through memos that live across operations,
// must give the same answers and end with the same entries, including after inserts, removals,
// backward-shift moves, growth and ageing (each of which must invalidate a memo that still
// names the old slot).

import { test } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import { BridgeFdb, FdbFlag } from "../../../src/net/bridge.js";
import { FdbSlotMemo } from "../../../src/net/bridge/fdb.js";

const AGE = 1000;

type Op =
  | { readonly op: "find"; readonly mac: number; readonly memo: number }
  | { readonly op: "learn"; readonly mac: number; readonly port: number; readonly memo: number }
  | { readonly op: "set"; readonly mac: number; readonly port: number; readonly flags: number }
  | { readonly op: "delete"; readonly mac: number }
  | { readonly op: "deleteByPort"; readonly port: number }
  | { readonly op: "expire" }
  | { readonly op: "tick"; readonly dt: number };

// MACs in both 24-bit halves (probe collisions and wrap-around), more than the initial capacity (growth).
const macArb = fc.constantFrom(
  0x020000000001, 0x020000000002, 0x0a0b0c0d0e0f, 0xfe0000000000, 0x000000ffffff, 0x123456789abc,
  0x020000000100, 0x7f7f7f7f7f7f, 0x020000000003, 0x020000000004, 0x0a0b0c0d0e10, 0x000001000000,
);
const memoArb = fc.integer({ min: 0, max: 2 });
const opArb: fc.Arbitrary<Op> = fc.oneof(
  { arbitrary: fc.record({ op: fc.constant("find" as const), mac: macArb, memo: memoArb }), weight: 4 },
  { arbitrary: fc.record({ op: fc.constant("learn" as const), mac: macArb, port: fc.integer({ min: 0, max: 3 }), memo: memoArb }), weight: 4 },
  fc.record({ op: fc.constant("set" as const), mac: macArb, port: fc.integer({ min: -1, max: 3 }), flags: fc.constantFrom(FdbFlag.LOCAL | FdbFlag.STATIC, FdbFlag.STATIC, FdbFlag.STATIC | FdbFlag.STICKY) }),
  fc.record({ op: fc.constant("delete" as const), mac: macArb }),
  fc.record({ op: fc.constant("deleteByPort" as const), port: fc.integer({ min: 0, max: 3 }) }),
  fc.record({ op: fc.constant("expire" as const) }),
  fc.record({ op: fc.constant("tick" as const), dt: fc.integer({ min: 1, max: 700 }) }),
);

const view = (fdb: BridgeFdb, now: number): unknown[] => fdb.entries(now).map((e) => [e.mac, e.port, e.flags, e.updated, e.used]);

test("findVia / learnVia answer as find / learn do, across layout changes and ageing", () => {
  fc.assert(
    fc.property(fc.array(opArb, { minLength: 20, maxLength: 120, size: "max" }), (ops) => {
      const plain = new BridgeFdb(AGE, 2);
      const memoed = new BridgeFdb(AGE, 2);
      const memos = [new FdbSlotMemo(), new FdbSlotMemo(), new FdbSlotMemo()];
      let now = 0;
      for (const o of ops) {
        switch (o.op) {
          case "find": {
            const a = plain.find(o.mac, now);
            const b = memoed.findVia(memos[o.memo]!, o.mac, now);
            assert.equal(b < 0, a < 0, "found in one table only");
            if (a >= 0) {
              assert.equal(memoed.portAt(b), plain.portAt(a));
              assert.equal(memoed.flagsAt(b), plain.flagsAt(a));
              plain.touch(a, now);
              memoed.touch(b, now);
            }
            break;
          }
          case "learn":
            assert.equal(memoed.learnVia(memos[o.memo]!, o.mac, o.port, now), plain.learn(o.mac, o.port, now));
            break;
          case "set":
            plain.set(o.mac, o.port, o.flags, now);
            memoed.set(o.mac, o.port, o.flags, now);
            break;
          case "delete":
            assert.equal(memoed.delete(o.mac, now), plain.delete(o.mac, now));
            break;
          case "deleteByPort":
            assert.equal(memoed.deleteByPort(o.port, true), plain.deleteByPort(o.port, true));
            break;
          case "expire":
            assert.equal(memoed.expire(now), plain.expire(now));
            break;
          case "tick":
            now += o.dt;
            break;
        }
        assert.deepEqual(view(memoed, now), view(plain, now));
      }
    }),
    { seed: 7, numRuns: 400 },
  );
});

test("a memo naming a slot is not trusted after the entry there was removed and another moved in", () => {
  const fdb = new BridgeFdb(AGE, 2);
  const memo = new FdbSlotMemo();
  fdb.learn(0x020000000001, 1, 0);
  const slot = fdb.findVia(memo, 0x020000000001, 0);
  assert.ok(slot >= 0);
  assert.equal(fdb.delete(0x020000000001, 0), true);
  assert.equal(fdb.findVia(memo, 0x020000000001, 0), -1, "deleted: the memo's slot is empty now");
  fdb.learn(0x020000000002, 2, 0); // may land in the freed slot
  assert.equal(fdb.findVia(memo, 0x020000000001, 0), -1, "the deleted MAC is gone, whatever took its slot");
  assert.equal(fdb.learnVia(memo, 0x020000000001, 3, 0), 0 /* CREATED */);
  assert.equal(fdb.portAt(fdb.findVia(memo, 0x020000000001, 0)), 3);
  assert.equal(fdb.findVia(memo, 0x020000000001, AGE), -1, "an aged-out entry behind a valid memo is still expired");
});

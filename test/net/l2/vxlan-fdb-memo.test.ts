// The VXLAN FDB's transmit memo (lookupTxOrDefault) against what vxlan_xmit did without it,
// lookupTx(mac) ?? lookupTx(ALL_ZEROS_MAC): two FDBs fed the same random configuration, learning
// and time steps must resolve every transmit to the same entry, stamp the same `used` times and
// keep the same entries, including after the MAC's own entry is created, aged out or deleted.

import { test } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import { ALL_ZEROS_MAC, VxlanFdb, VxlanNud, type VxlanFdbEntry } from "../../../src/net/vxlan.js";

const AGE = 1000;

type Op =
  | { readonly op: "tx"; readonly mac: number }
  | { readonly op: "replace"; readonly mac: number; readonly ip: number; readonly state: number }
  | { readonly op: "add"; readonly mac: number; readonly ip: number; readonly state: number }
  | { readonly op: "append"; readonly ip: number }
  | { readonly op: "delete"; readonly mac: number; readonly ip: number }
  | { readonly op: "snoop"; readonly mac: number; readonly ip: number }
  | { readonly op: "tick"; readonly dt: number };

const macArb = fc.constantFrom(ALL_ZEROS_MAC, 0x020000000001, 0x020000000002, 0x0a0b0c0d0e0f);
const ipArb = fc.constantFrom(0, 0x0a000001, 0x0a000002, 0x0a000003);
const stateArb = fc.constantFrom(VxlanNud.PERMANENT, VxlanNud.NOARP, VxlanNud.REACHABLE);
const opArb: fc.Arbitrary<Op> = fc.oneof(
  { arbitrary: fc.record({ op: fc.constant("tx" as const), mac: macArb }), weight: 5 },
  fc.record({ op: fc.constant("replace" as const), mac: macArb, ip: ipArb, state: stateArb }),
  fc.record({ op: fc.constant("add" as const), mac: macArb, ip: ipArb, state: stateArb }),
  fc.record({ op: fc.constant("append" as const), ip: ipArb }),
  fc.record({ op: fc.constant("delete" as const), mac: macArb, ip: ipArb }),
  fc.record({ op: fc.constant("snoop" as const), mac: macArb, ip: ipArb }),
  fc.record({ op: fc.constant("tick" as const), dt: fc.integer({ min: 1, max: 700 }) }),
);

const describe = (e: VxlanFdbEntry | undefined): unknown =>
  e === undefined ? null : [e.mac, e.state, e.updated, e.used, e.remotes.map((r) => [r.ip, r.port, r.vni])];
const view = (fdb: VxlanFdb, now: number): unknown[] => fdb.entries(now).map(describe);

test("lookupTxOrDefault resolves like lookupTx(mac) ?? lookupTx(all-zeros), under random FDB changes", () => {
  fc.assert(
    fc.property(fc.array(opArb, { minLength: 20, maxLength: 100, size: "max" }), (ops) => {
      const plain = new VxlanFdb(AGE);
      const memoed = new VxlanFdb(AGE);
      let now = 0;
      for (const o of ops) {
        for (const fdb of [plain, memoed]) {
          const remote = { ip: "ip" in o ? o.ip : 0, port: 0, vni: 0 };
          if (o.op === "replace") fdb.replace(o.mac, remote, o.state, now);
          else if (o.op === "add") fdb.add(o.mac, remote, o.state, now);
          else if (o.op === "append") fdb.append(ALL_ZEROS_MAC, remote, VxlanNud.PERMANENT, now);
          else if (o.op === "delete") fdb.delete(o.mac, o.ip, now);
          else if (o.op === "snoop") fdb.snoop(o.mac, o.ip, now);
        }
        if (o.op === "tick") now += o.dt;
        if (o.op === "tx") {
          const want = plain.lookupTx(o.mac, now) ?? plain.lookupTx(ALL_ZEROS_MAC, now);
          assert.deepEqual(describe(memoed.lookupTxOrDefault(o.mac, now)), describe(want));
        }
        assert.deepEqual(view(memoed, now), view(plain, now));
      }
    }),
    { seed: 11, numRuns: 400 },
  );
});

test("the memo follows the destination's own entry appearing and going, and the default's ageing", () => {
  const fdb = new VxlanFdb(AGE);
  const dst = 0x020000000001;
  fdb.append(ALL_ZEROS_MAC, { ip: 1, port: 0, vni: 0 }, VxlanNud.REACHABLE, 0);
  assert.equal(fdb.lookupTxOrDefault(dst, 0)?.mac, ALL_ZEROS_MAC, "no entry of its own: the default");
  const own = fdb.replace(dst, { ip: 2, port: 0, vni: 0 }, VxlanNud.PERMANENT, 0);
  assert.equal(fdb.lookupTxOrDefault(dst, 1), own, "its own entry once it has one");
  assert.equal(fdb.delete(dst, 0, 1), true);
  assert.equal(fdb.lookupTxOrDefault(dst, 2)?.mac, ALL_ZEROS_MAC, "the default again after the delete");
  assert.equal(fdb.lookupTxOrDefault(dst, AGE), undefined, "the learned default aged out");
  assert.equal(fdb.size, 0);
});

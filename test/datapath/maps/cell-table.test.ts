import { test } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import { CellTable } from "../../../datapath/maps/cell-table.js";
import { EntryTable, ENTRY_KIND, ENTRY_RULE, VERDICT_SHIFT } from "../../../datapath/maps/entry-table.js";

// Keys from a small space so that inserts, finds and removes collide and probe runs wrap.
const key = fc.tuple(fc.integer({ min: -3, max: 40 }), fc.constantFrom(0, 1, -2, 0x7fffffff, -0x80000000));
const op = fc.record({ kind: fc.constantFrom("insert", "insert", "remove", "find"), key, value: fc.integer() });

test("CellTable agrees with a JS Map through inserts, removes (backward shift) and growth", () => {
  fc.assert(
    fc.property(fc.array(op, { minLength: 50, maxLength: 600 }), fc.integer({ min: 0, max: 40 }), (ops, hint) => {
      const table = new CellTable(hint);
      const ref = new Map<string, number>();
      for (const { kind, key: [k0, k1], value } of ops) {
        const id = `${k0}/${k1}`;
        if (kind === "insert") {
          const at = table.insert(k0, k1);
          assert.equal(table.created, !ref.has(id));
          if (table.created) table.cells[at + 2] = value;
          else assert.equal(table.cells[at + 2], ref.get(id));
          if (!ref.has(id)) ref.set(id, value);
        } else if (kind === "remove") {
          const at = table.find(k0, k1);
          assert.equal(at >= 0, ref.has(id));
          if (at >= 0) table.removeAt(at);
          ref.delete(id);
        } else {
          const at = table.find(k0, k1);
          assert.equal(at >= 0 ? table.cells[at + 2] : undefined, ref.get(id));
        }
        assert.equal(table.size, ref.size);
        assert.ok(table.size * 4 <= (table.cells.length / 4) * 3, "load stays at or below 3/4");
      }
      let seen = 0;
      for (let at = table.next(-4); at >= 0; at = table.next(at)) {
        seen++;
        assert.equal(table.cells[at + 2], ref.get(`${table.cells[at]}/${table.cells[at + 1]}`));
      }
      assert.equal(seen, ref.size);
    }),
    { seed: 4242, numRuns: 150 },
  );
});

test("EntryTable finds entries by (identity, ports, direction|proto), whatever their verdict", () => {
  const table = new EntryTable();
  const ports = (lo: number, hi: number) => (lo << 16) | hi;
  for (let i = 0; i < 300; i++) table.add(256 + (i % 7), ports(i, i + (i % 3)), (i % 2 << 8) | 6, 1 + (i % 2), i);
  table.reserve(1000);
  for (let i = 0; i < 300; i++) {
    const at = table.find(256 + (i % 7), ports(i, i + (i % 3)), (i % 2 << 8) | 6);
    assert.ok(at >= 0, `entry ${i}`);
    assert.equal(table.cells[at + ENTRY_KIND]! >>> VERDICT_SHIFT, 1 + (i % 2));
    assert.equal(table.cells[at + ENTRY_RULE], i);
    assert.equal(table.find(256 + (i % 7), ports(i, i + (i % 3)), (i % 2 << 8) | 17), -1, "protocol is part of the key");
  }
  for (let i = 0; i < 300; i += 2) table.removeAt(table.find(256 + (i % 7), ports(i, i + (i % 3)), (i % 2 << 8) | 6));
  assert.equal(table.size, 150);
  for (let i = 0; i < 300; i++) assert.equal(table.find(256 + (i % 7), ports(i, i + (i % 3)), (i % 2 << 8) | 6) >= 0, i % 2 === 1);
  // Port range [65535, 65535] makes the ports word -1: still a key like any other.
  table.add(300, ports(65535, 65535), 6, 1, 9);
  assert.ok(table.find(300, -1, 6) >= 0);
});

test("growing tables reuse released arena blocks without sharing live cells", () => {
  // Many small tables growing side by side: their blocks come from shared chunks and released blocks
  // are handed out again. Each table's content must stay its own.
  const tables: CellTable[] = [];
  for (let t = 0; t < 60; t++) tables.push(new CellTable());
  for (let round = 0; round < 5; round++) {
    for (let t = 0; t < tables.length; t++) {
      for (let k = 0; k < 20 * (round + 1); k++) {
        const at = tables[t]!.insert(t, k); // may move the table to a new block: read `cells` after it
        tables[t]!.cells[at + 2] = t * 1000 + k;
      }
    }
    for (let t = 0; t < tables.length; t++) {
      for (let k = 0; k < 20 * (round + 1); k++) assert.equal(tables[t]!.cells[tables[t]!.find(t, k) + 2], t * 1000 + k);
    }
  }
});

// KeyHeap against a sorted reference: top is always the (time, seq) minimum, through growth and retain.
import { test } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import { KeyHeap } from "../../src/engine/key-heap.js";

type Entry = { time: number; seq: number; value: number };
type Op = { kind: "push"; time: number } | { kind: "pop" } | { kind: "retain"; modulus: number };

const opArb: fc.Arbitrary<Op> = fc.oneof(
  { weight: 5, arbitrary: fc.record({ kind: fc.constant("push" as const), time: fc.integer({ min: 0, max: 50 }) }) },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant("pop" as const) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant("retain" as const), modulus: fc.integer({ min: 2, max: 5 }) }) },
);

const byTimeThenSeq = (a: Entry, b: Entry): number => a.time - b.time || a.seq - b.seq;

test("KeyHeap always exposes the (time, seq)-smallest entry, across growth and retain", () => {
  fc.assert(
    fc.property(fc.array(opArb, { minLength: 1, maxLength: 1500 }), (ops) => {
      const heap = new KeyHeap(2);
      const reference: Entry[] = [];
      let seq = 0;
      for (const op of ops) {
        if (op.kind === "push") {
          // Values are unique, so the top's value identifies exactly which entry is on top.
          const entry = { time: op.time, seq: seq++, value: 1000 + seq * 3 };
          heap.push(entry.time, entry.seq, entry.value);
          reference.push(entry);
        } else if (op.kind === "pop") {
          heap.removeTop();
          reference.sort(byTimeThenSeq).shift();
        } else {
          const keep = (v: number): boolean => v % op.modulus !== 0;
          heap.retain(keep);
          reference.splice(0, reference.length, ...reference.filter((e) => keep(e.value)));
        }
        assert.equal(heap.size, reference.length);
        const best = reference.sort(byTimeThenSeq)[0];
        if (best !== undefined) {
          assert.equal(heap.topTime(), best.time);
          assert.equal(heap.topValue(), best.value);
        }
      }
      const drained: number[] = [];
      while (heap.size > 0) {
        drained.push(heap.topValue());
        heap.removeTop();
      }
      assert.deepEqual(drained, reference.sort(byTimeThenSeq).map((e) => e.value));
    }),
    { numRuns: 100 },
  );
});

test("KeyHeap removeTop on an empty heap is a no-op", () => {
  const heap = new KeyHeap();
  heap.removeTop();
  assert.equal(heap.size, 0);
  heap.push(5, 0, 9);
  heap.removeTop();
  heap.removeTop();
  assert.equal(heap.size, 0);
});

// InstantQueue: FIFO order across wrap-around and growth, peek/shift, retain keeping order.
import { test } from "node:test";
import assert from "node:assert/strict";
import { InstantQueue } from "../../src/engine/instant-queue.js";

test("ids come out in the order they went in, across wrap-around and growth", () => {
  const q = new InstantQueue();
  const out: number[] = [];
  let next = 1;
  // Interleave pushes and shifts so the ring wraps before it has to grow (capacity 64, then 128, 256).
  for (let round = 0; round < 50; round++) {
    for (let i = 0; i < 7; i++) q.push(next++);
    for (let i = 0; i < 3; i++) out.push(q.shift());
  }
  assert.equal(q.size, 50 * 4);
  assert.equal(q.peek(), out.length + 1);
  while (q.size > 0) out.push(q.shift());
  assert.deepEqual(out, Array.from({ length: next - 1 }, (_, i) => i + 1));
});

test("retain keeps the passing ids in order and the queue stays usable", () => {
  const q = new InstantQueue();
  for (let i = 1; i <= 100; i++) q.push(i);
  for (let i = 0; i < 30; i++) q.shift();
  q.retain((id) => id % 3 === 0);
  const expected = Array.from({ length: 100 }, (_, i) => i + 1).filter((id) => id > 30 && id % 3 === 0);
  assert.equal(q.size, expected.length);
  q.push(1000);
  const out: number[] = [];
  while (q.size > 0) out.push(q.shift());
  assert.deepEqual(out, [...expected, 1000]);
});

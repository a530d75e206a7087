import { test } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import { forEachPortBlock, portMask } from "../../../datapath/maps/index.js";

function blocksOf(lo: number, hi: number): [number, number][] {
  const out: [number, number][] = [];
  forEachPortBlock(lo, hi, (start, len) => out.push([start, len]));
  return out;
}

test("known decompositions", () => {
  assert.deepEqual(blocksOf(80, 80), [[80, 16]]);
  assert.deepEqual(blocksOf(0, 65535), [[0, 0]]);
  assert.deepEqual(blocksOf(80, 81), [[80, 15]]);
  assert.deepEqual(blocksOf(1024, 65535), [[1024, 6], [2048, 5], [4096, 4], [8192, 3], [16384, 2], [32768, 1]]);
  assert.equal(blocksOf(1, 65534).length, 30, "the worst case");
  assert.equal(portMask(0), 0);
  assert.equal(portMask(16), 0xffff);
  assert.equal(portMask(12), 0xfff0);
});

test("blocks tile the range exactly with maximal aligned blocks", () => {
  const range = fc.tuple(fc.integer({ min: 0, max: 65535 }), fc.integer({ min: 0, max: 65535 })).map(([a, b]) => [Math.min(a, b), Math.max(a, b)] as const);
  fc.assert(
    fc.property(range, ([lo, hi]) => {
      const blocks = blocksOf(lo, hi);
      assert.ok(blocks.length <= 30);
      let next = lo;
      for (const [start, len] of blocks) {
        const size = 0x10000 >>> len;
        assert.equal(start, next, "contiguous, in order");
        assert.equal(start % size, 0, "aligned");
        if (len > 0) {
          // Maximal: the parent block does not fit inside the range.
          const parentSize = size * 2;
          const parentStart = start - (start % parentSize);
          assert.ok(parentStart < lo || parentStart + parentSize - 1 > hi);
        }
        next = start + size;
      }
      assert.equal(next, hi + 1);
    }),
    { seed: 31337, numRuns: 3000 },
  );
});

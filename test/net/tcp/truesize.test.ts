// segmentTruesize finds its power-of-two head from the highest bit: checked against doubling from
// 512 for every length up to 300,000 bytes, at each power-of-two edge, and past 2^30.

import { test } from "node:test";
import assert from "node:assert/strict";
import { receivedTruesize, segmentTruesize } from "../../../src/net/tcp/receive-queue.js";

/** The definition: kmalloc's smallest power of two from 512 up holding len + 200, plus the sk_buff. */
function byDoubling(len: number): number {
  let head = 512;
  while (head < len + 200) head *= 2;
  return head + 256;
}

test("segmentTruesize equals the doubling definition", () => {
  for (let len = 0; len <= 300_000; len++) if (segmentTruesize(len) !== byDoubling(len)) assert.fail(`len ${len}`);
  for (let k = 9; k <= 33; k++) {
    for (const len of [2 ** k - 201, 2 ** k - 200, 2 ** k - 199]) if (len >= 0) assert.equal(segmentTruesize(len), byDoubling(len), `len ${len}`);
  }
  assert.equal(receivedTruesize(8898 * 7 + 100, 8898), 7 * byDoubling(8898) + byDoubling(100));
});

// The send queue against a plain byte-array model: copied appends keep the bytes of the moment of
// the call (the caller may reuse its buffer), zero-copy appends read the caller's bytes later,
// copyOut returns any range across chunk and page boundaries, release drops from the front.

import { test } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import { SendBuffer } from "../../../src/net/tcp/send-buffer.js";

type Op =
  | { kind: "copy"; len: number; fill: number }
  | { kind: "shared"; block: number; from: number; len: number }
  | { kind: "read"; at: number; len: number }
  | { kind: "release"; len: number };

/** Immutable blocks a zero-copy sender hands over repeatedly (as iperf's one 128 KB block). */
const BLOCKS = [0, 1, 2].map((k) => Uint8Array.from({ length: 150_000 }, (_, i) => (i * (k + 3) + (i >>> 9)) & 0xff));

const op: fc.Arbitrary<Op> = fc.oneof(
  fc.record({ kind: fc.constant("copy" as const), len: fc.integer({ min: 0, max: 140_000 }), fill: fc.integer({ min: 0, max: 255 }) }),
  fc.record({ kind: fc.constant("shared" as const), block: fc.integer({ min: 0, max: 2 }), from: fc.integer({ min: 0, max: 149_000 }), len: fc.integer({ min: 0, max: 149_000 }) }),
  fc.record({ kind: fc.constant("read" as const), at: fc.nat(), len: fc.integer({ min: 1, max: 200_000 }) }),
  fc.record({ kind: fc.constant("release" as const), len: fc.integer({ min: 0, max: 200_000 }) }),
);

test("copyOut returns what was appended, across chunks and pages, after any releases", () => {
  fc.assert(
    fc.property(fc.array(op, { maxLength: 40 }), (ops) => {
      const sb = new SendBuffer();
      let model: number[] = [];
      const scratch = new Uint8Array(200_008); // room for destAt 7 + the longest read + one guard byte
      for (const o of ops) {
        if (o.kind === "copy") {
          const src = Uint8Array.from({ length: o.len }, (_, i) => (o.fill + i) & 0xff);
          sb.append(src, 0, o.len);
          model = model.concat(Array.from(src));
          src.fill(0xee); // the caller reuses its buffer: the queue kept a copy
        } else if (o.kind === "shared") {
          const block = BLOCKS[o.block]!;
          const len = Math.min(o.len, block.length - o.from);
          sb.appendShared(block, o.from, len);
          model = model.concat(Array.from(block.subarray(o.from, o.from + len)));
        } else if (o.kind === "read") {
          if (model.length === 0) continue;
          const at = o.at % model.length;
          const len = Math.min(o.len, model.length - at);
          scratch.fill(0x5a);
          sb.copyOut(at, len, scratch, 7);
          assert.deepEqual(Array.from(scratch.subarray(7, 7 + len)), model.slice(at, at + len));
          assert.equal(scratch[6], 0x5a, "nothing written before destAt");
          if (7 + len < scratch.length) assert.equal(scratch[7 + len], 0x5a, "nothing written past n bytes");
        } else {
          sb.release(o.len);
          model = model.slice(Math.min(o.len, model.length));
        }
        assert.equal(sb.length, model.length);
      }
    }),
    { numRuns: 150 },
  );
});

test("reads in sending order after partial releases (the hinted path) match a fresh walk", () => {
  const sb = new SendBuffer();
  const data = Uint8Array.from({ length: 1_000_000 }, (_, i) => (i * 31 + (i >>> 11)) & 0xff);
  for (let at = 0; at < data.length; at += 100_000) sb.appendShared(data, at, 100_000);
  const out = new Uint8Array(9000);
  let una = 0;
  // Segments go out in order while ACKs release the front in other-sized steps.
  for (let sent = 0; sent + 9000 <= data.length; sent += 9000) {
    sb.copyOut(sent - una, 9000, out, 0);
    assert.deepEqual(out, data.subarray(sent, sent + 9000), `segment at ${sent}`);
    if (sent % 27_000 === 0 && sent > una + 20_000) {
      sb.release(20_000);
      una += 20_000;
    }
  }
  // A retransmission from the front after the hint moved far ahead.
  sb.copyOut(0, 9000, out, 0);
  assert.deepEqual(out, data.subarray(una, una + 9000));
});

test("zeroRange: true only over chunks borrowed from an all-zero buffer", () => {
  const sb = new SendBuffer();
  const zeros = new Uint8Array(1000);
  const ones = new Uint8Array(1000).fill(1);
  sb.appendShared(zeros, 0, 1000);
  sb.append(zeros, 0, 500); // a copy: its page is not known to be zeros
  sb.appendShared(zeros, 100, 800);
  sb.appendShared(ones, 0, 1000);
  assert.equal(sb.zeroRange(0, 1000), true);
  assert.equal(sb.zeroRange(10, 900), true);
  assert.equal(sb.zeroRange(900, 200), false, "reaches the copied chunk");
  assert.equal(sb.zeroRange(1500, 800), true);
  assert.equal(sb.zeroRange(2200, 200), false, "reaches the non-zero buffer");
  sb.release(1500);
  assert.equal(sb.zeroRange(0, 800), true);
});

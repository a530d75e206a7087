// RtxQueue.pushRun (a run of full segments queued at once) against the same entries pushed one by
// one: the same sequence ranges, flags and send times, across ring wrap-around (slots of flagged
// entries reused), growth and the 32-bit sequence wrap.

import { test } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import { RtxQueue, Sacked } from "../../../src/net/tcp/rtx-queue.js";

function entries(q: RtxQueue): number[][] {
  const out: number[][] = [];
  for (let i = 0; i < q.count; i++) {
    const s = q.slot(i);
    out.push([q.seq[s]!, q.end[s]!, q.flags[s]!, q.sentAt[s]!]);
  }
  return out;
}

test("pushRun leaves the queue as the same pushes one by one", () => {
  const step = fc.record({
    drop: fc.nat({ max: 40 }),
    count: fc.nat({ max: 90 }),
    len: fc.integer({ min: 1, max: 65_000 }),
    /** An entry with flags pushed first (its slot, once dropped, is reused by a run: stale flags must not show). */
    flagged: fc.boolean(),
  });
  fc.assert(
    fc.property(fc.integer({ min: 0, max: 0xffffffff }), fc.array(step, { maxLength: 12 }), (start, steps) => {
      const run = new RtxQueue(4);
      const single = new RtxQueue(4);
      let seq = start;
      let now = 1e9;
      for (const st of steps) {
        const drop = Math.min(st.drop, run.count);
        run.dropFront(drop);
        single.dropFront(drop);
        now += 12_345.5;
        if (st.flagged) {
          const next = (seq + 1) >>> 0;
          run.push(seq, next, Sacked.LOST | Sacked.RETRANS | Sacked.FIN, now - 1);
          single.push(seq, next, Sacked.LOST | Sacked.RETRANS | Sacked.FIN, now - 1);
          seq = next;
        }
        const end = run.pushRun(seq, st.len, st.count, now);
        for (let k = 0; k < st.count; k++) {
          const next = (seq + st.len) >>> 0;
          single.push(seq, next, 0, now);
          seq = next;
        }
        assert.equal(end, seq, "returns the end of the last entry");
        assert.deepEqual(entries(run), entries(single));
      }
    }),
    { numRuns: 200 },
  );
});

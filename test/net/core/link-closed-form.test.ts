// The link's closed-form timing of a whole GSO super-packet (wholeSuperPacketEnd) against the
// segment-by-segment walk it replaces: the same end time whenever it answers, and no answer (-1)
// whenever the walk would tail-drop a segment or its sums might round differently.
import { test } from "node:test";
import assert from "node:assert/strict";
import { DEFAULT_LINK, ETHERNET_WIRE_OVERHEAD, wholeSuperPacketEnd, type LinkParams } from "../../../src/net/link.js";

/** The walk as LinkDirection.sendSegments does it: end time, or -1 when a segment does not fit. */
function walk(hdr: number, gsoSize: number, payload: number, segs: number, overhead: number, start: number, backlogBytes: number, p: LinkParams): number {
  let queued = backlogBytes;
  let t = start;
  for (let i = 0; i < segs; i++) {
    const frame = hdr + Math.min(gsoSize, payload - i * gsoSize);
    queued += frame + overhead;
    if (queued > p.queueBytes) return -1;
    t += Math.ceil(((frame + overhead) * 8e9) / p.bandwidthBps);
  }
  return t;
}

const BANDWIDTHS = [1e9, 10e9, 25e9, 40e9, 100e9, 3e9 + 7];

test("whenever the closed form answers, it equals the walk to the nanosecond", () => {
  let answered = 0;
  for (const bandwidthBps of BANDWIDTHS) {
    const p: LinkParams = { ...DEFAULT_LINK, bandwidthBps };
    for (const gsoSize of [1448, 8948, 1398, 536]) {
      for (const payload of [gsoSize + 1, 2 * gsoSize, 65_000, 7 * gsoSize - 3]) {
        const segs = Math.ceil(payload / gsoSize);
        for (const start of [0, 1_000_003, 4_999_999_997, 2 ** 40 + 12_345]) {
          for (const backlogBytes of [0, 123.456789, 700_000.1, p.queueBytes - 70_000]) {
            const args = [66, gsoSize, payload, segs, ETHERNET_WIRE_OVERHEAD, start, backlogBytes, p] as const;
            const closed = wholeSuperPacketEnd(...args);
            if (closed < 0) continue;
            answered++;
            assert.equal(closed, walk(...args), JSON.stringify(args));
          }
        }
      }
    }
  }
  assert.ok(answered > 1000, `the closed form answered only ${answered} times`);
});

test("it declines when the queue fills: the walk's tail drop decides", () => {
  const p: LinkParams = { ...DEFAULT_LINK, bandwidthBps: 40e9 };
  const hdr = 66;
  const gsoSize = 8948;
  const segs = 7;
  const payload = segs * gsoSize;
  const total = segs * (hdr + gsoSize + ETHERNET_WIRE_OVERHEAD);
  // Exactly full: the walk admits everything, but with no byte of headroom the closed form leaves it to the walk.
  const exact = p.queueBytes - total;
  assert.equal(wholeSuperPacketEnd(hdr, gsoSize, payload, segs, ETHERNET_WIRE_OVERHEAD, 0, exact, p), -1);
  assert.ok(walk(hdr, gsoSize, payload, segs, ETHERNET_WIRE_OVERHEAD, 0, exact, p) > 0);
  // One byte over: the walk drops the last segment; the closed form must not answer.
  assert.equal(wholeSuperPacketEnd(hdr, gsoSize, payload, segs, ETHERNET_WIRE_OVERHEAD, 0, exact + 1, p), -1);
  assert.equal(walk(hdr, gsoSize, payload, segs, ETHERNET_WIRE_OVERHEAD, 0, exact + 1, p), -1);
  // With headroom it answers, and agrees.
  const roomy = exact - 2;
  assert.equal(
    wholeSuperPacketEnd(hdr, gsoSize, payload, segs, ETHERNET_WIRE_OVERHEAD, 0, roomy, p),
    walk(hdr, gsoSize, payload, segs, ETHERNET_WIRE_OVERHEAD, 0, roomy, p),
  );
});

test("it declines a start off the integer grid, where the walk's sums may round", () => {
  const p: LinkParams = { ...DEFAULT_LINK, bandwidthBps: 40e9 };
  assert.equal(wholeSuperPacketEnd(66, 8948, 60_000, 7, ETHERNET_WIRE_OVERHEAD, 1000.5, 0, p), -1);
  assert.ok(wholeSuperPacketEnd(66, 8948, 60_000, 7, ETHERNET_WIRE_OVERHEAD, 1000, 0, p) > 1000);
});

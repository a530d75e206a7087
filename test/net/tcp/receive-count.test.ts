// onReceive (an application that only counts what arrives, so no view is made) against onData on
// the same seeded lossy transfer: the same sequence of lengths, through in-order arrivals, holes
// filled from the out-of-order queue, and data held while auto-read was off then handed over.

import { test } from "node:test";
import assert from "node:assert/strict";
import { TcpStack } from "../../../src/net/tcp/index.js";
import { unwrap } from "../../../src/util/result.js";
import { ip, linked, sendAll } from "./topology.js";

/** Runs a 600 KB transfer over a link losing 2% of frames; the receiver pauses reading for a while. */
function lengthsSeen(countOnly: boolean): { seen: number[]; heldWhilePaused: number } {
  const t = linked({ bandwidthBps: 1e9, latencyNs: 200_000, lossRate: 0.02 }, 5);
  const seen: number[] = [];
  let heldWhilePaused = 0;
  unwrap(TcpStack.of(t.b).listen(5201, (sock) => {
    sock.events = countOnly
      ? { onReceive: (_s, bytes) => seen.push(bytes), onEnd: (s) => s.close() }
      : { onData: (_s, data) => seen.push(data.length), onEnd: (s) => s.close() };
    t.world.sim.schedule(3_000_000, () => sock.setAutoRead(false));
    t.world.sim.schedule(5_000_000, () => {
      heldWhilePaused = sock.rq.unreadBytes;
      sock.setAutoRead(true);
    });
  }));
  sendAll(t.a, ip("10.9.0.2"), 5201, new Uint8Array(600_000).fill(7));
  t.world.sim.run();
  return { seen, heldWhilePaused };
}

test("onReceive hears the same lengths, in the same order, as onData", () => {
  const viaData = lengthsSeen(false);
  const viaCount = lengthsSeen(true);
  assert.ok(viaData.heldWhilePaused > 0, "data waited in the receive queue while auto-read was off");
  assert.equal(viaData.seen.reduce((a, n) => a + n, 0), 600_000);
  assert.deepEqual(viaCount, viaData);
});

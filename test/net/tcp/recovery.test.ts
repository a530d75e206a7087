// Loss recovery as Linux does it by default: fast recovery from SACK with RACK (RFC 8985) instead
// of waiting for the retransmission timeout; a lost retransmission found by RACK; a lost tail
// segment recovered by a tail loss probe two RTTs later, not by the 200 ms+ RTO.

import { test } from "node:test";
import assert from "node:assert/strict";
import { TcpStack, type TcpSocket } from "../../../src/net/tcp/index.js";
import { HttpServer, httpGet, type HttpResult } from "../../../src/cluster/workloads/index.js";
import { unwrap } from "../../../src/util/result.js";
import { assertConserved, dropSegments, ip, linked } from "./topology.js";

/** Sends n bytes from A to B over a 1 Gbit/s, 100 us link; `lose` picks segments to drop once each. */
function bulk(n: number, lose: (relSeq: number, len: number) => boolean, times: number) {
  const t = linked({ bandwidthBps: 1e9, latencyNs: 100_000 });
  let isn = -1;
  const drops = dropSegments(t.eb, (seq, len) => isn >= 0 && len > 0 && lose((seq - isn - 1) >>> 0, len), times);
  let got = 0;
  let doneAt = 0;
  unwrap(TcpStack.of(t.b).listen(5201, (s) => (s.events = { onData: (_x, d) => void (got += d.length), onEnd: (x) => ((doneAt = t.world.sim.now), x.close()) })));
  const data = new Uint8Array(n);
  let off = 0;
  const pump = (s: TcpSocket): void => {
    while (off < n) {
      const k = s.send(data, off, n - off);
      if (k === 0) return;
      off += k;
    }
    s.end();
  };
  const sock = unwrap(TcpStack.of(t.a).connect(ip("10.9.0.2"), 5201, { onConnect: pump, onWritable: pump }));
  isn = sock.iss;
  t.world.sim.run();
  assert.equal(got, n);
  assertConserved(t.world);
  return { sock, drops, doneAt, counters: TcpStack.of(t.a).counters };
}

test("one segment lost mid-stream: one fast retransmission, no timeout", () => {
  const r = bulk(1_000_000, (rel) => rel === 100 * 1448, 1);
  assert.equal(r.drops.dropped, 1);
  assert.equal(r.sock.stats.retransmits, 1);
  assert.equal(r.sock.stats.recoveries, 1);
  assert.equal(r.counters.rtoTimeouts, 0);
});

test("the retransmission is lost too: RACK notices and resends it without a timeout", () => {
  const r = bulk(1_000_000, (rel) => rel === 100 * 1448, 2);
  assert.equal(r.drops.dropped, 2);
  assert.equal(r.sock.stats.retransmits, 2);
  assert.equal(r.counters.rtoTimeouts, 0);
});

test("the last two segments of a response are lost: a tail loss probe recovers them in milliseconds", () => {
  const t = linked({ bandwidthBps: 1e9, latencyNs: 100_000 });
  const body = "x".repeat(10 * 1448);
  unwrap(new HttpServer(t.b, { body }).start());
  // The response takes 11 segments; lose the 10th and 11th. (A lone lost tail segment waits
  // 2 RTT + TCP_RTO_MIN for its probe in Linux, about as long as the RTO.)
  let n = 0;
  const drops = dropSegments(t.ea, (_seq, len) => len > 0 && (++n === 10 || n === 11), 2);
  let result: HttpResult | null = null;
  httpGet(t.a, { host: "10.9.0.2" }, (r) => (result = r));
  t.world.sim.run();
  const r = result as HttpResult | null;
  assert.equal(drops.dropped, 2);
  assert.equal(r?.kind, "response");
  if (r?.kind !== "response") return;
  assert.equal(r.body.length, body.length);
  const server = TcpStack.of(t.b).counters;
  assert.equal(server.lossProbes, 1);
  assert.equal(server.rtoTimeouts, 0);
  assert.ok(r.timings.doneNs < 10e6, `done after ${r.timings.doneNs / 1e6} ms (an RTO would take more than 200 ms)`);
});

// Segmentation offload: with TSO/GSO the sender hands over super-packets of up to 64 KB (45
// segments of 1448 bytes, tcp_tso_autosize on a sub-512-us path) that the receiving NIC hands up
// GRO-merged; with it off every segment is its own batch, and the socket's GRO window can still
// merge in-order segments arriving within it. The cost observer sees exactly what the counters
// count, so the metrics layer can charge per packet or per batch.

import { test } from "node:test";
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { GRO_TYPICAL_FLUSH_NS, TcpStack, type TcpCostObserver, type TcpSocket } from "../../../src/net/tcp/index.js";
import { unwrap } from "../../../src/util/result.js";
import { assertConserved, ip, linked } from "./topology.js";

class Recorder implements TcpCostObserver {
  readonly tx: number[] = [];
  readonly rx: number[] = [];
  txBytes = 0;
  txBatch(segments: number, bytes: number): void {
    this.tx.push(segments);
    this.txBytes += bytes;
  }
  rxBatch(segments: number): void {
    this.rx.push(segments);
  }
}

function bulk(opts: { tso: boolean; groNs: number }) {
  const t = linked({ bandwidthBps: 10e9, latencyNs: 20_000 });
  const client = TcpStack.of(t.a);
  const server = TcpStack.of(t.b);
  client.sysctl.segmentationOffload = opts.tso;
  server.sysctl.groFlushNs = opts.groNs;
  const sent = new Recorder();
  const received = new Recorder();
  client.costObserver = sent;
  server.costObserver = received;
  const data = new Uint8Array(2_000_000).map((_, i) => (i * 13) & 0xff);
  const h = createHash("sha256");
  let got = 0;
  unwrap(server.listen(5201, (s) => (s.events = { onData: (_x, d) => void (h.update(d), (got += d.length)), onEnd: (x) => x.close() })));
  let off = 0;
  const pump = (s: TcpSocket): void => {
    while (off < data.length) {
      const n = s.send(data, off, data.length - off);
      if (n === 0) return;
      off += n;
    }
    s.end();
  };
  unwrap(client.connect(ip("10.9.0.2"), 5201, { onConnect: pump, onWritable: pump }));
  t.world.sim.run();
  assert.equal(got, data.length);
  assert.equal(h.digest("hex"), createHash("sha256").update(data).digest("hex"));
  assertConserved(t.world);
  return { client, server, sent, received, nic: t.eb.stats };
}

test("TSO/GSO: data leaves in batches of up to 45 segments; the observer sees what the counters count", () => {
  const { client, sent } = bulk({ tso: true, groNs: 0 });
  const c = client.counters;
  assert.equal(sent.tx.length, c.txBatches);
  assert.equal(sent.tx.reduce((a, b) => a + b, 0), c.txSegments);
  assert.equal(sent.txBytes, c.txBytes);
  assert.ok(Math.max(...sent.tx) <= 45, `largest batch ${Math.max(...sent.tx)}`);
  assert.ok(sent.tx.filter((n) => n === 45).length > 10, "full 64 KB batches were sent");
  assert.ok(c.txBatches < c.txSegments / 4, `${c.txBatches} batches for ${c.txSegments} segments`);
});

test("without offload every segment is its own batch", () => {
  const { client, sent } = bulk({ tso: false, groNs: 0 });
  assert.ok(sent.tx.every((n) => n === 1));
  assert.equal(client.counters.txBatches, client.counters.txSegments);
});

test("NIC GRO: each super-packet reaches the receiver as one merged skb, counted and acknowledged as one batch", () => {
  const { client, server, received, nic } = bulk({ tso: true, groNs: 0 });
  const s = server.counters;
  assert.equal(received.rx.reduce((a, b) => a + b, 0), s.rxSegments);
  assert.equal(s.rxSegments, client.counters.txSegments);
  assert.ok(s.rxBatches < s.rxSegments / 4, `${s.rxBatches} batches for ${s.rxSegments} segments`);
  assert.ok(nic.rxGroPackets > 10 && nic.rxGroSegments > 10 * 2, `${nic.rxGroPackets} GRO packets`);
  assert.ok(s.acksSent < s.rxSegments / 4, `${s.acksSent} ACKs for ${s.rxSegments} segments`);
});

test("GRO window: without TSO, in-order segments merge per flush window and are acknowledged once per batch", () => {
  const off = bulk({ tso: false, groNs: 0 });
  const on = bulk({ tso: false, groNs: GRO_TYPICAL_FLUSH_NS });
  assert.equal(off.server.counters.rxBatches, off.server.counters.rxSegments);
  assert.equal(off.nic.rxGroPackets, 0);
  const s = on.server.counters;
  assert.equal(on.received.rx.reduce((a, b) => a + b, 0), s.rxSegments);
  assert.ok(s.rxBatches < s.rxSegments / 3, `${s.rxBatches} batches for ${s.rxSegments} segments`);
  assert.ok(Math.max(...on.received.rx) <= 45);
  assert.ok(s.acksSent < off.server.counters.acksSent / 2, `ACKs with GRO ${s.acksSent}, without ${off.server.counters.acksSent}`);
});

// TCP work from the TCP layer's own counters: a bulk transfer between two pods charges each pod per
// segment, per GSO/GRO batch and per payload byte copied (checksummed only without offload), exactly as counted.
import { test } from "node:test";
import assert from "node:assert/strict";
import { BulkSink, runBulk } from "../../src/cluster/workloads/tcp-bulk.js";
import { accountCluster, collectTcp, DEFAULT_COST_MODEL, Work, type MeteredCluster } from "../../src/metrics/index.js";
import { TcpStack } from "../../src/net/tcp/index.js";
import { makeWorld } from "../net/l2/helpers.js";
import { PathMode, twoNodes } from "./two-nodes.js";

test("a 2 MB transfer: segments, batches and bytes charged from TcpCounters", () => {
  const { sim, world } = makeWorld();
  const { nodes, cluster } = twoNodes(world, PathMode.HOST_GW);
  const [a, b] = nodes as [(typeof nodes)[0], (typeof nodes)[0]];
  const sink = new BulkSink(b.pod, 5201);
  assert.ok(sink.start().ok);
  let sent = 0;
  runBulk(a.pod, b.podAddr, { port: 5201, bytes: 2 * 1024 * 1024 }, (r) => (sent = r.bytes));
  sim.runUntil(10e9);
  assert.equal(sent, 2 * 1024 * 1024);
  assert.equal(sink.bytes, sent);
  const tcp = [TcpStack.of(a.pod).counters, TcpStack.of(b.pod).counters];
  const pods = cluster.pods().map((p, i) => ({ ...p, tcp: tcp[i]! }));
  const metered: MeteredCluster = { nodes: () => cluster.nodes(), pods: () => pods };
  const acc = accountCluster(metered, DEFAULT_COST_MODEL, sim.now);
  for (const [i, c] of tcp.entries()) {
    const w = acc.pods[i]!.work;
    assert.equal(w.packets("tcpSegment"), c.txSegments + c.rxSegments);
    assert.equal(w.batches("tcpSegment"), c.txBatches + c.rxBatches);
    assert.equal(w.bytes("copy"), c.txBytes + c.rxBytes);
  }
  assert.ok(tcp[0]!.txBytes >= sent, "the sender copied every byte it sent (retransmissions included)");
  assert.ok(tcp[1]!.rxBytes >= sent);
  // Copy (0.1 ns/B) is charged on every payload byte sent and received; the checksum is the NIC's
  // (offloaded by default), and in software only without offload (0.06 ns/B more).
  assert.ok(Math.abs(acc.pods[0]!.work.stepCpuNs("copy", DEFAULT_COST_MODEL) - tcp[0]!.txBytes * 0.1 - tcp[0]!.rxBytes * 0.1) < 1);
  assert.equal(acc.pods[0]!.work.bytes("checksum"), 0);
  const software = new Work();
  collectTcp(tcp[0]!, software, { checksumOffload: false });
  assert.equal(software.bytes("checksum"), tcp[0]!.txBytes + tcp[0]!.rxBytes);
});

// The iperf3-like and netperf-like workloads on an emulated cluster (10 Gbit/s, MTU 1500, no CPU
// limits): what the wire allows is the oracle. A TCP stream's goodput cannot exceed the line rate
// times MSS / (MTU + Ethernet's 38 bytes of header, FCS, preamble and gap); an unlimited UDP sender
// is held to the line rate of its NIC; a rate-limited one loses nothing on an idle path.
import { test } from "node:test";
import assert from "node:assert/strict";
import { buildCluster } from "../../src/cluster/build.js";
import type { ClusterRuntime } from "../../src/cluster/runtime.js";
import { IperfTcpTest, IperfUdpTest } from "../../src/cluster/workloads/iperf/index.js";
import { TcpRrTest } from "../../src/cluster/workloads/rr/index.js";
import { loadText } from "../../src/k8s/load.js";
import { clusterYaml, CLIENT_POD, SERVER_POD } from "../../src/perf/cluster-yaml.js";
import { FLAVOURS } from "../../src/perf/flavours.js";

const LINE = 10e9;
const MTU = 1500;

function cluster(): ClusterRuntime {
  const r = buildCluster(loadText(clusterYaml({ flavour: FLAVOURS["calico-bgp"], linkGbps: 10, hostMtu: MTU, podMtu: MTU, seed: 3 }), "bench.yaml"));
  if (!r.ok) assert.fail(r.error.reason);
  return r.value;
}

function runUntil(rt: ClusterRuntime, done: () => boolean): void {
  for (let i = 0; i < 200 && !done(); i++) rt.runFor(5_000_000);
  assert.ok(done(), "the test finished");
}

test("iperf TCP between pods on two nodes fills the link up to the TCP/IP and Ethernet overhead", () => {
  const rt = cluster();
  const c = rt.pod(CLIENT_POD)!;
  const s = rt.pod(SERVER_POD)!;
  const t = new IperfTcpTest(c.ns, s.ns, s.ip, { durationNs: 40_000_000, streams: 2 });
  assert.ok(t.start().ok);
  runUntil(rt, () => t.result !== null);
  const r = t.result!;
  assert.ok(r.ok, r.ok ? "" : r.error);
  const mss = MTU - 52;
  const ceiling = (LINE * mss) / (MTU + 38);
  assert.equal(r.value.mss, mss);
  assert.equal(r.value.streams.length, 2);
  assert.ok(r.value.bitsPerSecond <= ceiling * 1.001, `${r.value.bitsPerSecond} <= ${ceiling}`);
  assert.ok(r.value.bitsPerSecond > ceiling * 0.9, `${r.value.bitsPerSecond} close to ${ceiling}`);
  assert.equal(r.value.window.endNs - r.value.window.startNs, 40_000_000);
});

test("iperf UDP: -b 0 is held to the NIC's line rate; -b 1G arrives whole, with datagrams counted", () => {
  const rt = cluster();
  const c = rt.pod(CLIENT_POD)!;
  const s = rt.pod(SERVER_POD)!;
  const size = MTU - 52;
  const unlimited = new IperfUdpTest(c.ns, s.ns, s.ip, { durationNs: 10_000_000, datagramBytes: size, rateBps: 0, nicBps: LINE });
  assert.ok(unlimited.start().ok);
  runUntil(rt, () => unlimited.result !== null);
  const u = unlimited.result!;
  assert.ok(u.ok);
  const linePayload = (LINE * size) / (size + 66);
  assert.ok(u.value.sentBitsPerSecond <= linePayload * 1.01 && u.value.sentBitsPerSecond > linePayload * 0.95, `${u.value.sentBitsPerSecond} ~ ${linePayload}`);

  const rt2 = cluster();
  const c2 = rt2.pod(CLIENT_POD)!;
  const s2 = rt2.pod(SERVER_POD)!;
  const limited = new IperfUdpTest(c2.ns, s2.ns, s2.ip, { durationNs: 10_000_000, datagramBytes: size, rateBps: 1e9, nicBps: LINE, port: 5202 });
  assert.ok(limited.start().ok);
  runUntil(rt2, () => limited.result !== null);
  const l = limited.result!;
  assert.ok(l.ok);
  // 1 Gbit/s of 1448-byte payloads for 10 ms: one datagram per 11.584 us.
  assert.ok(Math.abs(l.value.sent - 10_000_000 / Math.ceil((size * 8e9) / 1e9)) <= 1, `sent ${l.value.sent}`);
  assert.equal(l.value.received, l.value.sent);
  assert.equal(l.value.lostPercent, 0);
  assert.ok(Math.abs(l.value.receivedBitsPerSecond - 1e9) / 1e9 < 0.01);
});

test("TCP_RR: one transaction per round trip over two links each way", () => {
  const rt = cluster();
  const c = rt.pod(CLIENT_POD)!;
  const s = rt.pod(SERVER_POD)!;
  const t = new TcpRrTest(c.ns, s.ns, s.ip, { durationNs: 10_000_000 });
  assert.ok(t.start().ok);
  runUntil(rt, () => t.result !== null);
  const r = t.result!;
  assert.ok(r.ok);
  // Four link traversals of 5 us each at least; nothing else queues on an idle path.
  assert.ok(r.value.p50Ns >= 20_000, `p50 ${r.value.p50Ns}`);
  assert.ok(r.value.p99Ns >= r.value.p50Ns);
  assert.ok(Math.abs(r.value.transactionsPerSecond - 1e9 / r.value.meanNs) / r.value.transactionsPerSecond < 0.01, "transactions/s = 1 / mean latency for one outstanding request");
});

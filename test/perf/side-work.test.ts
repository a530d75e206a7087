// Where a throughput run's work is charged (src/perf/side-work.ts), checked against what Linux does:
// sendto() counts SNMP Udp OutDatagrams once per datagram (udp_send_skb) and copies its payload; with
// NIC offloads the driver handles every wire frame before GRO merges them and no checksum is computed
// in software; without offloads TCP checksums every payload byte.
import { test } from "node:test";
import assert from "node:assert/strict";
import { buildCluster } from "../../src/cluster/build.js";
import type { ClusterRuntime } from "../../src/cluster/runtime.js";
import { IperfTcpTest } from "../../src/cluster/workloads/iperf/index.js";
import { loadText } from "../../src/k8s/load.js";
import { Work } from "../../src/metrics/index.js";
import { UdpSocket } from "../../src/net/udp-socket.js";
import { GRO_TYPICAL_FLUSH_NS, TcpStack } from "../../src/net/tcp/index.js";
import { clusterYaml, CLIENT_POD, SERVER_POD } from "../../src/perf/cluster-yaml.js";
import { FLAVOURS } from "../../src/perf/flavours.js";
import { collectSide, collectSideSources, sideSources } from "../../src/perf/side-work.js";

function cluster(mtu: number): ClusterRuntime {
  const r = buildCluster(loadText(clusterYaml({ flavour: FLAVOURS["flannel-vxlan"], linkGbps: 10, hostMtu: mtu, podMtu: mtu - 50, seed: 5 }), "bench.yaml"));
  if (!r.ok) assert.fail(r.error.reason);
  return r.value;
}

test("UDP sendto counts Udp OutDatagrams and the payload copied; the sender is charged a socket pass per datagram", () => {
  const rt = cluster(1500);
  const c = rt.pod(CLIENT_POD)!;
  const s = rt.pod(SERVER_POD)!;
  let received = 0;
  const server = UdpSocket.bind(s.ns, 5201, { onMessage: () => received++ });
  assert.ok(server.ok);
  const client = UdpSocket.bind(c.ns, 0);
  assert.ok(client.ok);
  const before = c.ns.counters.udp.OutDatagrams;
  const payload = new Uint8Array(1000);
  for (let i = 0; i < 7; i++) assert.ok(client.value.send(s.ip, 5201, payload).ok);
  rt.runFor(5_000_000);
  assert.equal(c.ns.counters.udp.OutDatagrams - before, 7);
  assert.equal(received, 7);
  const w = new Work();
  collectSide([c.ns], w, true);
  assert.equal(w.packets("socketDelivery"), 7);
  assert.equal(w.bytes("copy"), 7000);
  const r = new Work();
  collectSide([s.ns], r, true);
  assert.equal(r.bytes("copy"), 7000);
});

function tcpRun(offload: boolean): { server: Work; segments: number; rxBytes: number } {
  const rt = cluster(9000);
  const c = rt.pod(CLIENT_POD)!;
  const s = rt.pod(SERVER_POD)!;
  const sides = [c.ns, s.ns, rt.node("a2")!.ns, rt.node("a3")!.ns];
  for (const ns of sides) {
    TcpStack.of(ns).sysctl.segmentationOffload = offload;
    TcpStack.of(ns).sysctl.groFlushNs = offload ? GRO_TYPICAL_FLUSH_NS : 0;
  }
  const t = new IperfTcpTest(c.ns, s.ns, s.ip, { durationNs: 10_000_000, streams: 1 });
  assert.ok(t.start().ok);
  for (let i = 0; i < 100 && t.result === null; i++) rt.runFor(5_000_000);
  assert.ok(t.result?.ok);
  const server = new Work();
  collectSide([s.ns, rt.node("a2")!.ns], server, offload);
  const counters = TcpStack.of(s.ns).counters;
  return { server, segments: counters.rxSegments, rxBytes: counters.rxBytes };
}

test("with offloads the receiving NIC is charged per wire frame and nothing is checksummed in software", () => {
  const { server, segments } = tcpRun(true);
  assert.ok(segments > 100);
  // Every data segment crossed the server's NIC as its own frame (plus the handshake and FIN).
  assert.ok(server.packets("nicRx") >= segments, `${server.packets("nicRx")} NIC frames for ${segments} segments`);
  assert.equal(server.bytes("checksum"), 0);
});

test("without offloads TCP checksums every payload byte it receives", () => {
  const { server, rxBytes } = tcpRun(false);
  assert.ok(rxBytes > 0);
  assert.ok(server.bytes("checksum") >= rxBytes);
});

test("a side's counter holders resolved once (as a CPU budget holds them) read the same work as a fresh lookup, after rule edits and traffic", () => {
  const rt = cluster(9000);
  const c = rt.pod(CLIENT_POD)!;
  const s = rt.pod(SERVER_POD)!;
  const sides = [c.ns, rt.node("a2")!.ns, s.ns, rt.node("a3")!.ns];
  const resolved = sideSources(sides);
  // Rules edited after the holders were resolved: the tables change in place.
  for (const ns of sides) assert.ok(ns.netfilter.table("filter").append("FORWARD", { target: { kind: "ACCEPT" } }).ok);
  const t = new IperfTcpTest(c.ns, s.ns, s.ip, { durationNs: 5_000_000, streams: 1 });
  assert.ok(t.start().ok);
  for (let i = 0; i < 100 && t.result === null; i++) rt.runFor(5_000_000);
  assert.ok(t.result?.ok);
  const fresh = new Work();
  collectSide(sides, fresh, true);
  const cached = new Work();
  collectSideSources(resolved, cached, true);
  assert.ok(fresh.packets("netfilterRule") > 0 && fresh.packets("tcpSegment") > 0, "the run did rule and TCP work");
  assert.deepEqual([...cached.counts], [...fresh.counts]);
});

// TCP emulation speed. (1) A bulk transfer client -veth- host -10 Gbit/s link- server, measured as
// simulated segments per wall-clock second and simulated seconds per wall second, against a
// baseline in the same run: the same number of frames (full-size forward, ACK-size backward)
// pushed through the same path as UDP datagrams at the same pace, without any TCP.
// (2) GSO: iperf-like streams pod to pod across two nodes of a flannel-vxlan and a calico-bgp
// cluster, with TSO/GSO super-packets (the default) against one skb per segment, in steady state:
// simulated payload bytes per wall second, simulated seconds per wall second, events per simulated
// second, and the ratio on/off; plus what a 6-CNI, 5 s, 40 Gbit/s 8-stream comparison would take,
// with the writers' send() (copied into the send queue) and sendZeroCopy() (the block by reference).

import { Bench } from "tinybench";
import { buildCluster } from "../src/cluster/build.js";
import type { ClusterRuntime } from "../src/cluster/runtime.js";
import { loadText } from "../src/k8s/load.js";
import { conformanceYaml } from "../test/cluster/support/clusters.js";
import { Simulator } from "../src/engine/simulator.js";
import { EthernetDevice } from "../src/net/ethernet.js";
import { DEFAULT_LINK, Link } from "../src/net/link.js";
import { NetNamespace } from "../src/net/stack/index.js";
import { GRO_TYPICAL_FLUSH_NS, TcpStack, type TcpSocket } from "../src/net/tcp/index.js";
import { UdpSocket } from "../src/net/udp-socket.js";
import { VethDevice } from "../src/net/veth.js";
import { NetWorld } from "../src/net/world.js";
import { unwrap } from "../src/util/result.js";

const BYTES = 4_000_000;
const CLIENT = 0x0a000102;
const SERVER = 0x0a000202;

/** client (10.0.1.2) -veth- host -10G link- server (10.0.2.2). */
function path() {
  const world = new NetWorld(new Simulator({ seed: 7 }));
  const client = new NetNamespace(world, "pod", "node-a");
  const host = new NetNamespace(world, "host", "node-a");
  const server = new NetNamespace(world, "server", "node-b");
  const [vp, vh] = VethDevice.pair(world, "eth0", 0x020000000102, "veth0", 0x020000000101);
  unwrap(client.addDevice(vp));
  unwrap(host.addDevice(vh));
  const eh = new EthernetDevice(world, "eth1", 0x020000000201, 1500);
  const es = new EthernetDevice(world, "eth0", 0x020000000202, 1500);
  unwrap(host.addDevice(eh));
  unwrap(server.addDevice(es));
  const link = new Link(world, eh, es, { ...DEFAULT_LINK, bandwidthBps: 10e9, latencyNs: 20_000 });
  eh.link = link;
  es.link = link;
  unwrap(client.addAddress(vp, CLIENT, 24));
  unwrap(host.addAddress(vh, 0x0a000101, 24));
  unwrap(host.addAddress(eh, 0x0a000201, 24));
  unwrap(server.addAddress(es, SERVER, 24));
  unwrap(client.routes.add({ dst: 0, prefixLen: 0, via: 0x0a000101 }));
  unwrap(server.routes.add({ dst: 0, prefixLen: 0, via: 0x0a000201 }));
  host.sysctl.ipForward = true;
  return { world, client, server };
}

interface Run {
  segments: number;
  dataSegments: number;
  ackSegments: number;
  simNs: number;
}

function tcpRun(gro: boolean): Run {
  const p = path();
  const c = TcpStack.of(p.client);
  const s = TcpStack.of(p.server);
  if (gro) s.sysctl.groFlushNs = GRO_TYPICAL_FLUSH_NS;
  let doneAt = 0;
  unwrap(s.listen(5201, (sock) => (sock.events = { onEnd: (x) => ((doneAt = p.world.sim.now), x.close()) })));
  const block = new Uint8Array(131072);
  let sent = 0;
  const pump = (sock: TcpSocket): void => {
    while (sent < BYTES) {
      const n = sock.send(block, 0, Math.min(block.length, BYTES - sent));
      if (n === 0) return;
      sent += n;
    }
    sock.end();
  };
  unwrap(c.connect(SERVER, 5201, { onConnect: pump, onWritable: pump }));
  p.world.sim.run();
  return { segments: c.counters.txSegments + s.counters.txSegments, dataSegments: c.counters.txSegments, ackSegments: s.counters.txSegments, simNs: doneAt };
}

/** The same frames as UDP at the 10G serialization pace, forward full-size and backward small. */
function rawRun(forward: number, backward: number): number {
  const p = path();
  unwrap(UdpSocket.bind(p.server, 9000, {}));
  unwrap(UdpSocket.bind(p.client, 9001, {}));
  const out = unwrap(UdpSocket.bind(p.client, 0, {}));
  const back = unwrap(UdpSocket.bind(p.server, 0, {}));
  const big = new Uint8Array(1472);
  const small = new Uint8Array(24);
  const sim = p.world.sim;
  const gapNs = Math.ceil((1538 * 8) / 10);
  const ratio = backward / forward;
  let acks = 0;
  for (let i = 0; i < forward; i++) {
    sim.scheduleAt(i * gapNs, () => {
      out.send(SERVER, 9000, big);
      while (acks < (i + 1) * ratio) {
        acks++;
        back.send(CLIENT, 9001, small);
      }
    });
  }
  sim.run();
  return forward + acks;
}

const calibration = tcpRun(false);
const calibrationGro = tcpRun(true);
const bench = new Bench({ time: 500, warmupTime: 100 });
bench.add("tcp", () => void tcpRun(false));
bench.add("tcp+gro", () => void tcpRun(true));
bench.add("raw frames", () => void rawRun(calibration.dataSegments, calibration.ackSegments));
await bench.run();

const periodMs = (name: string): number => {
  const r = bench.tasks.find((t) => t.name === name)?.result;
  if (r === undefined || !("period" in r)) throw new Error(`bench task ${name} has no result`);
  return r.period;
};
const rate = (segments: number, name: string): number => (segments * 1000) / periodMs(name);
const raw = rate(calibration.segments, "raw frames");
const row = (name: string, run: Run | null) => {
  const segments = run?.segments ?? calibration.segments;
  const perSecond = rate(segments, name);
  return {
    run: name,
    segments,
    "segments/s": `${(perSecond / 1e3).toFixed(0)} k`,
    "sim s / wall s": run === null ? "-" : (run.simNs / 1e6 / periodMs(name)).toFixed(4),
    "vs raw": `${(perSecond / raw).toFixed(2)}x`,
  };
};
console.log(`tcp bulk ${BYTES / 1e6} MB over veth + 10 Gbit/s link (simulated ${(calibration.simNs / 1e6).toFixed(2)} ms); vs raw = segments per wall second / raw frames per wall second`);
console.table([row("tcp", calibration), row("tcp+gro", calibrationGro), row("raw frames", null)]);

// ---- (2) GSO on vs off, pod to pod --------------------------------------------------------------

/** Simulated time one benchmark iteration advances a running cluster. */
const SLICE_NS = 1_000_000;
const WARMUP_NS = 5_000_000;

interface StreamRun {
  readonly name: string;
  readonly rt: ClusterRuntime;
  got: number;
  bytes: number;
  simNs: number;
  events: number;
}

/** A cluster of the flavour with `streams` bulk streams from pod a (n1) to pod c (n2), past slow start. */
function streamRun(flavour: { plugin: string; mode: string }, gbps: number, streams: number, gso: boolean, zeroCopy = false): StreamRun {
  const yaml = conformanceYaml(flavour).replace("bandwidth: 10Gbps", `bandwidth: ${gbps}Gbps`);
  const built = buildCluster(loadText(yaml, "bench.yaml"));
  if (!built.ok) throw new Error(`bench cluster ${flavour.plugin}-${flavour.mode}: ${JSON.stringify(built.error)}`);
  const rt = built.value;
  const a = rt.pod("default/a");
  const c = rt.pod("default/c");
  if (a === undefined || c === undefined) throw new Error("bench cluster lacks pods default/a and default/c");
  const client = TcpStack.of(a.ns);
  client.sysctl.segmentationOffload = gso;
  const name = `${flavour.plugin}-${flavour.mode} P${streams} ${gbps}G gso ${gso ? "on" : "off"}${zeroCopy ? " zero-copy" : ""}`;
  const run: StreamRun = { name, rt, got: 0, bytes: 0, simNs: 0, events: 0 };
  unwrap(TcpStack.of(c.ns).listen(5201, (sock) => (sock.events = { onData: (_s, d) => void (run.got += d.length) })));
  const block = new Uint8Array(1 << 20);
  const pump = (sock: TcpSocket): void => {
    while ((zeroCopy ? sock.sendZeroCopy(block, 0, block.length) : sock.send(block, 0, block.length)) > 0);
  };
  for (let i = 0; i < streams; i++) unwrap(client.connect(c.ip, 5201, { onConnect: pump, onWritable: pump }));
  rt.sim.runUntil(rt.sim.now + WARMUP_NS);
  return run;
}

/** One iteration: SLICE_NS more of simulated time, counting what it delivered and how many events it took. */
function advance(run: StreamRun): void {
  const sim = run.rt.sim;
  const got = run.got;
  const events = sim.executed;
  sim.runUntil(sim.now + SLICE_NS);
  run.bytes += run.got - got;
  run.events += sim.executed - events;
  run.simNs += SLICE_NS;
}

const FLAVOURS = [{ plugin: "flannel", mode: "vxlan" }, { plugin: "calico", mode: "none" }];
const pairs: { on: StreamRun; off: StreamRun }[] = [];
for (const f of FLAVOURS) {
  for (const streams of [1, 8]) pairs.push({ on: streamRun(f, 10, streams, true), off: streamRun(f, 10, streams, false) });
}
const target = FLAVOURS.flatMap((f) => [streamRun(f, 40, 8, true), streamRun(f, 40, 8, true, true)]);
const gsoBench = new Bench({ time: 500, warmupTime: 50 });
for (const p of pairs) {
  gsoBench.add(p.on.name, () => advance(p.on));
  gsoBench.add(p.off.name, () => advance(p.off));
}
for (const t of target) gsoBench.add(t.name, () => advance(t));
const cpuBefore = process.cpuUsage();
const wallBefore = performance.now();
await gsoBench.run();
const cpu = process.cpuUsage(cpuBefore);
/** Share of a core this process got while benchmarking (other processes compete on a shared machine). */
const cpuShare = Math.min(1, (cpu.user + cpu.system) / 1e3 / (performance.now() - wallBefore));

const wallMs = (run: StreamRun): number => {
  const r = gsoBench.tasks.find((t) => t.name === run.name)?.result;
  if (r === undefined || !("period" in r)) throw new Error(`bench task ${run.name} has no result`);
  return r.period;
};
/** Simulated seconds per wall second. */
const speed = (run: StreamRun): number => SLICE_NS / 1e6 / wallMs(run);
const describe = (run: StreamRun) => ({
  "Gbit/s": ((run.bytes * 8) / run.simNs).toFixed(1),
  "sim MB / wall s": ((run.bytes / run.simNs) * speed(run) * 1e3).toFixed(0),
  "sim s / wall s": speed(run).toFixed(4),
  "events / sim s": `${((run.events / run.simNs) * 1e6).toFixed(0)} k`,
});
console.log(`\nGSO on vs off, pod a (n1) -> pod c (n2), steady state after ${WARMUP_NS / 1e6} ms; on/off = sim seconds per wall second ratio`);
console.table(pairs.flatMap((p) => [
  { run: p.on.name, ...describe(p.on), "on/off": `${(speed(p.on) / speed(p.off)).toFixed(1)}x` },
  { run: p.off.name, ...describe(p.off), "on/off": "" },
]));
const perCni = target.map((t) => 5 / speed(t));
console.table(target.map((t, i) => ({
  run: t.name,
  ...describe(t),
  "5 s sim takes (wall s)": perCni[i]!.toFixed(0),
  "vs send()": i % 2 === 1 ? `${(speed(t) / speed(target[i - 1]!)).toFixed(2)}x` : "",
})));
for (const zeroCopy of [false, true]) {
  const picked = perCni.filter((_, i) => i % 2 === (zeroCopy ? 1 : 0));
  const mean = picked.reduce((a, b) => a + b, 0) / picked.length;
  console.log(
    `6 CNIs x 5 s at 40 Gbit/s, 8 streams, writers using ${zeroCopy ? "sendZeroCopy()" : "send()"}: ~${(6 * mean).toFixed(0)} s wall here,` +
      ` this process got ${(cpuShare * 100).toFixed(0)}% of a core -> ~${(6 * mean * cpuShare).toFixed(0)} s on one idle core (target 60 s)`,
  );
}

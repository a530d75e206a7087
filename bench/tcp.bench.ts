// TCP emulation speed: a bulk transfer client -veth- host -10 Gbit/s link- server, measured as
// simulated segments per wall-clock second and simulated seconds per wall second, against a
// baseline in the same run: the same number of frames (full-size forward, ACK-size backward)
// pushed through the same path as UDP datagrams at the same pace, without any TCP.

import { Bench } from "tinybench";
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

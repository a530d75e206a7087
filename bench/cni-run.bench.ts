// Emulator speed of `cnisim bench cni` cells: simulated packets (ledger entries, i.e. skbs: one per GSO
// super-packet) per wall-clock second and simulated seconds per wall second, for a 10 Gbit/s single
// stream and an 8-stream run, as ratios against the bare-metal single stream measured in the same run.
// The cluster build of each flavour is timed on its own and taken out ("net"); the last line projects
// issue 8's target run (six CNIs, 40 Gbit/s, 8 streams, 5 s + 1 s warm-up) from the measured rates.
import { Bench } from "tinybench";
import { buildCluster } from "../src/cluster/build.js";
import { loadText } from "../src/k8s/load.js";
import { clusterYaml } from "../src/perf/cluster-yaml.js";
import { costModelFor, DEFAULT_BENCH_OPTIONS, FLAVOURS, runCell, type CellResult, type CellSpec, type FlavourName } from "../src/perf/index.js";

const DURATION_NS = 50_000_000;

function spec(flavour: FlavourName, streams: number, linkGbps: number, mtu: number): CellSpec {
  const f = FLAVOURS[flavour];
  return {
    flavour: f,
    path: "pod-to-pod",
    protocol: "TCP",
    streams,
    linkGbps,
    hostMtu: mtu,
    podMtu: f.bareMetal ? mtu : mtu - f.mtuOverhead,
    durationNs: DURATION_NS,
    cpus: 32,
    model: costModelFor(DEFAULT_BENCH_OPTIONS),
    seed: 1,
    offload: true,
  };
}

const cases: [string, CellSpec][] = [
  ["bare-metal 10G MTU 1500, 1 stream (baseline)", spec("bare-metal", 1, 10, 1500)],
  ["calico-vxlan 10G MTU 1500, 1 stream", spec("calico-vxlan", 1, 10, 1500)],
  ["calico-vxlan 10G MTU 1500, 8 streams", spec("calico-vxlan", 8, 10, 1500)],
  ["calico-vxlan 40G MTU 9000, 8 streams", spec("calico-vxlan", 8, 40, 9000)],
];

const last = new Map<string, CellResult>();
const bench = new Bench({ time: 500, warmupTime: 0, warmupIterations: 0, iterations: 2 });
for (const [name, s] of cases) {
  bench.add(name, () => {
    const r = runCell(s);
    if (!r.ok) throw new Error(`${name}: ${r.error}`);
    last.set(name, r.value);
  });
}
for (const [name, s] of cases) {
  bench.add(`build: ${name}`, () => {
    const r = buildCluster(loadText(clusterYaml({ flavour: s.flavour, linkGbps: s.linkGbps, hostMtu: s.hostMtu, podMtu: s.podMtu, seed: s.seed }), "bench.yaml"));
    if (!r.ok) throw new Error(r.error.reason);
  });
}
await bench.run();
const meanMs = (name: string): number => {
  const r = bench.tasks.find((t) => t.name === name)?.result;
  return r !== undefined && "latency" in r ? r.latency.mean : Number.NaN;
};

const rows = cases.map(([name]) => {
  const buildMs = meanMs(`build: ${name}`);
  const wallMs = meanMs(name) - buildMs;
  const cell = last.get(name)!;
  return { name, buildMs, wallMs, packetsPerWallS: (cell.simPackets * 1000) / wallMs, simSPerWallS: cell.simNs / 1e9 / (wallMs / 1000), packetsPerSimS: cell.simPackets / (cell.simNs / 1e9) };
});
const base = rows[0]!;
console.table(
  rows.map((r) => ({
    run: r.name,
    "build ms": Math.round(r.buildMs),
    "net run ms": Math.round(r.wallMs),
    "sim pkts / wall s": Math.round(r.packetsPerWallS),
    "sim s / wall s": r.simSPerWallS.toFixed(4),
    "pkts/s vs baseline": (r.packetsPerWallS / base.packetsPerWallS).toFixed(2),
    "sim s/s vs baseline": (r.simSPerWallS / base.simSPerWallS).toFixed(2),
  })),
);
const big = rows[rows.length - 1]!;
// Six CNIs x one 8-stream TCP cell of 6 simulated seconds, at the measured packet rate.
const projected = (6 * 6 * big.packetsPerSimS) / big.packetsPerWallS;
console.log(`projected: six CNIs, 40 Gbit/s, 8 streams, 5 s + 1 s warm-up = ${projected.toFixed(0)} s wall (target < 60 s)`);

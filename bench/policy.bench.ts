// Policy benchmarks: per-packet verdict rate over compiled maps (ipcache LPM lookup + policy map
// lookup) with 10, 100, 1,000 and 10,000 policies, against the reference evaluator in the same run;
// full compile of 10,000 pods x 1,000 policies; one pod label change applied incrementally.
// Clusters are generated from a seeded RNG, shaped like real ones (apps per namespace, team labels,
// named ports, ipBlocks with excepts, port ranges). Targets: issue 4 "Measures".
import { Bench } from "tinybench";
import type { NetworkPolicy, NetworkPolicyIngressRule, NetworkPolicyPeer, NetworkPolicyPort } from "kubernetes-types/networking/v1.js";
import { IpCache } from "../datapath/maps/ipcache.js";
import { Direction, PolicyMap } from "../datapath/maps/policy.js";
import { portBlockCount } from "../datapath/maps/portblocks.js";
import { PolicyCompiler } from "../src/policy/compiler.js";
import { addressOwner, evaluateDirection } from "../src/policy/reference.js";
import { IpProto, Personality, policyOptionsFor } from "../src/policy/types.js";
import { Direction as VerdictDirection } from "../src/policy/verdict.js";
import { PolicyWorld } from "../src/policy/world.js";
import { formatIPv4, parseIPv4 } from "../src/util/ip.js";
import { unwrap } from "../src/util/result.js";
import { SeededRng } from "../src/util/rng.js";

const NAMESPACES = 50;
const APPS_PER_NAMESPACE = 4;
const OPTIONS = policyOptionsFor(Personality.EBPF);
const collectGarbage = (globalThis as { gc?: () => void }).gc;

// ---- cluster generator

function buildWorld(pods: number, nodes: number): PolicyWorld {
  const w = new PolicyWorld();
  for (let n = 0; n < nodes; n++) unwrap(w.setNode({ name: `node${n}`, ips: [`192.168.${n >> 8}.${n & 255}`, `10.31.${n}.1`] }));
  for (let i = 0; i < NAMESPACES; i++) unwrap(w.setNamespace({ name: `ns${i}`, labels: { team: `t${i % 5}`, env: `e${i % 3}` } }));
  const base = parseIPv4("10.32.0.0")!;
  for (let i = 0; i < pods; i++) {
    unwrap(
      w.setPod({
        namespace: `ns${i % NAMESPACES}`,
        name: `pod${i}`,
        labels: { app: `app${i % (NAMESPACES * APPS_PER_NAMESPACE)}`, tier: `t${i % 3}` },
        ip: formatIPv4(base + i),
        node: `node${i % nodes}`,
        ports: i % 2 === 0 ? [{ name: "http", containerPort: 8080 }] : [{ name: "http", containerPort: 8081 }],
      }),
    );
  }
  return w;
}

/** An app label that exists in namespace ns (apps are spread so that app k lives in ns k mod 50). */
const appIn = (rng: SeededRng, ns: number) => `app${ns + NAMESPACES * rng.nextInt(APPS_PER_NAMESPACE)}`;

function randomPolicy(rng: SeededRng, j: number): NetworkPolicy {
  const ns = rng.nextInt(NAMESPACES);
  const peer = (): NetworkPolicyPeer => {
    switch (rng.nextInt(3)) {
      case 0:
        return { podSelector: { matchLabels: { app: appIn(rng, ns) } } };
      case 1: {
        const other = rng.nextInt(NAMESPACES);
        return { namespaceSelector: { matchLabels: { team: `t${other % 5}` } }, podSelector: { matchLabels: { app: appIn(rng, other) } } };
      }
      default: {
        const net = rng.nextInt(256);
        return { ipBlock: { cidr: `172.16.${net}.0/24`, except: [`172.16.${net}.0/28`] } };
      }
    }
  };
  const ports = (): NetworkPolicyPort[] | undefined =>
    [[{ port: 80 }], [{ port: 8080, endPort: 8090 }], [{ port: "http" }], undefined][rng.nextInt(4)] as NetworkPolicyPort[] | undefined;
  const rule = (): NetworkPolicyIngressRule => {
    const r: NetworkPolicyIngressRule = { from: [peer(), peer()] };
    const p = ports();
    if (p) r.ports = p;
    return r;
  };
  const spec: NonNullable<NetworkPolicy["spec"]> = { podSelector: { matchLabels: { app: appIn(rng, ns) } }, ingress: [rule(), rule()] };
  if (rng.nextInt(4) === 0) {
    spec.policyTypes = ["Ingress", "Egress"];
    spec.egress = [{ to: [{ namespaceSelector: { matchLabels: { env: `e${rng.nextInt(3)}` } }, podSelector: { matchLabels: { tier: "t1" } } }] }];
  }
  return { apiVersion: "networking.k8s.io/v1", kind: "NetworkPolicy", metadata: { name: `np${j}`, namespace: `ns${ns}` }, spec };
}

function addPolicies(w: PolicyWorld, count: number, seed: number): void {
  const rng = new SeededRng(seed);
  for (let j = 0; j < count; j++) unwrap(w.setPolicy(randomPolicy(rng, j)));
}

// ---- packets: endpoint map + its node's ipcache + peer address/proto/port, flattened

type Packets = {
  maps: PolicyMap[];
  ipcaches: IpCache[];
  endpoints: string[];
  peers: Uint32Array;
  dirs: Uint8Array;
  protos: Uint8Array;
  ports: Uint16Array;
};

const PACKETS = 1024;

/** Packets at `endpoints` distinct pods (few: maps stay in CPU caches; many: they do not). */
function makePackets(w: PolicyWorld, c: PolicyCompiler, endpoints: number, seed: number): Packets {
  const rng = new SeededRng(seed);
  const pods = [...w.allPods()];
  const p: Packets = {
    maps: [],
    ipcaches: [],
    endpoints: [],
    peers: new Uint32Array(PACKETS),
    dirs: new Uint8Array(PACKETS),
    protos: new Uint8Array(PACKETS),
    ports: new Uint16Array(PACKETS),
  };
  const portChoices = [80, 8080, 8085, 8081, 53, 443];
  for (let i = 0; i < PACKETS; i++) {
    const ep = c.endpoint(pods[rng.nextInt(endpoints)]!.key)!;
    p.maps.push(ep.map);
    p.ipcaches.push(c.ipcacheOf(ep.pod.node)!);
    p.endpoints.push(ep.key);
    p.peers[i] = rng.nextInt(8) === 0 ? parseIPv4(`172.16.${rng.nextInt(256)}.${rng.nextInt(256)}`)! : pods[rng.nextInt(pods.length)]!.ip;
    p.dirs[i] = rng.nextInt(4) === 0 ? Direction.EGRESS : Direction.INGRESS;
    p.protos[i] = rng.nextInt(8) === 0 ? IpProto.UDP : IpProto.TCP;
    p.ports[i] = portChoices[rng.nextInt(portChoices.length)]!;
  }
  return p;
}

let sink = 0;

/** The datapath's decision for every packet: identity from the ipcache, verdict from the policy map. */
function compiledVerdicts(p: Packets): void {
  let acc = 0;
  for (let i = 0; i < PACKETS; i++) {
    const identity = p.ipcaches[i]!.lookupV4(p.peers[i]!);
    acc += p.maps[i]!.lookup(p.dirs[i]!, identity, p.protos[i]!, p.ports[i]!);
  }
  sink += acc;
}

function referenceVerdicts(w: PolicyWorld, p: Packets, count: number, offset: number): void {
  for (let k = 0; k < count; k++) {
    const i = (offset + k) % PACKETS;
    const pod = w.pod(p.endpoints[i]!)!;
    const dir = p.dirs[i] === Direction.INGRESS ? VerdictDirection.INGRESS : VerdictDirection.EGRESS;
    const v = evaluateDirection(w, dir, { kind: "pod", ip: pod.ip, pod }, addressOwner(w, p.peers[i]!), p.protos[i]!, p.ports[i]!, OPTIONS);
    sink += v.allowed ? 1 : 0;
  }
}

/** Mean milliseconds per task iteration. */
function periodOf(bench: Bench, name: string): number {
  const result = bench.tasks.find((t) => t.name === name)?.result;
  if (result === undefined || !("period" in result)) throw new Error(`bench task ${name} has no result`);
  return result.period;
}

const cpuMs = (since: NodeJS.CpuUsage) => {
  const u = process.cpuUsage(since);
  return (u.user + u.system) / 1000;
};
const rate = (perSecond: number) => (perSecond >= 1e6 ? `${(perSecond / 1e6).toFixed(2)} M` : `${(perSecond / 1e3).toFixed(2)} k`);

// ---- 1. verdict rate vs number of policies
// All four set-ups are built first and measured in the same rounds (best of ROUNDS), so a shared,
// noisy CPU affects every row alike and the ratios between rows stay meaningful.

const POLICY_COUNTS = [10, 100, 1_000, 10_000] as const;
const ROUNDS = 3;
type Setup = { policies: number; world: PolicyWorld; compiler: PolicyCompiler; hot: Packets; cold: Packets };
const setups: Setup[] = POLICY_COUNTS.map((policies) => {
  const world = buildWorld(2_000, 20);
  addPolicies(world, policies, 7);
  const compiler = new PolicyCompiler(world, OPTIONS);
  return { policies, world, compiler, hot: makePackets(world, compiler, 64, 11), cold: makePackets(world, compiler, 2_000, 11) };
});
const best = new Map<string, number>();
for (let round = 0; round < ROUNDS; round++) {
  collectGarbage?.();
  const bench = new Bench({ time: 200, warmupTime: round === 0 ? 100 : 0 });
  for (const s of setups) {
    bench.add(`hot ${s.policies}`, () => compiledVerdicts(s.hot));
    bench.add(`cold ${s.policies}`, () => compiledVerdicts(s.cold));
  }
  await bench.run();
  for (const t of bench.tasks) best.set(t.name, Math.max(best.get(t.name) ?? 0, (PACKETS * 1000) / periodOf(bench, t.name)));
}
// The reference walks every policy per verdict: fewer verdicts per iteration as policies grow.
const reference = new Bench({ time: 300, warmupTime: 50, iterations: 4, warmupIterations: 1 });
for (const s of setups) {
  const batch = Math.max(1, Math.floor(2_000 / s.policies));
  let offset = 0;
  reference.add(`reference ${s.policies}`, () => {
    referenceVerdicts(s.world, s.cold, batch, offset);
    offset += batch;
  });
}
await reference.run();

const verdictRows = setups.map((s) => {
  const hot = best.get(`hot ${s.policies}`)!;
  const cold = best.get(`cold ${s.policies}`)!;
  const batch = Math.max(1, Math.floor(2_000 / s.policies));
  const ref = (batch * 1000) / periodOf(reference, `reference ${s.policies}`);
  const probeSum = () => [...new Set(s.hot.maps)].reduce((sum, m) => sum + m.probes, 0);
  const probes0 = probeSum();
  compiledVerdicts(s.hot);
  return {
    policies: s.policies,
    "entries/endpoint": (s.cold.maps.reduce((sum, m) => sum + m.size, 0) / PACKETS).toFixed(0),
    "probes/lookup": ((probeSum() - probes0) / PACKETS).toFixed(2),
    "hot verdicts/s": rate(hot),
    "cold verdicts/s": rate(cold),
    "reference/s": rate(ref),
    "cold / reference": `${(cold / ref).toFixed(0)}x`,
    "cost vs 10 (hot, cold)": `${(best.get("hot 10")! / hot).toFixed(2)}x, ${(best.get("cold 10")! / cold).toFixed(2)}x`,
  };
});
for (const s of setups) s.compiler.dispose();
setups.length = 0;
console.log("policy verdicts = ipcache LPM lookup + policy map lookup; 2,000 pods on 20 nodes; best of 3 rounds");
console.log("hot: packets for 64 endpoints (maps stay in CPU caches); cold: packets for all 2,000 endpoints");
console.log("targets: cost at 10,000 policies within 1.5x of 10; >= 100x the reference at 1,000; >= 10 M verdicts/s");
console.table(verdictRows);

// ---- 2. full compile of 10,000 pods x 1,000 policies, then 3. one label change

collectGarbage?.();
const bigWorld = buildWorld(10_000, 100);
addPolicies(bigWorld, 1_000, 13);
/**
 * One full compile, then the baseline: writing the compiled result (every policy map entry, reserved
 * once per map as the compiler does, and the pod addresses into one cluster-wide ipcache) into fresh
 * maps, i.e. the part of a compile spent inside the datapath maps.
 */
function compileRound(previous: PolicyCompiler | null): { compiler: PolicyCompiler; ms: number; cpu: number; baselineMs: number } {
  previous?.dispose();
  collectGarbage?.();
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  const compiler = new PolicyCompiler(bigWorld, OPTIONS);
  const ms = performance.now() - t0;
  const cpu = cpuMs(cpu0);
  const dumps = [...bigWorld.allPods()].map((p) => compiler.endpoint(p.key)!.map.dump());
  const addresses = [...bigWorld.allPods()].map((p) => p.ip);
  collectGarbage?.();
  const f0 = performance.now();
  for (const d of dumps) {
    const m = new PolicyMap(16_384);
    m.reserve(d.length, d.reduce((sum, e) => sum + portBlockCount(e.portLo, e.portHi), 0));
    for (const e of d) m.upsert(e.direction, e.identity, e.proto, e.portLo, e.portHi, e.verdict, e.ruleRef);
  }
  const ipcache = new IpCache(1 << 20);
  for (const a of addresses) ipcache.upsertV4(a, 32, 256, 0, 0);
  return { compiler, ms, cpu, baselineMs: performance.now() - f0 };
}
// Best of two rounds, compile and baseline alternating: the CPU is shared and noisy.
const round1 = compileRound(null);
const round2 = compileRound(round1.compiler);
const big = round2.compiler;
const compileMs = Math.min(round1.ms, round2.ms);
const compileCpuMs = Math.min(round1.cpu, round2.cpu);
const floorMs = Math.min(round1.baselineMs, round2.baselineMs);
const ipcacheWrites = big.counters.ipcacheWrites;
let totalEntries = 0;
for (const pod of bigWorld.allPods()) totalEntries += big.endpoint(pod.key)!.map.size;

// Move a pod between two existing apps of its namespace (each selected by policies), so every
// change moves it between identities, selectors and policy targets.
const changeRng = new SeededRng(17);
const pods = [...bigWorld.allPods()];
const samples: number[] = [];
const touched: number[] = [];
for (let k = 0; k < 60; k++) {
  const pod = bigWorld.pod(pods[changeRng.nextInt(pods.length)]!.key)!;
  const labels = { ...pod.labels, app: appIn(changeRng, Number(pod.namespace.slice(2))) };
  big.resetCounters();
  const t = performance.now();
  unwrap(bigWorld.setPodLabels(pod.key, labels));
  samples.push(performance.now() - t);
  touched.push(big.counters.touchedEndpoints.size);
}
samples.sort((a, b) => a - b);
touched.sort((a, b) => a - b);
const median = samples[samples.length >> 1]!;
const p90 = samples[Math.floor(samples.length * 0.9)]!;
console.log("\n10,000 pods on 100 nodes x 1,000 policies (targets: full compile < 5 s, one label change < 10 ms)");
console.table([
  {
    measure: "full compile",
    wall: `${(compileMs / 1000).toFixed(2)} s`,
    detail: `${(compileCpuMs / 1000).toFixed(2)} s CPU; ${totalEntries} policy map entries, ${big.identities.size} identities, ${ipcacheWrites} writes to the cluster-wide ipcache (${big.ipcacheOf("node0")!.size} prefixes, one view per node)`,
  },
  {
    measure: "baseline: the same entries written into fresh maps",
    wall: `${(floorMs / 1000).toFixed(2)} s`,
    detail: `compile / baseline = ${(compileMs / floorMs).toFixed(2)}x (the rest is selector matching, rules and bookkeeping)`,
  },
  {
    measure: "one pod label change",
    wall: `${median.toFixed(2)} ms median`,
    detail: `p90 ${p90.toFixed(2)} ms; ${(compileMs / median).toFixed(0)}x less than the full compile; endpoints touched: median ${touched[touched.length >> 1]}, max ${touched[touched.length - 1]}`,
  },
]);
if (sink === -1) console.log(sink);

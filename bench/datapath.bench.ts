// Datapath per-packet cost, as ratios against baselines measured in the same run:
// - from-container on an established ClusterIP flow (service lookup + SERVICE conntrack, DNAT, egress CT +
//   policy re-check, local delivery with the destination's CT + ingress policy, TTL, MACs) against a
//   parse-only baseline (the same packet copy + parse);
// - policy verdicts (ipcache identity + PolicyMap lookup) with 10 and 10,000 PolicyMap entries (flat?);
// - heap growth per packet (run with --expose-gc).
import { PerformanceObserver } from "node:perf_hooks";
import { bestRates, type RateTask } from "./support/best-rate.js";
import { SkBuff } from "../src/skb/skbuff.js";
import { SeededRng } from "../src/util/rng.js";
import { IPPROTO_TCP, setL4ChecksumV4 } from "../src/wire/checksum.js";
import { emitEthernet, EtherType } from "../src/wire/ethernet.js";
import { emitIpv4 } from "../src/wire/ipv4.js";
import { emitTcp } from "../src/wire/tcp.js";
import { DatapathCtx } from "../datapath/ctx.js";
import { datapathConfig, PolicyCtMode } from "../datapath/lib/config.js";
import { createDatapathMaps } from "../datapath/lib/maps.js";
import { parsePacket } from "../datapath/lib/parse.js";
import { resolveIdentity } from "../datapath/lib/policy.js";
import { Direction, PolicyMap, PolicyVerdict } from "../datapath/maps/policy.js";
import { fromContainer } from "../datapath/programs/lxc.js";

const BATCH = 1024; // packets (or verdicts) per benchmark iteration
const ROUNDS = 2;
const sink = new Int32Array(1);
const rng = new SeededRng(4242);

const POD_A = 0x0ae0010a; // 10.224.1.10
const POD_B = 0x0ae00114; // 10.224.1.20
const VIP = 0x0a60000a; // 10.96.0.10
const ID_A = 1000;
const ID_B = 1001;

// ---------- from-container on an established flow ----------

function tcpFrame(src: number, dst: number, sport: number, dport: number, flags: number): Uint8Array {
  const bytes = new Uint8Array(14 + 20 + 20 + 64);
  emitEthernet({ dst: 0xeeeeeeeeeeee, src: 0x0a5800000a0a, etherType: EtherType.IPV4 }, bytes, 0);
  emitIpv4(
    { dscp: 0, ecn: 0, totalLength: 104, identification: 1, dontFragment: true, moreFragments: false, fragmentOffset: 0,
      ttl: 64, protocol: IPPROTO_TCP, checksum: 0, src, dst, options: new Uint8Array(0) },
    bytes,
    14,
  );
  emitTcp({ srcPort: sport, dstPort: dport, seq: 1, ack: 1, flags, window: 512, checksum: 0, urgentPointer: 0, options: [] }, bytes, 34);
  setL4ChecksumV4(bytes, 34, 84, IPPROTO_TCP, src, dst);
  return bytes;
}

function programSetup(policyEntries: number) {
  const maps = createDatapathMaps({ ct: 4096, snat: 16, lb: 64, endpoints: 16, ipcache: 16384 });
  const config = datapathConfig({ nodeName: "n1", nodeIps: [0x0a01081f], routerMac: 0xeeeeeeeeeeee, policyCtMode: PolicyCtMode.RECHECK_ESTABLISHED });
  const polA = new PolicyMap(policyEntries + 16);
  const polB = new PolicyMap(policyEntries + 16);
  for (let i = 0; i < policyEntries; i++) {
    polA.upsert(Direction.EGRESS, 5000 + i, IPPROTO_TCP, 1000 + (i % 50), 1000 + (i % 50), PolicyVerdict.ALLOW, 10 + i);
    polB.upsert(Direction.INGRESS, 5000 + i, IPPROTO_TCP, 1000 + (i % 50), 1000 + (i % 50), PolicyVerdict.ALLOW, 10 + i);
  }
  polA.upsert(Direction.EGRESS, ID_B, IPPROTO_TCP, 8080, 8080, PolicyVerdict.ALLOW, 1);
  polB.upsert(Direction.INGRESS, ID_A, IPPROTO_TCP, 8080, 8080, PolicyVerdict.ALLOW, 2);
  maps.endpoints.upsert({ ip: POD_A, ifindex: 11, id: 1, identity: ID_A, mac: 0x0a5800000a0a, policy: polA });
  maps.endpoints.upsert({ ip: POD_B, ifindex: 12, id: 2, identity: ID_B, mac: 0x0a5800000a14, policy: polB });
  maps.ipcache.upsertV4(0, 0, 2, 0, 0);
  maps.ipcache.upsertV4(POD_A, 32, ID_A, 0, 0);
  maps.ipcache.upsertV4(POD_B, 32, ID_B, 0, 0);
  maps.lb.upsertBackend(1, POD_B, 8080, IPPROTO_TCP);
  maps.lb.upsertRevNat(1, VIP, 80);
  maps.lb.upsertService({ vip: VIP, port: 80, proto: IPPROTO_TCP, revNatIndex: 1, flags: 0, backendIds: [1] });
  const ctx = new DatapathCtx(maps, config);
  const template = tcpFrame(POD_A, VIP, 40000, 80, 0x10);
  const skb = SkBuff.fromBytes(1, template);
  const headroom = skb.head;
  const reset = (): void => {
    skb.data.set(template, headroom);
    skb.head = headroom;
    skb.tail = headroom + template.length;
    skb.mark = 0;
    skb.natApplied = 0;
  };
  // Open the flow with a SYN so the measured packets are established.
  const syn = tcpFrame(POD_A, VIP, 40000, 80, 0x02);
  skb.data.set(syn, headroom);
  ctx.begin(skb, 11, true, 0, 1, 1);
  if (fromContainer.run(ctx) !== 2) throw new Error("setup: the SYN was not delivered");
  return { ctx, skb, reset };
}

const prog = programSetup(10);

const fromContainerTask = (): void => {
  const { ctx, skb, reset } = prog;
  let acc = 0;
  for (let i = 0; i < BATCH; i++) {
    reset();
    ctx.begin(skb, 11, true, 0, 1000 + i, i);
    acc += fromContainer.run(ctx);
  }
  sink[0] = acc;
};

const parseOnlyTask = (): void => {
  const { ctx, skb, reset } = prog;
  let acc = 0;
  for (let i = 0; i < BATCH; i++) {
    reset();
    ctx.begin(skb, 11, true, 0, 1000 + i, i);
    acc += parsePacket(ctx);
  }
  sink[0] = acc;
};

// ---------- policy verdicts: ipcache identity + PolicyMap lookup ----------

const PEERS = 1 << 12;

function verdictSetup(entries: number) {
  const maps = createDatapathMaps({ ct: 16, snat: 16, lb: 16, endpoints: 16, ipcache: 16384 });
  const ctx = new DatapathCtx(maps, datapathConfig({ nodeName: "n", nodeIps: [1], routerMac: 1 }));
  const policy = new PolicyMap(entries + 16);
  const identities = Math.max(entries, 64);
  for (let i = 0; i < identities; i++) maps.ipcache.upsertV4((0x0ae00000 + i) >>> 0, 32, 256 + i, 0, 0);
  maps.ipcache.upsertV4(0, 0, 2, 0, 0);
  for (let i = 0; i < entries; i++) {
    const port = 80 + (i % 7);
    policy.upsert(Direction.INGRESS, 256 + (i % identities), IPPROTO_TCP, port, port + (i % 3), PolicyVerdict.ALLOW, i + 3);
  }
  const peers = new Uint32Array(PEERS);
  const ports = new Uint16Array(PEERS);
  for (let q = 0; q < PEERS; q++) {
    peers[q] = (0x0ae00000 + rng.nextInt(identities * 2)) >>> 0; // half outside the pods: world
    ports[q] = 80 + rng.nextInt(10);
  }
  let cursor = 0;
  return (): void => {
    let allowed = 0;
    for (let i = 0; i < BATCH; i++) {
      const q = cursor++ & (PEERS - 1);
      const id = resolveIdentity(ctx, peers[q]!);
      allowed += policy.lookup(Direction.INGRESS, id, IPPROTO_TCP, ports[q]!) === PolicyVerdict.ALLOW ? 1 : 0;
    }
    sink[0] = allowed;
  };
}

// ---------- measurement ----------

type Task = RateTask;

/** Best rate of each task over ROUNDS short alternating runs. */
const measure = (tasks: Task[]): Promise<Map<string, number>> =>
  bestRates(tasks, { batch: BATCH, rounds: ROUNDS, timeMs: 500, warmupMs: 150 });

const collectGarbage = (globalThis as { gc?: () => void }).gc;

async function heapGrowth(run: () => void, iterations: number): Promise<{ bytesPerPacket: number; gcs: number }> {
  let gcs = 0;
  const observer = new PerformanceObserver((list) => {
    gcs += list.getEntries().length;
  });
  observer.observe({ entryTypes: ["gc"] });
  collectGarbage!();
  const before = process.memoryUsage().heapUsed;
  for (let i = 0; i < iterations; i++) run();
  const bytes = process.memoryUsage().heapUsed - before;
  await new Promise((r) => setTimeout(r, 50));
  observer.disconnect();
  return { bytesPerPacket: bytes / (iterations * BATCH), gcs };
}

const results = await measure([
  { name: "parse-only", run: parseOnlyTask },
  { name: "from-container", run: fromContainerTask },
  { name: "verdict-10", run: verdictSetup(10) },
  { name: "verdict-10000", run: verdictSetup(10_000) },
]);
const r = (name: string): number => results.get(name)!;
const ns = (perSec: number): string => `${(1e9 / perSec).toFixed(1)} ns`;
const mps = (perSec: number): string => `${(perSec / 1e6).toFixed(2)} M/s`;

console.log("\nfrom-container, established ClusterIP flow with policy (DNAT + CT + egress/ingress policy + delivery)");
console.table([
  { task: "parse-only (baseline)", "per packet": ns(r("parse-only")), rate: mps(r("parse-only")), "cost vs baseline": "1.00x" },
  { task: "from-container", "per packet": ns(r("from-container")), rate: mps(r("from-container")), "cost vs baseline": `${(r("parse-only") / r("from-container")).toFixed(2)}x` },
]);
console.log("\npolicy verdicts (ipcache identity + PolicyMap lookup); target >= 10 M/s, flat in the entry count");
console.table([
  { entries: 10, "per verdict": ns(r("verdict-10")), rate: mps(r("verdict-10")), "cost vs 10 entries": "1.00x" },
  { entries: 10_000, "per verdict": ns(r("verdict-10000")), rate: mps(r("verdict-10000")), "cost vs 10 entries": `${(r("verdict-10") / r("verdict-10000")).toFixed(2)}x` },
]);
if (collectGarbage === undefined) {
  console.log("heap check skipped: run with node --expose-gc");
} else {
  const g = await heapGrowth(fromContainerTask, 200);
  console.log(`\nheap growth over ${200 * BATCH} from-container runs: ${g.bytesPerPacket.toFixed(3)} B/packet, ${g.gcs} GC runs`);
}

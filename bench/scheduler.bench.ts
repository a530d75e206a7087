// Scheduler throughput into 5,000 nodes, after upstream's scheduler_perf workloads: SchedulingBasic
// (pods requesting 100m/500Mi, nodes of 4 cpu/32Gi/110 pods) and SchedulingPodAntiAffinity (each pod
// has required anti-affinity to its own label on kubernetes.io/hostname). Pods/s are compared with a
// baseline measured in the same run: a bare filter-only pass that counts the nodes a pod fits on.
// Targets (issue 6): 1,000 pods/s basic, 200 pods/s with anti-affinity.

import { Bench } from "tinybench";
import { ObjectStore, type KubeObject } from "../src/k8s/index.js";
import { Scheduler } from "../src/scheduler/index.js";
import { SeededRng } from "../src/util/rng.js";

const NODES = 5000;
const BATCH = 25;

function node(i: number): KubeObject<"Node"> {
  const name = `node-${i}`;
  return {
    apiVersion: "v1",
    kind: "Node",
    metadata: { name, labels: { "kubernetes.io/hostname": name } },
    status: { allocatable: { cpu: "4", memory: "32Gi", pods: "110" } },
  };
}

let seq = 0;
function pod(antiAffinity: boolean): KubeObject<"Pod"> {
  const p: KubeObject<"Pod"> = {
    apiVersion: "v1",
    kind: "Pod",
    metadata: { name: `pod-${seq++}`, namespace: "sched-perf", labels: { color: "green" } },
    spec: {
      priority: 0,
      schedulerName: "default-scheduler",
      containers: [{ name: "pause", image: "registry.k8s.io/pause:3.9", resources: { requests: { cpu: "100m", memory: "500Mi" } } }],
    },
  };
  if (antiAffinity) {
    p.spec!.affinity = {
      podAntiAffinity: {
        requiredDuringSchedulingIgnoredDuringExecution: [{ labelSelector: { matchLabels: { color: "green" } }, topologyKey: "kubernetes.io/hostname" }],
      },
    };
  }
  return p;
}

function cluster(): { store: ObjectStore; scheduler: Scheduler } {
  const store = new ObjectStore();
  for (let i = 0; i < NODES; i++) store.add(node(i));
  return { store, scheduler: new Scheduler(store, { rng: new SeededRng(1) }) };
}

/** CPU microseconds used and pods handled by each task. */
const cpu = new Map<string, { us: number; pods: number }>();
function timed(name: string, fn: () => void): () => void {
  const acc = { us: 0, pods: 0 };
  cpu.set(name, acc);
  return () => {
    const before = process.cpuUsage();
    fn();
    const used = process.cpuUsage(before);
    acc.us += used.user + used.system;
    acc.pods += BATCH;
  };
}

/** Baseline: per pod, one pass over every node checking cpu, memory and pod count; counts fitting nodes. */
function filterOnlyBaseline(): () => void {
  const cpu = new Float64Array(NODES).fill(4000);
  const mem = new Float64Array(NODES).fill(32 * 2 ** 30);
  const pods = new Float64Array(NODES).fill(110);
  let fits = 0;
  return () => {
    for (let b = 0; b < BATCH; b++) {
      for (let i = 0; i < NODES; i++) if (cpu[i]! >= 100 && mem[i]! >= 500 * 2 ** 20 && pods[i]! >= 1) fits++;
    }
    if (fits < 0) throw new Error("unreachable");
  };
}

const basic = cluster();
const anti = cluster();
const scheduleBatch = (c: { store: ObjectStore; scheduler: Scheduler }, antiAffinity: boolean) => (): void => {
  for (let i = 0; i < BATCH; i++) c.store.add(pod(antiAffinity));
  const results = c.scheduler.scheduleAll();
  if (results.length !== BATCH || results.some((r) => r.node === null)) throw new Error("a pod did not schedule");
};

const bench = new Bench({ time: 500, iterations: 4, warmupTime: 50, warmupIterations: 1 });
bench.add("baseline: filter-only pass", timed("baseline: filter-only pass", filterOnlyBaseline()));
bench.add("SchedulingBasic", timed("SchedulingBasic", scheduleBatch(basic, false)));
bench.add("SchedulingPodAntiAffinity", timed("SchedulingPodAntiAffinity", scheduleBatch(anti, true)));
await bench.run();

const cpuPodsPerSecond = (name: string): number => {
  const c = cpu.get(name)!;
  return (c.pods * 1e6) / c.us;
};

function podsPerSecond(name: string): number {
  const result = bench.tasks.find((t) => t.name === name)?.result;
  if (result === undefined || !("period" in result)) throw new Error(`bench task ${name} has no result`);
  return (BATCH * 1000) / result.period;
}

const base = podsPerSecond("baseline: filter-only pass");
const baseCpu = cpuPodsPerSecond("baseline: filter-only pass");
const rows = [
  ["baseline: filter-only pass", 0],
  ["SchedulingBasic", 1000],
  ["SchedulingPodAntiAffinity", 200],
].map(([name, target]) => {
  const wall = podsPerSecond(name as string);
  const onCpu = cpuPodsPerSecond(name as string);
  return {
    workload: name as string,
    "pods/s (wall)": Math.round(wall),
    "pods/s (cpu)": Math.round(onCpu),
    "vs baseline (wall)": `${(wall / base).toFixed(4)}x`,
    "vs baseline (cpu)": `${(onCpu / baseCpu).toFixed(4)}x`,
    target: target === 0 ? "-" : `${target}/s: ${onCpu >= (target as number) ? "met" : "MISSED"} (cpu)`,
  };
});
console.log(`scheduler: ${NODES} nodes, batches of ${BATCH} pods, percentageOfNodesToScore adaptive (10% = 500 nodes at this size)`);
console.table(rows);
console.log(`pods bound: basic ${basic.store.count("Pod")}, anti-affinity ${anti.store.count("Pod")}`);

// kubectl top's table: the seed lab's own output (its usage and the lab nodes' allocatable) comes out
// the same, and kubectl's rounding rules (CPU up to the millicore, memory down to the Mi, percentages
// truncated) hold at the edges.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { formatTopTable, topHeaderStyleFor, topNodeRows, topPodRows, TopHeaderStyle, type NodeUsage, type PodUsage } from "../../src/metrics/index.js";

const MI = 1024 * 1024;
const SEED = readFileSync(resolve(process.cwd(), "../shared/seed/k8s-network-scheduler-metrics-lab.zh.txt"), "utf8");
/** The lab's default allocatable (src/k8s DEFAULT_ALLOCATABLE): cpu 2, memory 3750Mi. */
const ALLOCATABLE = { cpuMilli: 2000, memoryBytes: 3750 * MI };

const nodeUsage = (name: string, cpuNanoCores: number, memoryBytes: number): NodeUsage => ({ name, labels: {}, timestampNs: 0, windowNs: 15e9, cpuNanoCores, memoryBytes });

/** The table printed after `$ kubectl top node` in the seed, as words per line. */
function seedTable(command: string, lines: number): string[][] {
  const at = SEED.indexOf(command);
  return SEED.slice(at).split("\n").slice(1, 1 + lines).map((l) => l.trim().split(/\s+/));
}

test("the seed lab's `kubectl top node`, from its own usage numbers and the nodes' allocatable", () => {
  const usage = [nodeUsage("master30.cyh.cloud", 97e6, 1328 * MI), nodeUsage("worker31.cyh.cloud", 49e6, 912 * MI), nodeUsage("worker32.cyh.cloud", 45e6, 926 * MI)];
  const nodes = usage.map((u) => ({ name: u.name, ...ALLOCATABLE }));
  const rows = topNodeRows(usage, nodes, topHeaderStyleFor("v1.30.2"));
  assert.deepEqual(rows, seedTable("root@master30:~# kubectl top node\n", 4));
});

test("the seed lab's `kubectl top pods -n kube-system` columns and values", () => {
  const seed = seedTable("root@master30:~# kubectl top pods -n kube-system \n", 15);
  const usage: PodUsage[] = seed.slice(1).map(([name, cpu, mem]) => {
    const cpuNanoCores = Number(cpu!.replace("m", "")) * 1e6;
    const memoryBytes = Number(mem!.replace("Mi", "")) * MI;
    return { namespace: "kube-system", name: name!, labels: {}, timestampNs: 0, windowNs: 15e9, cpuNanoCores, memoryBytes, containers: [{ name: "c", cpuNanoCores, memoryBytes }] };
  });
  assert.deepEqual(topPodRows(usage, false), [seed[0], ...seed.slice(1).sort((a, b) => (a[0]! < b[0]! ? -1 : 1))]);
});

test("kubectl's rounding: CPU up to the millicore, memory down to the Mi, percentages truncated", () => {
  const rows = topNodeRows([nodeUsage("n", 1_999_000_001, 3750 * MI - 1)], [{ name: "n", ...ALLOCATABLE }], TopHeaderStyle.CURRENT, true);
  assert.deepEqual(rows, [["n", "2000m", "100%", "3749Mi", "99%"]]);
  const small = topNodeRows([nodeUsage("n", 1, 0)], [{ name: "n", cpuMilli: 0, memoryBytes: 0 }], TopHeaderStyle.CURRENT, true);
  assert.deepEqual(small, [["n", "1m", "0%", "0Mi", "0%"]], "nothing allocatable: 0%");
  // Containers are summed exactly before rounding, as kubectl adds quantities.
  const pod: PodUsage = {
    namespace: "a", name: "p", labels: {}, timestampNs: 0, windowNs: 15e9, cpuNanoCores: 0, memoryBytes: 0,
    containers: [{ name: "x", cpuNanoCores: 400_000, memoryBytes: MI / 2 }, { name: "y", cpuNanoCores: 400_000, memoryBytes: MI / 2 }],
  };
  assert.deepEqual(topPodRows([pod], true, true), [["a", "p", "1m", "1Mi"]]);
});

test("header styles and the tabwriter's padding: every cell padded by three, the last one too", () => {
  assert.equal(topHeaderStyleFor("v1.32.4"), TopHeaderStyle.LEGACY);
  assert.equal(topHeaderStyleFor("v1.33.0"), TopHeaderStyle.CURRENT);
  assert.deepEqual(formatTopTable([["NAME", "CPU(cores)"], ["a-long-name", "5m"]]), ["NAME          CPU(cores)   ", "a-long-name   5m           "]);
});

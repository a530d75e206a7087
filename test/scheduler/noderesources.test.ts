// NodeResourcesFit and NodeResourcesBalancedAllocation, ported from upstream's fit_test.go
// (TestEnoughRequests, TestNotEnoughRequests, TestStorageRequests), least_allocated_test.go
// (TestLeastAllocatedScoringStrategy), most_allocated_test.go, requested_to_capacity_ratio_test.go and
// balanced_allocation_test.go (TestNodeResourcesBalancedAllocation, v1.30: no best-effort skip yet).
import { test } from "node:test";
import assert from "node:assert/strict";
import type { Pod } from "kubernetes-types/core/v1.js";
import { DEFAULT_PLUGIN_ARGS, DEFAULT_RESOURCES, ScoringStrategyType, type NodeResourcesFitArgs, type ResourceSpec } from "../../src/scheduler/config/args.js";
import { balancedAllocationPlugin } from "../../src/scheduler/plugins/noderesources/balanced-allocation.js";
import { fitPlugin } from "../../src/scheduler/plugins/noderesources/fit.js";
import { podRequests } from "../../src/scheduler/resources.js";
import { cluster, filterAll, makeNode, makePod, scoreAll } from "./harness.js";

const EXT_A = "example.com/aaa";
const EXT_B = "example.com/bbb";
const HUGE_A = "hugepages-2Mi";
/** makeAllocatableResources(10, 20, 32, 5, 20, 5) of fit_test.go: cpu 10m, memory 20, pods 32, 5 of example.com/aaa, storage 20, 5 hugepages. */
const FIT_NODE: Record<string, string> = { cpu: "10m", memory: "20", pods: "32", [EXT_A]: "5", "ephemeral-storage": "20", [HUGE_A]: "5" };

const req = (cpuMilli: number, memory: number, extra: Record<string, number> = {}): Record<string, string> => {
  const out: Record<string, string> = { cpu: `${cpuMilli}m`, memory: String(memory) };
  for (const [k, val] of Object.entries(extra)) out[k] = String(val);
  return out;
};

function fitVerdict(pod: Pod, existing: Record<string, string>[], args: NodeResourcesFitArgs = DEFAULT_PLUGIN_ARGS.NodeResourcesFit, allocatable = FIT_NODE): string[] | null {
  const running = makePod("running", { nodeName: "n", requests: existing });
  const c = cluster([makeNode("n", { allocatable })], [running]);
  const s = filterAll(fitPlugin(args), pod, c).nodes["n"]!;
  return s === null ? null : [s.code, ...s.reasons];
}

test("TestEnoughRequests: requests against allocatable minus what the node's pods request", () => {
  const U = "Unschedulable";
  assert.equal(fitVerdict(makePod("p"), [req(10, 20)]), null, "no resources requested always fits");
  assert.deepEqual(fitVerdict(makePod("p", { requests: [req(1, 1)] }), [req(10, 20)]), [U, "Insufficient cpu", "Insufficient memory"], "too many resources fails");
  assert.deepEqual(fitVerdict(makePod("p", { requests: [req(1, 1)], initRequests: [req(3, 1)] }), [req(8, 19)]), [U, "Insufficient cpu"], "init container cpu");
  assert.deepEqual(fitVerdict(makePod("p", { requests: [req(1, 1)], initRequests: [req(3, 1), req(2, 1)] }), [req(8, 19)]), [U, "Insufficient cpu"], "highest init container cpu");
  assert.deepEqual(fitVerdict(makePod("p", { requests: [req(1, 1)], initRequests: [req(1, 3)] }), [req(9, 19)]), [U, "Insufficient memory"], "init container memory");
  assert.equal(fitVerdict(makePod("p", { requests: [req(1, 1)], initRequests: [req(1, 1)] }), [req(9, 19)]), null, "max, not sum, of containers and init containers");
  assert.equal(fitVerdict(makePod("p", { requests: [req(1, 1)], initRequests: [req(1, 1), req(1, 1)] }), [req(9, 19)]), null, "multiple init containers");
  assert.equal(fitVerdict(makePod("p", { requests: [req(1, 1)] }), [req(5, 5)]), null, "both resources fit");
  assert.deepEqual(fitVerdict(makePod("p", { requests: [req(2, 1)] }), [req(9, 5)]), [U, "Insufficient cpu"], "one resource memory fits");
  assert.deepEqual(fitVerdict(makePod("p", { requests: [req(1, 2)] }), [req(5, 19)]), [U, "Insufficient memory"], "one resource cpu fits");
  assert.equal(fitVerdict(makePod("p", { requests: [req(5, 1)] }), [req(5, 19)]), null, "equal edge case");
  assert.equal(fitVerdict(makePod("p", { requests: [req(4, 1)], initRequests: [req(5, 1)] }), [req(5, 19)]), null, "equal edge case for init container");
});

test("TestEnoughRequests: extended, kubernetes.io and hugepages resources, ignored resources and pod overhead", () => {
  const U = "Unschedulable";
  const ext = (name: string, n: number, cpu = 1, mem = 1): Record<string, string> => req(cpu, mem, { [name]: n });
  assert.equal(fitVerdict(makePod("p", { requests: [{ [EXT_A]: "1" }] }), [{}]), null, "extended resource fits");
  assert.equal(fitVerdict(makePod("p", { requests: [{}], initRequests: [{ [EXT_A]: "1" }] }), [{}]), null, "extended resource fits for init container");
  assert.deepEqual(fitVerdict(makePod("p", { requests: [ext(EXT_A, 10)] }), [req(0, 0, { [EXT_A]: 0 })]), [U, `Insufficient ${EXT_A}`], "extended resource capacity enforced");
  assert.deepEqual(fitVerdict(makePod("p", { requests: [ext(EXT_A, 1)] }), [req(0, 0, { [EXT_A]: 5 })]), [U, `Insufficient ${EXT_A}`], "extended resource allocatable enforced");
  assert.deepEqual(fitVerdict(makePod("p", { requests: [ext(EXT_A, 3), ext(EXT_A, 3)] }), [req(0, 0, { [EXT_A]: 2 })]), [U, `Insufficient ${EXT_A}`], "multiple containers");
  assert.equal(fitVerdict(makePod("p", { requests: [{}], initRequests: [ext(EXT_A, 3), ext(EXT_A, 3)] }), [req(0, 0, { [EXT_A]: 2 })]), null, "admits multiple init containers");
  assert.deepEqual(fitVerdict(makePod("p", { requests: [{}], initRequests: [ext(EXT_A, 6), ext(EXT_A, 3)] }), [req(0, 0, { [EXT_A]: 2 })]), [U, `Insufficient ${EXT_A}`]);
  assert.deepEqual(fitVerdict(makePod("p", { requests: [ext(EXT_B, 1)] }), [req(0, 0)]), [U, `Insufficient ${EXT_B}`], "unknown resource");
  assert.deepEqual(fitVerdict(makePod("p", { requests: [ext("kubernetes.io/something", 10)] }), [req(0, 0)]), [U, "Insufficient kubernetes.io/something"]);
  assert.deepEqual(fitVerdict(makePod("p", { requests: [ext(HUGE_A, 10)] }), [req(0, 0, { [HUGE_A]: 0 })]), [U, `Insufficient ${HUGE_A}`], "hugepages capacity");
  assert.deepEqual(fitVerdict(makePod("p", { requests: [ext(HUGE_A, 3), ext(HUGE_A, 3)] }), [req(0, 0, { [HUGE_A]: 2 })]), [U, `Insufficient ${HUGE_A}`]);
  const ignoreB: NodeResourcesFitArgs = { ...DEFAULT_PLUGIN_ARGS.NodeResourcesFit, ignoredResources: [EXT_B] };
  assert.equal(fitVerdict(makePod("p", { requests: [ext(EXT_B, 1)] }), [req(0, 0)], ignoreB), null, "skip checking ignored extended resource");
  const ignoreGroup: NodeResourcesFitArgs = { ...DEFAULT_PLUGIN_ARGS.NodeResourcesFit, ignoredResourceGroups: ["example.com"] };
  assert.equal(fitVerdict(makePod("p", { requests: [ext(EXT_B, 1)] }), [req(0, 0)], ignoreGroup), null, "skip checking ignored resource group");
  const overhead = (cpu: string, mem: string): Pod => makePod("p", { requests: [req(1, 1)], spec: { overhead: { cpu, memory: mem } } });
  assert.equal(fitVerdict(overhead("3m", "13"), [req(5, 5)]), null, "resources + pod overhead fits");
  assert.deepEqual(fitVerdict(overhead("1m", "15"), [req(5, 5)]), [U, "Insufficient memory"], "requests + overhead does not fit for memory");
});

test("TestNotEnoughRequests: no room for one more pod is 'Too many pods' even when nothing is requested", () => {
  const onePod = { cpu: "10m", memory: "20", pods: "1" };
  assert.deepEqual(fitVerdict(makePod("p"), [req(10, 20)], undefined, onePod), ["Unschedulable", "Too many pods"]);
  assert.deepEqual(fitVerdict(makePod("p", { requests: [req(1, 1)] }), [req(5, 5)], undefined, onePod), ["Unschedulable", "Too many pods"]);
  assert.deepEqual(fitVerdict(makePod("p", { requests: [req(5, 1)], initRequests: [req(5, 1)] }), [req(5, 19)], undefined, onePod), ["Unschedulable", "Too many pods"]);
});

test("TestStorageRequests: ephemeral-storage", () => {
  assert.deepEqual(fitVerdict(makePod("p", { requests: [req(1, 1)] }), [req(10, 10)]), ["Unschedulable", "Insufficient cpu"]);
  assert.deepEqual(fitVerdict(makePod("p", { requests: [{ "ephemeral-storage": "25" }] }), [req(2, 2)]), ["Unschedulable", "Insufficient ephemeral-storage"]);
  assert.equal(fitVerdict(makePod("p", { requests: [{ "ephemeral-storage": "10" }] }), [req(2, 2)]), null);
});

test("pod requests: sidecars (restartable init containers) add to the total and to later init containers", () => {
  const pod = makePod("p", { requests: [req(100, 0)] });
  pod.spec!.initContainers = [
    { name: "sidecar", image: "i", restartPolicy: "Always", resources: { requests: { cpu: "50m" } } },
    { name: "init", image: "i", resources: { requests: { cpu: "200m" } } },
  ];
  // containers 100 + sidecar 50 = 150; the init container runs beside the sidecar: 200 + 50 = 250 > 150.
  assert.equal(podRequests(pod.spec!).milliCPU, 250);
});

/** TestLeastAllocatedScoringStrategy et al.: st.MakeNode().Capacity({cpu: "4000"}) means 4000 cores. */
function fitScores(type: ScoringStrategyType, pod: Pod, nodes: [string, Record<string, string>][], existing: Pod[] = [], resources: readonly ResourceSpec[] = DEFAULT_RESOURCES, shape = [] as { utilization: number; score: number }[]): Record<string, number> | "skip" {
  const c = cluster(
    nodes.map(([name, alloc]) => makeNode(name, { allocatable: alloc })),
    existing,
  );
  const args: NodeResourcesFitArgs = { ignoredResources: [], ignoredResourceGroups: [], scoringStrategy: { type, resources, shape } };
  return scoreAll(fitPlugin(args), pod, c);
}

const cap = (cpu: string, memory: string, extra: Record<string, string> = {}): Record<string, string> => ({ cpu, memory, ...extra });
const reqPod = (node?: string): Pod =>
  makePod("p", { requests: [{ cpu: "1000", memory: "2000" }, { cpu: "2000", memory: "3000" }], ...(node === undefined ? {} : { nodeName: node }) });
const bound = (node: string, cpu: string, memory: string): Pod => makePod(`on-${node}-${cpu}-${memory}-${Math.random()}`, { nodeName: node, requests: [{ cpu, memory }] });

test("TestLeastAllocatedScoringStrategy", () => {
  const L = ScoringStrategyType.LEAST_ALLOCATED;
  assert.deepEqual(fitScores(L, makePod("p"), [["node1", cap("4000", "10000")], ["node2", cap("4000", "10000")]]), { node1: 100, node2: 100 }, "nothing scheduled, nothing requested");
  assert.deepEqual(fitScores(L, reqPod(), [["node1", cap("4000", "10000")], ["node2", cap("6000", "10000")]]), { node1: 37, node2: 50 }, "differently sized nodes");
  const idle = [makePod("a", { nodeName: "node1" }), makePod("b", { nodeName: "node1" }), makePod("c", { nodeName: "node2" }), makePod("d", { nodeName: "node2" })];
  assert.deepEqual(fitScores(L, makePod("p"), [["node1", cap("4000", "10000")], ["node2", cap("4000", "10000")]], idle), { node1: 100, node2: 100 }, "no resources requested, pods scheduled");
  const loaded = [bound("node1", "3000", "0"), bound("node1", "3000", "0"), bound("node2", "3000", "0"), bound("node2", "3000", "5000")];
  assert.deepEqual(fitScores(L, makePod("p"), [["node1", cap("10000", "20000")], ["node2", cap("10000", "20000")]], loaded), { node1: 70, node2: 57 });
  const two = [bound("node1", "3000", "0"), bound("node2", "3000", "5000")];
  assert.deepEqual(fitScores(L, reqPod(), [["node1", cap("10000", "20000")], ["node2", cap("10000", "20000")]], two), { node1: 57, node2: 45 });
  assert.deepEqual(fitScores(L, reqPod(), [["node1", cap("10000", "20000")], ["node2", cap("10000", "50000")]], two), { node1: 57, node2: 60 });
  const over = makePod("p", { requests: [{ cpu: "3000", memory: "0" }] });
  assert.deepEqual(fitScores(L, over, [["node1", cap("4000", "10000")], ["node2", cap("4000", "10000")]], two), { node1: 50, node2: 25 }, "requested resources exceed node capacity");
  assert.deepEqual(fitScores(L, makePod("p"), [["node1", {}], ["node2", {}]], two), { node1: 0, node2: 0 }, "zero node resources");
  const weighted = [
    { name: "memory", weight: 2 },
    { name: "cpu", weight: 1 },
  ];
  assert.deepEqual(fitScores(L, reqPod(), [["node1", cap("4000", "10000")], ["node2", cap("6000", "10000")]], [], weighted), { node1: 41, node2: 50 }, "different weights");
  const ext: ResourceSpec[] = [...DEFAULT_RESOURCES, { name: "intel.com/foo", weight: 1 }];
  const nodesExt: [string, Record<string, string>][] = [
    ["node1", cap("6000", "10000")],
    ["node2", cap("6000", "10000", { "intel.com/foo": "4" })],
  ];
  assert.deepEqual(fitScores(L, reqPod(), nodesExt, [], ext), { node1: 50, node2: 50 }, "bypass extended resource if the pod does not request");
  const extPod = makePod("p", { requests: [{ cpu: "3000", memory: "5000", "intel.com/foo": "2" }] });
  const nodesExt2: [string, Record<string, string>][] = [
    ["node1", cap("6000", "10000", { "intel.com/foo": "4" })],
    ["node2", cap("6000", "10000", { "intel.com/foo": "10" })],
  ];
  assert.deepEqual(fitScores(L, extPod, nodesExt2, [], ext), { node1: 50, node2: 60 }, "honor extended resource if the pod requests");
});

test("TestMostAllocatedScoringStrategy and TestRequestedToCapacityRatioScoringStrategy", () => {
  const M = ScoringStrategyType.MOST_ALLOCATED;
  assert.deepEqual(fitScores(M, makePod("p"), [["node1", cap("4000", "10000")], ["node2", cap("4000", "10000")]]), { node1: 0, node2: 0 });
  assert.deepEqual(fitScores(M, reqPod(), [["node1", cap("4000", "10000")], ["node2", cap("6000", "10000")]]), { node1: 62, node2: 50 });
  // Over capacity counts as full: 100 for cpu.
  const over = makePod("p", { requests: [{ cpu: "5000", memory: "0" }] });
  assert.deepEqual(fitScores(M, over, [["node1", cap("4000", "10000")]]), { node1: 50 });
  const R = ScoringStrategyType.REQUESTED_TO_CAPACITY_RATIO;
  const leastShape = [
    { utilization: 0, score: 10 },
    { utilization: 100, score: 0 },
  ];
  assert.deepEqual(fitScores(R, makePod("p"), [["node1", cap("4000", "10000")], ["node2", cap("4000", "10000")]], [], DEFAULT_RESOURCES, leastShape), { node1: 100, node2: 100 });
  // cpu 75% -> 25, memory 50% -> 50: round(75 / 2) = 38; node2 50/50.
  assert.deepEqual(fitScores(R, reqPod(), [["node1", cap("4000", "10000")], ["node2", cap("6000", "10000")]], [], DEFAULT_RESOURCES, leastShape), { node1: 38, node2: 50 });
  const mostShape = [
    { utilization: 0, score: 0 },
    { utilization: 100, score: 10 },
  ];
  assert.deepEqual(fitScores(R, reqPod(), [["node1", cap("4000", "10000")], ["node2", cap("6000", "10000")]], [], DEFAULT_RESOURCES, mostShape), { node1: 63, node2: 50 });
});

function balanced(pod: Pod, nodes: [string, Record<string, string>][], existing: Pod[] = [], resources: readonly ResourceSpec[] = DEFAULT_RESOURCES): Record<string, number> | "skip" {
  const c = cluster(nodes.map(([name, alloc]) => makeNode(name, { allocatable: alloc })), existing);
  return scoreAll(balancedAllocationPlugin({ resources }), pod, c);
}

test("TestNodeResourcesBalancedAllocation", () => {
  const two = (cpu1: string, mem1: string, cpu2: string, mem2: string): Record<string, string>[] => [
    { cpu: cpu1, memory: mem1 },
    { cpu: cpu2, memory: mem2 },
  ];
  const cpuAndMemory = (name: string, node?: string): Pod => makePod(name, { requests: two("1000m", "2000", "2000m", "3000"), ...(node === undefined ? {} : { nodeName: node }) });
  const cpuOnly = (name: string, node: string): Pod => makePod(name, { requests: two("1000m", "0", "2000m", "0"), nodeName: node });
  const mk = (cpu: number, mem: number): Record<string, string> => ({ cpu: `${cpu}m`, memory: String(mem) });
  assert.deepEqual(balanced(makePod("p"), [["node1", mk(4000, 10000)], ["node2", mk(4000, 10000)]]), { node1: 100, node2: 100 }, "nothing requested (1.30 scores it)");
  assert.deepEqual(balanced(cpuAndMemory("p"), [["node1", mk(4000, 10000)], ["node2", mk(6000, 10000)]]), { node1: 87, node2: 100 });
  const pods = [cpuOnly("a", "node1"), cpuAndMemory("b", "node2")];
  assert.deepEqual(balanced(cpuAndMemory("p"), [["node1", mk(10000, 20000)], ["node2", mk(10000, 20000)]], pods), { node1: 82, node2: 95 });
  assert.deepEqual(balanced(cpuAndMemory("p"), [["node1", mk(10000, 20000)], ["node2", mk(10000, 50000)]], pods), { node1: 82, node2: 80 });
  assert.deepEqual(balanced(cpuOnly("p", "x"), [["node1", mk(6000, 10000)], ["node2", mk(6000, 10000)]], pods), { node1: 50, node2: 75 }, "requested resources at node capacity");
  const gpuSet: ResourceSpec[] = [...DEFAULT_RESOURCES, { name: "nvidia.com/gpu", weight: 1 }];
  const gpuNode = { ...mk(3500, 40000), "nvidia.com/gpu": "8" };
  const withGpu = makePod("g", { nodeName: "node1", requests: [{ cpu: "1000m", memory: "2000" }, { cpu: "2000m", memory: "3000", "nvidia.com/gpu": "3" }] });
  const gpuPod = makePod("p", { requests: [{ memory: "0", "nvidia.com/gpu": "1" }] });
  assert.deepEqual(balanced(gpuPod, [["node1", gpuNode], ["node2", gpuNode]], [cpuAndMemory("b", "node2"), withGpu], gpuSet), { node1: 70, node2: 65 }, "include scalar resource");
  assert.deepEqual(balanced(cpuAndMemory("p"), [["node1", gpuNode], ["node2", mk(3500, 40000)]], [], gpuSet), { node1: 63, node2: 63 }, "a scalar the pod does not request is skipped");
});

// The scheduling cycle around the plugins: FitError text and its sorting (framework/types.go), the
// prefilter-result and preemption suffixes, percentageOfNodesToScore (numFeasibleNodesToFind) with the
// rotating start index, queue order (PrioritySort), preemption of lower-priority pods, selectHost ties.
import { test } from "node:test";
import assert from "node:assert/strict";
import { fitErrorMessage } from "../../src/scheduler/fit-error.js";
import { numFeasibleNodesToFind, selectHost } from "../../src/scheduler/select-host.js";
import { ObjectStore, type KubeObject } from "../../src/k8s/index.js";
import { Scheduler } from "../../src/scheduler/index.js";
import { SeededRng } from "../../src/util/rng.js";
import { makeNode, makePod } from "./harness.js";

test("FitError: reasons counted per node and sorted as Go's sort.Strings sorts '<count> <reason>'", () => {
  const st = (...reasons: string[]): { reasons: string[] } => ({ reasons });
  const statuses = [
    ...Array.from({ length: 10 }, () => st("node(s) didn't match Pod's node affinity/selector")),
    st("Insufficient cpu", "Insufficient memory"),
    st("Insufficient cpu"),
  ];
  assert.equal(
    fitErrorMessage(12, statuses, "", "preemption: x"),
    "0/12 nodes are available: 1 Insufficient memory, 10 node(s) didn't match Pod's node affinity/selector, 2 Insufficient cpu. preemption: x",
    "byte order: '1 ' < '10' < '2 '",
  );
  assert.equal(fitErrorMessage(3, [st("a"), st("a"), st("a")], "pod affinity terms conflict", ""), "0/3 nodes are available: pod affinity terms conflict.", "a PreFilter rejection replaces the histogram");
  assert.equal(fitErrorMessage(0, [], "", ""), "0/0 nodes are available:");
});

test("numFeasibleNodesToFind: small clusters completely, then 50% minus 1% per 125 nodes, at least 5% and 100 nodes", () => {
  const cases: [number, number, number][] = [
    [0, 50, 50],
    [0, 99, 99],
    [0, 100, 100],
    [0, 200, 100],
    [0, 1000, 420],
    [0, 5000, 500],
    [0, 6000, 300],
    [0, 10000, 500],
    [30, 1000, 300],
    [100, 5000, 5000],
    [1, 1000, 100],
  ];
  for (const [pct, nodes, want] of cases) assert.equal(numFeasibleNodesToFind(pct, nodes), want, `${pct}% of ${nodes}`);
});

test("selectHost: the highest total wins; ties are broken uniformly by reservoir sampling", () => {
  assert.equal(selectHost([3, 9, 4], new SeededRng(1)), 1);
  const rng = new SeededRng(42);
  const hits = [0, 0, 0, 0];
  for (let i = 0; i < 4000; i++) hits[selectHost([5, 7, 7, 7], rng)]!++;
  assert.equal(hits[0], 0);
  for (const h of hits.slice(1)) assert.ok(h > 1200 && h < 1470, `uniform among the three ties: ${hits.join(",")}`);
});

function bigCluster(nodes: number): ObjectStore {
  const store = new ObjectStore();
  for (let i = 0; i < nodes; i++) store.add(makeNode(`node-${String(i).padStart(4, "0")}`));
  return store;
}

test("percentageOfNodesToScore: only enough feasible nodes are looked at, and the next pod starts where the last stopped", () => {
  const store = bigCluster(200);
  const s = new Scheduler(store, { rng: new SeededRng(1) });
  store.add(makePod("a"));
  store.add(makePod("b"));
  const [a, b] = s.scheduleAll();
  assert.equal(Object.keys(a!.filter).length, 100, "200 nodes: 100 are evaluated");
  assert.equal(Object.keys(a!.scores).length, 100);
  assert.ok(Object.keys(a!.filter).every((n) => n < "node-0100"), "the first pod looks at nodes 0-99");
  assert.ok(Object.keys(b!.filter).every((n) => n >= "node-0100"), "the second at nodes 100-199");
});

test("the queue takes higher priority first, then creation order", () => {
  const store = new ObjectStore();
  store.add(makeNode("n"));
  const s = new Scheduler(store, { rng: new SeededRng(1) });
  store.add(makePod("low-1", { priority: 0 }));
  store.add(makePod("high", { priority: 1000 }));
  store.add(makePod("low-2", { priority: 0 }));
  assert.deepEqual(s.pending(), ["default/high", "default/low-1", "default/low-2"]);
  assert.deepEqual(s.scheduleAll().map((r) => r.pod), ["default/high", "default/low-1", "default/low-2"]);
});

test("pods present before the scheduler starts are queued in creation order, not name order", () => {
  const store = new ObjectStore();
  store.add(makeNode("n"));
  for (const name of ["zeta", "alpha", "mid"]) store.add(makePod(name));
  assert.deepEqual(new Scheduler(store, { rng: new SeededRng(1) }).pending(), ["default/zeta", "default/alpha", "default/mid"]);
});

test("preemption: a higher-priority pod evicts the lower-priority pod that keeps it out, then binds", () => {
  const store = new ObjectStore();
  store.add(makeNode("n", { allocatable: { cpu: "1", memory: "1Gi", pods: "10" } }));
  const s = new Scheduler(store, { rng: new SeededRng(1) });
  store.add(makePod("victim", { priority: 0, requests: [{ cpu: "800m" }] }));
  assert.equal(s.scheduleAll()[0]!.node, "n");
  store.add(makePod("vip", { priority: 100, requests: [{ cpu: "500m" }] }));
  const [first, second] = s.scheduleAll();
  assert.equal(first!.node, null);
  assert.equal(first!.message, "0/1 nodes are available: 1 Insufficient cpu.", "preemption found room: no 'preemption:' suffix");
  assert.equal(first!.nominatedNode, "n");
  assert.equal(store.get("Pod", "default", "victim"), undefined, "the victim was evicted");
  const preempted = store.list("Event", { where: (e) => e.reason === "Preempted" })[0];
  assert.match(preempted?.message ?? "", /^Preempted by pod \S+ on node n$/);
  assert.equal(second!.node, "n", "retried on the victim's deletion, it now fits");
});

test("preemption: equal priority finds no victims; preemptionPolicy Never is not eligible", () => {
  const store = new ObjectStore();
  store.add(makeNode("n", { allocatable: { cpu: "1", memory: "1Gi", pods: "10" } }));
  const s = new Scheduler(store, { rng: new SeededRng(1) });
  store.add(makePod("holder", { requests: [{ cpu: "800m" }] }));
  store.add(makePod("peer", { requests: [{ cpu: "500m" }] }));
  const results = s.scheduleAll();
  assert.equal(results[1]!.message, "0/1 nodes are available: 1 Insufficient cpu. preemption: 0/1 nodes are available: 1 No preemption victims found for incoming pod.");
  store.add(makePod("polite", { priority: 100, requests: [{ cpu: "500m" }], spec: { preemptionPolicy: "Never" } }));
  assert.equal(s.scheduleAll()[0]!.message, "0/1 nodes are available: 1 Insufficient cpu. preemption: not eligible due to preemptionPolicy=Never.");
});

test("nodes a matchFields term excludes are 'filtered out by the prefilter result'; no nodes at all is its own message", () => {
  const store = new ObjectStore();
  const s = new Scheduler(store, { rng: new SeededRng(1) });
  const ds = makePod("ds-pod", {
    spec: { affinity: { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [{ matchFields: [{ key: "metadata.name", operator: "In", values: ["b"] }] }] } } } },
  });
  store.add(ds);
  assert.equal(s.scheduleAll()[0]!.message, "no nodes available to schedule pods");
  store.add(makeNode("a"));
  store.add(makeNode("b", { taints: [{ key: "k", value: "v", effect: "NoSchedule" }] }));
  store.add(makeNode("c"));
  assert.deepEqual(s.scheduleAll(), [], "none of the new nodes could take it (preCheckForNode): no retry");
  const r = s.scheduleOne("default/ds-pod");
  assert.equal(
    r!.message,
    "0/3 nodes are available: 1 node(s) had untolerated taint {k: v}, 2 node is filtered out by the prefilter result. " +
      "preemption: 0/3 nodes are available: 3 Preemption is not helpful for scheduling.",
  );
});

test("a FailedScheduling event repeats as a series; the pod's PodScheduled condition carries the message", () => {
  const store = new ObjectStore();
  store.add(makeNode("n", { taints: [{ key: "k", effect: "NoSchedule" }] }));
  let t = 0;
  const s = new Scheduler(store, { rng: new SeededRng(1), clock: { now: () => `2024-06-20T10:00:0${t++}.000000Z` } });
  store.add(makePod("p"));
  s.scheduleAll();
  store.modify("Pod", "default", "p", (p) => {
    p.metadata.labels = { changed: "yes" };
  });
  s.scheduleAll();
  const events = store.list("Event", { where: (e) => e.reason === "FailedScheduling" }) as KubeObject<"Event">[];
  assert.equal(events.length, 1);
  assert.deepEqual(events[0]!.series, { count: 2, lastObservedTime: "2024-06-20T10:00:03.000000Z" });
  assert.equal(events[0]!.reportingComponent, "default-scheduler");
  const cond = store.get("Pod", "default", "p")!.status!.conditions![0]!;
  assert.deepEqual([cond.type, cond.status, cond.reason], ["PodScheduled", "False", "Unschedulable"]);
  assert.equal(cond.lastTransitionTime, "2024-06-20T10:00:00.000000Z", "unchanged status keeps its transition time");
});

// PodTopologySpread, ported from upstream's podtopologyspread filtering_test.go (TestSingleConstraint,
// TestMultipleConstraints), plus scoring and the system default constraints (hostname maxSkew 3,
// zone maxSkew 5, ScheduleAnyway) over the group a pod's ReplicaSet selects.
import { test } from "node:test";
import assert from "node:assert/strict";
import type { TopologySpreadConstraint } from "kubernetes-types/core/v1.js";
import type { KubeObject } from "../../src/k8s/index.js";
import { DEFAULT_PLUGIN_ARGS } from "../../src/scheduler/config/args.js";
import { podTopologySpreadPlugin } from "../../src/scheduler/plugins/podtopologyspread/plugin.js";
import { cluster, codes, filterAll, makeNode, makePod, scoreAll } from "./harness.js";

const S = "Success";
const U = "Unschedulable";
const UU = "UnschedulableAndUnresolvable";

const spread = (maxSkew: number, topologyKey: string, key = "foo", when: "DoNotSchedule" | "ScheduleAnyway" = "DoNotSchedule"): TopologySpreadConstraint => ({
  maxSkew,
  topologyKey,
  whenUnsatisfiable: when,
  labelSelector: { matchExpressions: [{ key, operator: "Exists" }] },
});
const zoneNode = (name: string, zone: string): KubeObject<"Node"> => makeNode(name, { labels: { zone, node: name } });
const abxy = [zoneNode("node-a", "zone1"), zoneNode("node-b", "zone1"), zoneNode("node-x", "zone2"), zoneNode("node-y", "zone2")];
const on = (name: string, node: string, labels: Record<string, string> = { foo: "" }, namespace?: string): KubeObject<"Pod"> =>
  makePod(name, { nodeName: node, labels, ...(namespace === undefined ? {} : { namespace }) });
const incoming = (constraints: TopologySpreadConstraint[], labels: Record<string, string> = { foo: "" }, spec = {}): KubeObject<"Pod"> =>
  makePod("p", { labels, spec: { topologySpreadConstraints: constraints, ...spec } });

function filterCodes(pod: KubeObject<"Pod">, nodes: KubeObject<"Node">[], existing: KubeObject<"Pod">[]): Record<string, string> {
  const c = cluster(nodes, existing);
  return codes(filterAll(podTopologySpreadPlugin(c.handle, DEFAULT_PLUGIN_ARGS.PodTopologySpread), pod, c).nodes);
}

const twoOneZeroThree = (): KubeObject<"Pod">[] => [on("p-a1", "node-a"), on("p-a2", "node-a"), on("p-b1", "node-b"), on("p-y1", "node-y"), on("p-y2", "node-y"), on("p-y3", "node-y")];

test("TestSingleConstraint", () => {
  const all = { "node-a": S, "node-b": S, "node-x": S, "node-y": S };
  assert.deepEqual(filterCodes(incoming([spread(1, "zone")]), abxy, []), all, "no existing pods");
  assert.deepEqual(filterCodes(incoming([spread(1, "zone", "bar")]), abxy, []), all, "incoming pod doesn't match itself");
  const otherNs = [on("p-a1", "node-a", { foo: "" }, "ns1"), on("p-b1", "node-a", { foo: "" }, "ns2"), on("p-x1", "node-x"), on("p-y1", "node-y")];
  assert.deepEqual(filterCodes(incoming([spread(1, "zone")]), abxy, otherNs), { "node-a": S, "node-b": S, "node-x": U, "node-y": U }, "other namespaces do not count");
  const threeThree = [on("p-a1", "node-a"), on("p-a2", "node-a"), on("p-b1", "node-b"), on("p-y1", "node-y"), on("p-y2", "node-y"), on("p-y3", "node-y")];
  assert.deepEqual(filterCodes(incoming([spread(1, "zone")]), abxy, threeThree), all, "3/3 across zones");
  const typo = [zoneNode("node-a", "zone1"), makeNode("node-b", { labels: { zon: "zone1", node: "node-b" } }), zoneNode("node-x", "zone2"), zoneNode("node-y", "zone2")];
  const oneEach = [on("p-a1", "node-a"), on("p-b1", "node-b"), on("p-x1", "node-x"), on("p-y1", "node-y")];
  assert.deepEqual(filterCodes(incoming([spread(1, "zone")]), typo, oneEach), { "node-a": S, "node-b": UU, "node-x": U, "node-y": U }, "node-b lacks the zone label");
  assert.deepEqual(filterCodes(incoming([spread(1, "rack")]), [zoneNode("node-a", "zone1"), zoneNode("node-x", "zone2")], []), { "node-a": UU, "node-x": UU }, "no node has 'rack'");
  assert.deepEqual(filterCodes(incoming([spread(1, "node")]), abxy, twoOneZeroThree()), { "node-a": U, "node-b": U, "node-x": S, "node-y": U }, "2/1/0/3");
  assert.deepEqual(filterCodes(incoming([spread(2, "node")]), abxy, twoOneZeroThree()), { "node-a": U, "node-b": S, "node-x": S, "node-y": U }, "maxSkew 2");
  assert.deepEqual(filterCodes(incoming([spread(1, "node")], { bar: "" }), abxy, twoOneZeroThree()), { "node-a": U, "node-b": S, "node-x": S, "node-y": U }, "pod doesn't match itself");
  const affinityAY = { affinity: { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [{ matchExpressions: [{ key: "node", operator: "In", values: ["node-a", "node-y"] }] }] } } } };
  assert.deepEqual(filterCodes(incoming([spread(1, "node")], { foo: "" }, affinityAY), abxy, twoOneZeroThree()), { "node-a": S, "node-b": S, "node-x": S, "node-y": U }, "nodeAffinity honored");
  const ab = [makeNode("node-a", { labels: { node: "node-a" } }), makeNode("node-b", { labels: { node: "node-b" } })];
  const term = [makePod("p-a", { nodeName: "node-a", labels: { foo: "" }, terminating: true }), on("p-b", "node-b")];
  assert.deepEqual(filterCodes(incoming([spread(1, "node")]), ab, term), { "node-a": S, "node-b": U }, "terminating pods are excluded");
});

test("TestMultipleConstraints", () => {
  const both = [spread(1, "zone"), spread(1, "node")];
  assert.deepEqual(filterCodes(incoming(both), abxy, twoOneZeroThree()), { "node-a": U, "node-b": U, "node-x": S, "node-y": U }, "[3/3, 2/1/0/3]");
  assert.deepEqual(filterCodes(incoming(both), abxy, [...twoOneZeroThree(), on("p-y4", "node-y")]), { "node-a": U, "node-b": U, "node-x": U, "node-y": U }, "[3/4, 2/1/0/4]");
});

test("minDomains: fewer domains than minDomains make the global minimum 0", () => {
  const c: TopologySpreadConstraint = { ...spread(1, "zone"), minDomains: 3 };
  const existing = [on("p-a1", "node-a"), on("p-x1", "node-x")];
  assert.deepEqual(filterCodes(incoming([c]), abxy, existing), { "node-a": U, "node-b": U, "node-x": U, "node-y": U });
  assert.deepEqual(filterCodes(incoming([spread(1, "zone")]), abxy, existing), { "node-a": S, "node-b": S, "node-x": S, "node-y": S });
});

test("ScheduleAnyway scoring: fewer matching pods in the domain score higher", () => {
  const c = cluster(abxy, twoOneZeroThree());
  const scores = scoreAll(podTopologySpreadPlugin(c.handle, DEFAULT_PLUGIN_ARGS.PodTopologySpread), incoming([spread(1, "node", "foo", "ScheduleAnyway")]), c);
  // raw = count x ln(4 + 2) + 0 -> a 2*1.79=3.58->4, b 1.79->2, x 0, y 5.38->5; normalized 100*(max+min-s)/max with max 5, min 0.
  assert.deepEqual(scores, { "node-a": 20, "node-b": 60, "node-x": 100, "node-y": 0 });
  const none = scoreAll(podTopologySpreadPlugin(c.handle, DEFAULT_PLUGIN_ARGS.PodTopologySpread), makePod("loner", { labels: { foo: "" } }), c);
  assert.equal(none, "skip", "no constraints and no owning group: nothing to spread");
});

test("system default constraints spread a ReplicaSet's pods by hostname (maxSkew 3), nodes without a zone still count", () => {
  const rs = {
    apiVersion: "apps/v1",
    kind: "ReplicaSet",
    metadata: { name: "web-abc", namespace: "default" },
    spec: { selector: { matchLabels: { app: "web" } }, template: { metadata: { labels: { app: "web" } }, spec: { containers: [] } } },
  } as KubeObject;
  const owned = (name: string, node?: string): KubeObject<"Pod"> => {
    const p = makePod(name, { labels: { app: "web" }, ...(node === undefined ? {} : { nodeName: node }) });
    p.metadata.ownerReferences = [{ apiVersion: "apps/v1", kind: "ReplicaSet", name: "web-abc", uid: "u", controller: true }];
    return p;
  };
  const nodes = [makeNode("w1", { labels: { "kubernetes.io/hostname": "w1" } }), makeNode("w2", { labels: { "kubernetes.io/hostname": "w2" } })];
  const c = cluster(nodes, [owned("a", "w2"), owned("b", "w2")], undefined, [rs]);
  // w1: 0 x ln(4) + 2 = 2; w2: 2 x 1.386 + 2 = 4.77 -> 5; normalized: w1 100*(5+2-2)/5 = 100, w2 100*(7-5)/5 = 40.
  assert.deepEqual(scoreAll(podTopologySpreadPlugin(c.handle, DEFAULT_PLUGIN_ARGS.PodTopologySpread), owned("new"), c), { w1: 100, w2: 40 });
  assert.deepEqual(filterAll(podTopologySpreadPlugin(c.handle, DEFAULT_PLUGIN_ARGS.PodTopologySpread), owned("new"), c).pre?.code, "Skip", "defaults are soft: no filtering");
});

// NodeAffinity, ported from upstream's node_affinity_test.go (TestNodeAffinity, TestNodeAffinityPriority):
// nodeSelector, required terms ORed / expressions ANDed, operators incl. Gt, matchFields metadata.name
// in PreFilter, the scheduler-enforced addedAffinity, and preferred weights normalized to 0-100.
import { test } from "node:test";
import assert from "node:assert/strict";
import type { NodeAffinity, NodeSelectorTerm, PodSpec } from "kubernetes-types/core/v1.js";
import { nodeAffinityPlugin } from "../../src/scheduler/plugins/node-affinity.js";
import { cluster, filterAll, makeNode, makePod, scoreAll } from "./harness.js";

const POD_REASON = "node(s) didn't match Pod's node affinity/selector";
const required = (...terms: NodeSelectorTerm[]): Partial<PodSpec> => ({ affinity: { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: terms } } } });
const expr = (key: string, operator: string, values?: string[]): NodeSelectorTerm => ({ matchExpressions: [values === undefined ? { key, operator } : { key, operator, values }] });
const nameIn = (...names: string[]): NonNullable<NodeSelectorTerm["matchFields"]>[number] => ({ key: "metadata.name", operator: "In", values: names });

/** One case of TestNodeAffinity: the Filter reason on a node with these labels (null = fits). */
function verdict(spec: Partial<PodSpec>, labels: Record<string, string>, nodeName = "node1", added?: NodeAffinity): { filter: string | null; pre: string | null; names?: string[] } {
  const c = cluster([makeNode(nodeName, { labels })]);
  const r = filterAll(nodeAffinityPlugin(added === undefined ? {} : { addedAffinity: added }), makePod("p", { spec }), c);
  const s = r.nodes[nodeName]!;
  const out: { filter: string | null; pre: string | null; names?: string[] } = { filter: s === null ? null : s.reasons.join(), pre: r.pre === null ? null : `${r.pre.code}:${r.pre.reasons.join()}` };
  if (r.nodeNames !== undefined) out.names = [...r.nodeNames].sort();
  return out;
}

test("TestNodeAffinity: nodeSelector cases (missing labels, same labels, superset, subset)", () => {
  assert.equal(verdict({ nodeSelector: { foo: "bar" } }, {}).filter, POD_REASON);
  assert.equal(verdict({ nodeSelector: { foo: "bar" } }, { foo: "bar" }).filter, null);
  assert.equal(verdict({ nodeSelector: { foo: "bar" } }, { foo: "bar", baz: "blah" }).filter, null);
  assert.equal(verdict({ nodeSelector: { foo: "bar", baz: "blah" } }, { foo: "bar" }).filter, POD_REASON);
});

test("TestNodeAffinity: operators In, Gt, NotIn, Exists and a non-matching In", () => {
  assert.equal(verdict(required(expr("foo", "In", ["bar", "value2"])), { foo: "bar" }).filter, null);
  assert.equal(verdict(required(expr("kernel-version", "Gt", ["0204"])), { "kernel-version": "0206" }).filter, null);
  assert.equal(verdict(required(expr("mem-type", "NotIn", ["DDR", "DDR2"])), { "mem-type": "DDR3" }).filter, null);
  assert.equal(verdict(required(expr("GPU", "Exists")), { GPU: "NVIDIA-GRID-K1" }).filter, null);
  assert.equal(verdict(required(expr("foo", "In", ["value1", "value2"])), { foo: "bar" }).filter, POD_REASON);
  assert.equal(verdict(required(expr("kernel-version", "Lt", ["0204"])), { "kernel-version": "0206" }).filter, POD_REASON, "Lt is the mirror of Gt");
});

test("TestNodeAffinity: an empty term matches nothing; no affinity (or nil required) skips the plugin", () => {
  assert.equal(verdict(required({ matchExpressions: [] }), { foo: "bar" }).filter, POD_REASON);
  assert.deepEqual(verdict({}, { foo: "bar" }), { filter: null, pre: "Skip:" });
  assert.deepEqual(verdict({ affinity: { nodeAffinity: {} } }, { foo: "bar" }), { filter: null, pre: "Skip:" });
});

test("TestNodeAffinity: expressions ANDed, terms ORed, nodeSelector and affinity both required, invalid values match nothing", () => {
  const and = (op: string, values: string[]): NodeSelectorTerm => ({ matchExpressions: [{ key: "GPU", operator: "Exists" }, { key: "GPU", operator: op, values }] });
  assert.equal(verdict(required(and("NotIn", ["AMD", "INTER"])), { GPU: "NVIDIA-GRID-K1" }).filter, null);
  assert.equal(verdict(required(and("In", ["AMD", "INTER"])), { GPU: "NVIDIA-GRID-K1" }).filter, POD_REASON);
  assert.equal(verdict(required(expr("foo", "In", ["bar", "value2"]), expr("diffkey", "In", ["wrong", "value2"])), { foo: "bar" }).filter, null);
  assert.equal(verdict({ nodeSelector: { foo: "bar" }, ...required(expr("foo", "Exists")) }, { foo: "bar" }).filter, null);
  assert.equal(verdict({ nodeSelector: { foo: "bar" }, ...required(expr("foo", "Exists")) }, { foo: "barrrrrr" }).filter, POD_REASON);
  assert.equal(verdict(required(expr("foo", "NotIn", ["invalid value: ___@#$%^"])), { foo: "bar" }).filter, POD_REASON);
});

test("TestNodeAffinity: matchFields metadata.name narrows PreFilter to the named nodes", () => {
  assert.deepEqual(verdict(required({ matchFields: [nameIn("node1")] }), {}, "node1"), { filter: null, pre: null, names: ["node1"] });
  assert.deepEqual(verdict(required({ matchFields: [nameIn("node1")] }), {}, "node2"), { filter: POD_REASON, pre: null, names: ["node1"] });
  // two terms: the second has no name restriction, so every node stays a candidate
  assert.deepEqual(verdict(required({ matchFields: [nameIn("node1"), nameIn("node2")] }, expr("foo", "In", ["bar"])), { foo: "bar" }, "node2"), {
    filter: null,
    pre: null,
  });
  assert.deepEqual(verdict(required({ matchFields: [nameIn("node1")], matchExpressions: [{ key: "foo", operator: "In", values: ["bar"] }] }), { foo: "bar" }, "node2"), {
    filter: POD_REASON,
    pre: null,
    names: ["node1"],
  });
  assert.deepEqual(verdict(required({ matchFields: [nameIn("node1")] }, { matchFields: [nameIn("node2")] }), {}, "node2"), { filter: null, pre: null, names: ["node1", "node2"] });
  assert.deepEqual(verdict(required({ matchFields: [nameIn("node1"), nameIn("node2")] }), { foo: "bar" }, "node2"), {
    filter: POD_REASON,
    pre: "UnschedulableAndUnresolvable:pod affinity terms conflict",
  });
});

test("TestNodeAffinity: the profile's addedAffinity is enforced on every pod", () => {
  const added: NodeAffinity = { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [{ matchFields: [nameIn("node2")] }] } };
  assert.equal(verdict(required(expr("zone", "In", ["foo"])), { zone: "foo" }, "node2", added).filter, null);
  assert.equal(verdict(required(expr("zone", "In", ["bar"])), { zone: "foo" }, "node2", added).filter, POD_REASON);
  const zoneBar: NodeAffinity = { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [expr("zone", "In", ["bar"])] } };
  assert.equal(verdict({}, { zone: "foo" }, "node2", zoneBar).filter, "node(s) didn't match scheduler-enforced node affinity");
});

test("TestNodeAffinityPriority: summed weights of matching preferred terms, normalized by the best node", () => {
  const pref = (weight: number, ...e: [string, string][]): NonNullable<NodeAffinity["preferredDuringSchedulingIgnoredDuringExecution"]>[number] => ({
    weight,
    preference: { matchExpressions: e.map(([key, v]) => ({ key, operator: "In", values: [v] })) },
  });
  const affinity1: NodeAffinity = { preferredDuringSchedulingIgnoredDuringExecution: [pref(2, ["foo", "bar"])] };
  const affinity2: NodeAffinity = {
    preferredDuringSchedulingIgnoredDuringExecution: [pref(2, ["foo", "bar"]), pref(4, ["key", "value"]), pref(5, ["foo", "bar"], ["key", "value"], ["az", "az1"])],
  };
  const label1 = { foo: "bar" };
  const label2 = { key: "value" };
  const label3 = { az: "az1" };
  const label4 = { abc: "az11", def: "az22" };
  const label5 = { foo: "bar", key: "value", az: "az1" };
  const c123 = cluster([makeNode("node1", { labels: label1 }), makeNode("node2", { labels: label2 }), makeNode("node3", { labels: label3 })]);
  assert.equal(scoreAll(nodeAffinityPlugin(), makePod("p"), c123), "skip", "all nodes are same priority as NodeAffinity is nil");
  const c423 = cluster([makeNode("node1", { labels: label4 }), makeNode("node2", { labels: label2 }), makeNode("node3", { labels: label3 })]);
  assert.deepEqual(scoreAll(nodeAffinityPlugin(), makePod("p", { spec: { affinity: { nodeAffinity: affinity1 } } }), c423), { node1: 0, node2: 0, node3: 0 });
  assert.deepEqual(scoreAll(nodeAffinityPlugin(), makePod("p", { spec: { affinity: { nodeAffinity: affinity1 } } }), c123), { node1: 100, node2: 0, node3: 0 });
  const c152 = cluster([makeNode("node1", { labels: label1 }), makeNode("node5", { labels: label5 }), makeNode("node2", { labels: label2 })]);
  assert.deepEqual(scoreAll(nodeAffinityPlugin(), makePod("p", { spec: { affinity: { nodeAffinity: affinity2 } } }), c152), { node1: 18, node5: 100, node2: 36 });
  const c12 = cluster([makeNode("node1", { labels: label1 }), makeNode("node2", { labels: label2 })]);
  assert.deepEqual(scoreAll(nodeAffinityPlugin({ addedAffinity: affinity1 }), makePod("p"), c12), { node1: 100, node2: 0 }, "added affinity");
  const c125 = cluster([makeNode("node1", { labels: label1 }), makeNode("node2", { labels: label2 }), makeNode("node3", { labels: label5 })]);
  const addedKey: NodeAffinity = { preferredDuringSchedulingIgnoredDuringExecution: [pref(3, ["key", "value"])] };
  assert.deepEqual(scoreAll(nodeAffinityPlugin({ addedAffinity: addedKey }), makePod("p", { spec: { affinity: { nodeAffinity: affinity1 } } }), c125), {
    node1: 40,
    node2: 60,
    node3: 100,
  });
});

// InterPodAffinity, ported from upstream's interpodaffinity filtering_test.go
// (TestRequiredAffinitySingleNode; v1.30 reports one reason per rejection) and scoring_test.go
// (TestPreferredAffinity), plus the hardPodAffinityWeight and namespaceSelector cases.
import { test } from "node:test";
import assert from "node:assert/strict";
import type { Affinity, PodAffinityTerm, WeightedPodAffinityTerm } from "kubernetes-types/core/v1.js";
import type { LabelSelectorRequirement } from "kubernetes-types/meta/v1.js";
import type { KubeObject } from "../../src/k8s/index.js";
import { DEFAULT_PLUGIN_ARGS } from "../../src/scheduler/config/args.js";
import { interPodAffinityPlugin } from "../../src/scheduler/plugins/interpodaffinity/plugin.js";
import { cluster, filterAll, makeNode, makePod, scoreAll } from "./harness.js";

const AFFINITY = "node(s) didn't match pod affinity rules";
const ANTI = "node(s) didn't match pod anti-affinity rules";
const EXISTING = "node(s) didn't satisfy existing pods anti-affinity rules";

const sel = (...exprs: [string, string, string[]?][]): { matchExpressions: LabelSelectorRequirement[] } => ({
  matchExpressions: exprs.map(([key, operator, values]) => (values === undefined ? { key, operator } : { key, operator, values })),
});
const term = (topologyKey: string, ...exprs: [string, string, string[]?][]): PodAffinityTerm => ({ labelSelector: sel(...exprs), topologyKey });
const withTerms = (affinity: PodAffinityTerm[] | null, anti: PodAffinityTerm[] | null): Affinity => ({
  podAffinity: { requiredDuringSchedulingIgnoredDuringExecution: affinity ?? [] },
  podAntiAffinity: { requiredDuringSchedulingIgnoredDuringExecution: anti ?? [] },
});

let n = 0;
const pod = (labels: Record<string, string>, affinity?: Affinity, nodeName?: string, namespace?: string): KubeObject<"Pod"> =>
  makePod(`p${++n}`, { labels, ...(nodeName === undefined ? {} : { nodeName }), ...(namespace === undefined ? {} : { namespace }), spec: affinity === undefined ? {} : { affinity } });

const securityscan = { service: "securityscan" };
const s1 = { security: "S1" };
const node1 = makeNode("machine1", { labels: { region: "r1", zone: "z11" } });

function single(incoming: KubeObject<"Pod">, existing: KubeObject<"Pod">[]): string | null {
  const c = cluster([node1], existing);
  const r = filterAll(interPodAffinityPlugin(c.handle, DEFAULT_PLUGIN_ARGS.InterPodAffinity), incoming, c);
  const s = r.nodes["machine1"]!;
  return s === null ? null : `${s.code}: ${s.reasons.join()}`;
}

test("TestRequiredAffinitySingleNode", () => {
  const onM1 = pod(securityscan, undefined, "machine1");
  assert.equal(single(makePod("plain"), []), null, "no required pod affinity, no existing pods");
  assert.equal(single(pod(s1, withTerms([term("region", ["service", "In", ["securityscan", "value2"]])], null)), [onM1]), null, "In matches the existing pod");
  assert.equal(single(pod(s1, withTerms([term("region", ["service", "NotIn", ["securityscan3", "value3"]])], null)), [onM1]), null, "NotIn");
  const otherNs: PodAffinityTerm = { ...term("", ["service", "In", ["securityscan", "value2"]]), namespaces: ["DiffNameSpace"] };
  assert.equal(single(pod(s1, withTerms([otherNs], null)), [pod(securityscan, undefined, "machine1", "ns")]), `UnschedulableAndUnresolvable: ${AFFINITY}`, "different namespace");
  assert.equal(single(pod(securityscan, withTerms([term("", ["service", "In", ["antivirusscan", "value2"]])], null)), [onM1]), `UnschedulableAndUnresolvable: ${AFFINITY}`);
  const multi = [term("region", ["service", "Exists"], ["wrongkey", "DoesNotExist"]), term("region", ["service", "In", ["securityscan"]], ["service", "NotIn", ["WrongValue"]])];
  assert.equal(single(pod(s1, withTerms(multi, null)), [onM1]), null, "different operators in several terms");
  const multiBad = [term("region", ["service", "Exists"], ["wrongkey", "DoesNotExist"]), term("region", ["service", "In", ["securityscan2"]], ["service", "NotIn", ["WrongValue"]])];
  assert.equal(single(pod(s1, withTerms(multiBad, null)), [onM1]), `UnschedulableAndUnresolvable: ${AFFINITY}`, "requirements are ANDed");
  const aff = [term("region", ["service", "In", ["securityscan", "value2"]])];
  const antiOther = [term("node", ["service", "In", ["antivirusscan", "value2"]])];
  assert.equal(single(pod(s1, withTerms(aff, antiOther)), [onM1]), null, "affinity and anti-affinity satisfied");
  assert.equal(single(pod(s1, withTerms(aff, antiOther)), [pod(securityscan, withTerms(null, antiOther), "machine1")]), null, "and the symmetric anti-affinity");
  const antiZone = [term("zone", ["service", "In", ["securityscan", "value2"]])];
  assert.equal(single(pod(s1, withTerms(aff, antiZone)), [onM1]), `Unschedulable: ${ANTI}`, "pod anti-affinity hit");
  assert.equal(single(pod(securityscan, withTerms(aff, antiOther)), [pod(securityscan, withTerms(null, antiZone), "machine1")]), `Unschedulable: ${EXISTING}`, "existing pod's anti-affinity");
  assert.equal(single(pod(securityscan, withTerms([term("region", ["service", "NotIn", ["securityscan", "value2"]])], null)), [pod(securityscan, undefined, "machine2")]), `UnschedulableAndUnresolvable: ${AFFINITY}`);
  assert.equal(single(pod(securityscan), [pod(securityscan, withTerms(null, antiZone), "machine1")]), `Unschedulable: ${EXISTING}`, "existing anti-affinity without own terms");
  const antiNotIn = [term("zone", ["service", "NotIn", ["securityscan", "value2"]])];
  assert.equal(single(pod(securityscan), [pod(securityscan, withTerms(null, antiNotIn), "machine1")]), null);
});

test("required affinity: the first pod of a self-affine group may go anywhere with the topology labels", () => {
  const self = withTerms([term("zone", ["app", "In", ["db"]])], null);
  assert.equal(single(pod({ app: "db" }, self), []), null, "nothing matches yet and the pod matches its own term");
  assert.equal(single(pod({ app: "web" }, self), []), `UnschedulableAndUnresolvable: ${AFFINITY}`, "it does not match its own term");
  const c = cluster([makeNode("nozone")]);
  const r = filterAll(interPodAffinityPlugin(c.handle, DEFAULT_PLUGIN_ARGS.InterPodAffinity), pod({ app: "db" }, self), c);
  assert.deepEqual(r.nodes["nozone"]?.reasons, [AFFINITY], "the topology label must exist");
});

const weighted = (weight: number, topologyKey: string, ...exprs: [string, string, string[]?][]): WeightedPodAffinityTerm => ({ weight, podAffinityTerm: term(topologyKey, ...exprs) });
const stayWithS1InRegion: Affinity = { podAffinity: { preferredDuringSchedulingIgnoredDuringExecution: [weighted(5, "region", ["security", "In", ["S1"]])] } };
const stayWithS2InRegion: Affinity = { podAffinity: { preferredDuringSchedulingIgnoredDuringExecution: [weighted(6, "region", ["security", "In", ["S2"]])] } };
const affinity3: Affinity = {
  podAffinity: {
    preferredDuringSchedulingIgnoredDuringExecution: [
      weighted(8, "region", ["security", "NotIn", ["S1"]], ["security", "In", ["S2"]]),
      weighted(2, "region", ["security", "Exists"], ["wrongkey", "DoesNotExist"]),
    ],
  },
};
const hardAffinity: Affinity = {
  podAffinity: {
    requiredDuringSchedulingIgnoredDuringExecution: [term("region", ["security", "In", ["S1", "value2"]]), term("region", ["security", "Exists"], ["wrongkey", "DoesNotExist"])],
  },
};
const awayFromS1InAz: Affinity = { podAntiAffinity: { preferredDuringSchedulingIgnoredDuringExecution: [weighted(5, "az", ["security", "In", ["S1"]])] } };
const awayFromS2InAz: Affinity = { podAntiAffinity: { preferredDuringSchedulingIgnoredDuringExecution: [weighted(5, "az", ["security", "In", ["S2"]])] } };
const stayS1AwayS2: Affinity = {
  podAffinity: { preferredDuringSchedulingIgnoredDuringExecution: [weighted(8, "region", ["security", "In", ["S1"]])] },
  podAntiAffinity: { preferredDuringSchedulingIgnoredDuringExecution: [weighted(5, "az", ["security", "In", ["S2"]])] },
};
const nsSelectorTerm = (): WeightedPodAffinityTerm => ({
  weight: 5,
  podAffinityTerm: { ...term("region", ["security", "In", ["S1"]]), namespaces: ["subteam2.team2"], namespaceSelector: sel(["team", "In", ["team1"]]) },
});
const affinityNamespaceSelector: Affinity = { podAffinity: { preferredDuringSchedulingIgnoredDuringExecution: [nsSelectorTerm()] } };
const antiAffinityNamespaceSelector: Affinity = { podAntiAffinity: { preferredDuringSchedulingIgnoredDuringExecution: [nsSelectorTerm()] } };
const namespaces: KubeObject[] = [
  ["subteam1.team1", "team1"],
  ["subteam2.team1", "team1"],
  ["subteam1.team2", "team2"],
  ["subteam2.team2", "team2"],
].map(([name, team]) => ({ apiVersion: "v1", kind: "Namespace", metadata: { name: name!, labels: { team: team! } } }) as KubeObject);

const rgChina = { region: "China" };
const rgIndia = { region: "India" };
const azAz1 = { az: "az1" };
const azAz2 = { az: "az2" };
const rgChinaAzAz1 = { region: "China", az: "az1" };
const s2 = { security: "S2" };

function preferred(incoming: KubeObject<"Pod">, existing: KubeObject<"Pod">[], nodes: [string, Record<string, string>][]): Record<string, number> | "skip" {
  const c = cluster(
    nodes.map(([name, labels]) => makeNode(name, { labels })),
    existing,
    undefined,
    namespaces,
  );
  return scoreAll(interPodAffinityPlugin(c.handle, DEFAULT_PLUGIN_ARGS.InterPodAffinity), incoming, c);
}

test("TestPreferredAffinity: preferred (anti-)affinity of the incoming pod", () => {
  const three: [string, Record<string, string>][] = [
    ["node1", rgChina],
    ["node2", rgIndia],
    ["node3", azAz1],
  ];
  assert.equal(preferred(pod(s1), [], three), "skip", "all nodes are same priority as Affinity is nil");
  assert.deepEqual(preferred(pod(s1, stayWithS1InRegion), [pod(s1, undefined, "node1"), pod(s2, undefined, "node2"), pod(s1, undefined, "node3")], three), { node1: 100, node2: 0, node3: 0 });
  assert.deepEqual(
    preferred(pod({}, stayWithS1InRegion), [pod(s1, undefined, "node1")], [
      ["node1", rgChina],
      ["node2", rgChinaAzAz1],
      ["node3", rgIndia],
    ]),
    { node1: 100, node2: 100, node3: 0 },
    "same topology value, same score",
  );
  const five: [string, Record<string, string>][] = [
    ["node1", rgChina],
    ["node2", rgIndia],
    ["node3", rgChina],
    ["node4", rgChina],
    ["node5", rgIndia],
  ];
  const s2pods = ["node1", "node1", "node2", "node3", "node4", "node5"].map((nn) => pod(s2, undefined, nn));
  assert.deepEqual(preferred(pod(s1, stayWithS2InRegion), s2pods, five), { node1: 100, node2: 0, node3: 100, node4: 100, node5: 0 });
  assert.deepEqual(preferred(pod(s1, affinity3), [pod(s1, undefined, "node1"), pod(s2, undefined, "node2"), pod(s1, undefined, "node3")], three), { node1: 20, node2: 100, node3: 0 });
});

test("TestPreferredAffinity: symmetry (existing pods' preferred and required terms), namespace selectors, anti-affinity", () => {
  const three: [string, Record<string, string>][] = [
    ["node1", rgChina],
    ["node2", rgIndia],
    ["node3", azAz1],
  ];
  assert.deepEqual(preferred(pod(s2), [pod(s1, stayWithS1InRegion, "node1"), pod(s2, stayWithS2InRegion, "node2")], three), { node1: 0, node2: 100, node3: 0 });
  const inTeam1 = pod(s1, undefined, undefined, "subteam1.team1");
  assert.deepEqual(preferred(inTeam1, [pod(s1, affinityNamespaceSelector, "node1"), pod(s2, stayWithS2InRegion, "node2")], three), { node1: 100, node2: 0, node3: 0 });
  const inTeam1b = pod(s1, undefined, undefined, "subteam1.team1");
  assert.deepEqual(preferred(inTeam1b, [pod(s1, antiAffinityNamespaceSelector, "node1"), pod(s2, stayWithS2InRegion, "node2")], three), { node1: 0, node2: 100, node3: 100 });
  assert.deepEqual(preferred(pod(s1), [pod(s1, hardAffinity, "node1"), pod(s2, hardAffinity, "node2")], three), { node1: 100, node2: 100, node3: 0 }, "hardPodAffinityWeight");
  assert.deepEqual(preferred(pod(s1, awayFromS1InAz), [pod(s1, undefined, "node1"), pod(s2, undefined, "node2")], [["node1", azAz1], ["node2", rgChina]]), { node1: 0, node2: 100 });
  assert.deepEqual(preferred(pod(s1, awayFromS1InAz), [pod(s1, undefined, "node1"), pod(s1, undefined, "node2")], [["node1", azAz1], ["node2", rgChina]]), { node1: 0, node2: 100 });
  assert.deepEqual(
    preferred(pod(s1, awayFromS1InAz), [pod(s1, undefined, "node1"), pod(s1, undefined, "node1"), pod(s2, undefined, "node2")], [["node1", azAz1], ["node2", rgIndia]]),
    { node1: 0, node2: 100 },
  );
  assert.deepEqual(preferred(pod(s2), [pod(s1, awayFromS2InAz, "node1"), pod(s2, awayFromS1InAz, "node2")], [["node1", azAz1], ["node2", azAz2]]), { node1: 0, node2: 100 });
  assert.deepEqual(preferred(pod(s1, stayS1AwayS2), [pod(s1, undefined, "node1"), pod(s1, undefined, "node2")], [["node1", rgChina], ["node2", azAz1]]), { node1: 100, node2: 0 });
  const fiveLabels: [string, Record<string, string>][] = [
    ["node1", rgChinaAzAz1],
    ["node2", rgIndia],
    ["node3", rgChina],
    ["node4", rgChina],
    ["node5", rgIndia],
  ];
  const s1pods = ["node1", "node1", "node2", "node3", "node3", "node4", "node5"].map((nn) => pod(s1, undefined, nn));
  assert.deepEqual(preferred(pod(s1, stayS1AwayS2), s1pods, fiveLabels), { node1: 100, node2: 0, node3: 100, node4: 100, node5: 0 });
  const four: [string, Record<string, string>][] = [
    ["node1", rgChina],
    ["node2", azAz1],
    ["node3", rgIndia],
    ["node4", azAz2],
  ];
  assert.deepEqual(
    preferred(pod(s1, stayS1AwayS2), [pod(s1, undefined, "node1"), pod(s2, undefined, "node2"), pod({}, stayS1AwayS2, "node3"), pod({}, awayFromS1InAz, "node4")], four),
    { node1: 100, node2: 0, node3: 100, node4: 0 },
  );
  assert.deepEqual(
    preferred(pod(s1), [pod(s1, undefined, "node1"), pod({}, stayS1AwayS2, "node2")], [["node1", rgChina], ["node2", rgChina]]),
    { node1: 0, node2: 0 },
    "avoid panic when partial nodes in a topology don't have pods with affinity",
  );
});

// TaintToleration (ported from upstream taint_toleration_test.go: TestTaintTolerationFilter,
// TestTaintTolerationScore), with both wordings of the reason (v1.30 names the taint, v1.34.2+/v1.35
// hides it), and the small filters: NodeUnschedulable (node_unschedulable_test.go), NodeName
// (node_name_test.go), NodePorts (node_ports_test.go TestNodePorts).
import { test } from "node:test";
import assert from "node:assert/strict";
import type { ContainerPort, Taint, Toleration } from "kubernetes-types/core/v1.js";
import { nodeNamePlugin } from "../../src/scheduler/plugins/node-name.js";
import { nodePortsPlugin } from "../../src/scheduler/plugins/node-ports.js";
import { nodeUnschedulablePlugin } from "../../src/scheduler/plugins/node-unschedulable.js";
import { taintTolerationPlugin } from "../../src/scheduler/plugins/taint-toleration.js";
import { parseKubeVersion, type KubeVersion } from "../../src/scheduler/version.js";
import { cluster, filterAll, makeNode, makePod, scoreAll } from "./harness.js";

const v = (text: string): KubeVersion => parseKubeVersion(text)!;

function taintFilter(tolerations: Toleration[], taints: Taint[], version = "v1.30.2"): string | null {
  const c = cluster([makeNode("nodeA", { taints })], [], v(version));
  const s = filterAll(taintTolerationPlugin(c.handle), makePod("pod1", { spec: { tolerations } }), c).nodes["nodeA"]!;
  return s === null ? null : `${s.code}: ${s.reasons.join()}`;
}

test("TestTaintTolerationFilter cases, with kube-scheduler 1.30's reason naming the first untolerated taint", () => {
  const dedicated1: Taint = { key: "dedicated", value: "user1", effect: "NoSchedule" };
  assert.equal(taintFilter([], [dedicated1]), "UnschedulableAndUnresolvable: node(s) had untolerated taint {dedicated: user1}");
  assert.equal(taintFilter([{ key: "dedicated", value: "user1", effect: "NoSchedule" }], [dedicated1]), null);
  assert.equal(
    taintFilter([{ key: "dedicated", operator: "Equal", value: "user2", effect: "NoSchedule" }], [dedicated1]),
    "UnschedulableAndUnresolvable: node(s) had untolerated taint {dedicated: user1}",
  );
  assert.equal(taintFilter([{ key: "foo", operator: "Exists", effect: "NoSchedule" }], [{ key: "foo", value: "bar", effect: "NoSchedule" }]), null);
  assert.equal(
    taintFilter(
      [
        { key: "dedicated", operator: "Equal", value: "user2", effect: "NoSchedule" },
        { key: "foo", operator: "Exists", effect: "NoSchedule" },
      ],
      [
        { key: "dedicated", value: "user2", effect: "NoSchedule" },
        { key: "foo", value: "bar", effect: "NoSchedule" },
      ],
    ),
    null,
  );
  assert.equal(
    taintFilter([{ key: "foo", operator: "Equal", value: "bar", effect: "PreferNoSchedule" }], [{ key: "foo", value: "bar", effect: "NoSchedule" }]),
    "UnschedulableAndUnresolvable: node(s) had untolerated taint {foo: bar}",
    "a (non-empty) effect must match",
  );
  assert.equal(taintFilter([{ key: "foo", operator: "Equal", value: "bar" }], [{ key: "foo", value: "bar", effect: "NoSchedule" }]), null, "empty effect matches all");
  assert.equal(taintFilter([{ key: "dedicated", operator: "Equal", value: "user2", effect: "NoSchedule" }], [{ key: "dedicated", value: "user1", effect: "PreferNoSchedule" }]), null);
  assert.equal(taintFilter([], [{ key: "dedicated", value: "user1", effect: "PreferNoSchedule" }]), null);
});

test("TaintToleration: NoExecute keeps pods off too; an empty key with Exists tolerates everything; the message names the first untolerated taint", () => {
  const taints: Taint[] = [
    { key: "CPU", value: "L1", effect: "NoSchedule" },
    { key: "CPU", value: "L1", effect: "NoExecute" },
    { key: "MEM", value: "L2", effect: "NoSchedule" },
  ];
  const cpuL1: Toleration[] = [
    { key: "CPU", operator: "Equal", value: "L1", effect: "NoSchedule" },
    { key: "CPU", operator: "Equal", value: "L1", effect: "NoExecute" },
  ];
  assert.equal(taintFilter([], taints), "UnschedulableAndUnresolvable: node(s) had untolerated taint {CPU: L1}");
  assert.equal(taintFilter(cpuL1.slice(0, 1), taints), "UnschedulableAndUnresolvable: node(s) had untolerated taint {CPU: L1}", "the NoExecute one");
  assert.equal(taintFilter(cpuL1, taints), "UnschedulableAndUnresolvable: node(s) had untolerated taint {MEM: L2}");
  assert.equal(taintFilter([{ operator: "Exists" }], taints), null);
  assert.equal(taintFilter([], [{ key: "node-role.kubernetes.io/control-plane", effect: "NoSchedule" }]), "UnschedulableAndUnresolvable: node(s) had untolerated taint {node-role.kubernetes.io/control-plane: }");
});

test("TestTaintTolerationFilter with the newer wording (kubernetes#134740: v1.35.0, and v1.34.2 by cherry-pick)", () => {
  const t: Taint[] = [{ key: "dedicated", value: "user1", effect: "NoSchedule" }];
  for (const version of ["v1.35.0", "v1.34.2", "v1.36.1"]) assert.equal(taintFilter([], t, version), "UnschedulableAndUnresolvable: node(s) had untolerated taint(s)", version);
  for (const version of ["v1.34.1", "v1.33.5", "v1.30.2"]) assert.equal(taintFilter([], t, version), "UnschedulableAndUnresolvable: node(s) had untolerated taint {dedicated: user1}", version);
});

function taintScores(tolerations: Toleration[], nodes: Record<string, Taint[]>): Record<string, number> | "skip" {
  const c = cluster(Object.entries(nodes).map(([name, taints]) => makeNode(name, { taints })));
  return scoreAll(taintTolerationPlugin(c.handle), makePod("pod1", { spec: { tolerations } }), c);
}

test("TestTaintTolerationScore: untolerated PreferNoSchedule taints lower the score (normalized, reversed)", () => {
  const pref = (key: string, value: string): Taint => ({ key, value, effect: "PreferNoSchedule" });
  assert.deepEqual(taintScores([{ key: "foo", operator: "Equal", value: "bar", effect: "PreferNoSchedule" }], { nodeA: [pref("foo", "bar")], nodeB: [pref("foo", "blah")] }), { nodeA: 100, nodeB: 0 });
  const both: Toleration[] = [
    { key: "cpu-type", operator: "Equal", value: "arm64", effect: "PreferNoSchedule" },
    { key: "disk-type", operator: "Equal", value: "ssd", effect: "PreferNoSchedule" },
  ];
  const three = { nodeA: [], nodeB: [pref("cpu-type", "arm64")], nodeC: [pref("cpu-type", "arm64"), pref("disk-type", "ssd")] };
  assert.deepEqual(taintScores(both, three), { nodeA: 100, nodeB: 100, nodeC: 100 });
  assert.deepEqual(taintScores([{ key: "foo", operator: "Equal", value: "bar", effect: "PreferNoSchedule" }], three), { nodeA: 100, nodeB: 50, nodeC: 0 });
  const noSched: Toleration[] = [
    { key: "cpu-type", operator: "Equal", value: "arm64", effect: "NoSchedule" },
    { key: "disk-type", operator: "Equal", value: "ssd", effect: "NoSchedule" },
  ];
  assert.deepEqual(taintScores(noSched, { nodeA: [], nodeB: [{ key: "cpu-type", value: "arm64", effect: "NoSchedule" }], nodeC: three.nodeC }), { nodeA: 100, nodeB: 100, nodeC: 0 });
  assert.deepEqual(taintScores([], { nodeA: [], nodeB: [pref("cpu-type", "arm64")] }), { nodeA: 100, nodeB: 0 });
});

test("TestNodeUnschedulable: a cordoned node takes only pods tolerating node.kubernetes.io/unschedulable", () => {
  const c = cluster([makeNode("n", { unschedulable: true }), makeNode("m")]);
  const plain = filterAll(nodeUnschedulablePlugin(), makePod("p"), c).nodes;
  assert.deepEqual([plain["n"]?.code, plain["n"]?.reasons, plain["m"]], ["UnschedulableAndUnresolvable", ["node(s) were unschedulable"], null]);
  const tolerant = makePod("t", { spec: { tolerations: [{ key: "node.kubernetes.io/unschedulable", operator: "Exists", effect: "NoSchedule" }] } });
  assert.equal(filterAll(nodeUnschedulablePlugin(), tolerant, c).nodes["n"], null);
});

test("TestNodeName: a pod naming a node fits only that node", () => {
  const c = cluster([makeNode("foo"), makeNode("bar")]);
  const r = filterAll(nodeNamePlugin(), makePod("p", { spec: { nodeName: "foo" } }), c).nodes;
  assert.equal(r["foo"], null);
  assert.deepEqual(r["bar"]?.reasons, ["node(s) didn't match the requested node name"]);
  assert.equal(filterAll(nodeNamePlugin(), makePod("q"), c).nodes["bar"], null);
});

/** "PROTO/IP/PORT" as upstream's TestNodePorts writes host ports. */
function portsPod(name: string, ...specs: string[]): ReturnType<typeof makePod> {
  const ports: ContainerPort[] = specs.map((s) => {
    const [protocol, ip, port] = s.split("/") as [string, string, string];
    return { protocol, hostIP: ip, hostPort: Number(port), containerPort: Number(port) };
  });
  return makePod(name, { spec: { containers: [{ name: "c", image: "i", ports }] } });
}

test("TestNodePorts: host port conflicts by protocol, address (0.0.0.0 binds all) and port", () => {
  const cases: [string, string[], string[], boolean][] = [
    ["nothing running", [], ["UDP/127.0.0.1/8080"], true],
    ["other port", ["UDP/127.0.0.1/9090"], ["UDP/127.0.0.1/8080"], true],
    ["same udp port", ["UDP/127.0.0.1/8080"], ["UDP/127.0.0.1/8080"], false],
    ["same tcp port", ["TCP/127.0.0.1/8080"], ["TCP/127.0.0.1/8080"], false],
    ["different host ip", ["TCP/127.0.0.1/8080"], ["TCP/127.0.0.2/8080"], true],
    ["different protocol", ["TCP/127.0.0.1/8080"], ["UDP/127.0.0.1/8080"], true],
    ["second udp port conflict", ["UDP/127.0.0.1/8080"], ["UDP/127.0.0.1/8080", "UDP/127.0.0.1/8081"], false],
    ["first tcp port conflict", ["TCP/127.0.0.1/8001", "UDP/127.0.0.1/8080"], ["TCP/127.0.0.1/8001", "UDP/127.0.0.1/8081"], false],
    ["first tcp port conflict due to 0.0.0.0 hostIP", ["TCP/127.0.0.1/8001"], ["TCP/0.0.0.0/8001"], false],
    ["TCP hostPort conflict due to 0.0.0.0 hostIP", ["TCP/0.0.0.0/8001"], ["TCP/10.0.10.10/8001", "TCP/0.0.0.0/8001"], false],
    ["second tcp port conflict to 0.0.0.0 hostIP", ["TCP/0.0.0.0/8001"], ["TCP/127.0.0.1/8001"], false],
    ["second different protocol", ["TCP/0.0.0.0/8001"], ["UDP/127.0.0.1/8001"], true],
    ["UDP hostPort conflict due to 0.0.0.0 hostIP", ["TCP/0.0.0.0/8001", "UDP/0.0.0.0/8001"], ["UDP/127.0.0.1/8001"], false],
  ];
  for (const [name, existing, wanted, fits] of cases) {
    const running = portsPod(`${name}-running`, ...existing);
    running.spec!.nodeName = "n";
    const c = cluster([makeNode("n")], existing.length > 0 ? [running] : []);
    const s = filterAll(nodePortsPlugin(), portsPod(name, ...wanted), c).nodes["n"]!;
    assert.equal(s === null, fits, name);
    if (!fits) assert.deepEqual(s!.reasons, ["node(s) didn't have free ports for the requested pod ports"], name);
  }
  assert.equal(filterAll(nodePortsPlugin(), makePod("none"), cluster([makeNode("n")])).pre?.code, "Skip", "a pod without host ports skips NodePorts");
});

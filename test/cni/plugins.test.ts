// Plugin-specific behaviour beyond the conformance suite: flannel's loud notice and canal's policy,
// the bridge plugin's docker0 (masquerade out, published ports in), macvlan's missing path to its own
// host, requested addresses, and the errors for unsupported combinations.
import { test } from "node:test";
import assert from "node:assert/strict";
import { buildCluster } from "../../src/cluster/build.js";
import { formatClusterError } from "../../src/cluster/errors.js";
import type { ClusterRuntime } from "../../src/cluster/runtime.js";
import { FlannelBackend, FlannelPlugin } from "../../src/cni/flannel/plugin.js";
import { loadText } from "../../src/k8s/load.js";
import { httpGet } from "../../src/cluster/workloads/http/client.js";
import { TcpStack } from "../../src/net/tcp/stack.js";
import { formatIPv4 } from "../../src/util/ip.js";
import { loadShape, type ClusterShape } from "../cluster/support/clusters.js";
import { ping } from "../cluster/support/probes.js";

const DENY_ALL_INGRESS = `
---
apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata: {name: default-deny-ingress, namespace: default}
spec: {podSelector: {}, policyTypes: [Ingress]}`;

function build(shape: ClusterShape): ClusterRuntime {
  const r = buildCluster(loadShape(shape));
  if (!r.ok) assert.fail(formatClusterError(r.error));
  return r.value;
}

test("flannel enforces no NetworkPolicy and says so loudly; canal (flannel + Calico policy) enforces it", () => {
  const flannel = build({ plugin: "flannel", extra: DENY_ALL_INGRESS });
  assert.equal(flannel.plugin.policyEnforcement, "none");
  assert.ok(flannel.notices().some((n) => /NetworkPolic.*NO effect/.test(n)), flannel.notices().join("\n"));
  assert.equal(ping(flannel, flannel.pod("default/a")!.ns, flannel.pod("default/c")!.ip), true, "the deny-all policy has no effect");
  const canal = build({ plugin: "canal", extra: DENY_ALL_INGRESS });
  assert.equal(canal.plugin.policyEnforcement, "iptables");
  assert.deepEqual(canal.notices(), []);
  assert.equal(ping(canal, canal.pod("default/a")!.ns, canal.pod("default/c")!.ip), false, "denied across nodes");
  assert.equal(ping(canal, canal.pod("default/a")!.ns, canal.pod("default/b")!.ip), false, "denied on one node");
  assert.equal(ping(canal, canal.node("n1")!.ns, canal.pod("default/a")!.ip), true, "the pod's own node is always allowed");
  assert.ok(canal.pod("default/a")!.hostIface!.name.startsWith("cali"), "canal wires pods as Calico does");
});

test("host-gw is refused when a node is off the underlay's L2 segment, naming the Cluster file", () => {
  const load = loadShape({ plugin: "flannel", mode: "host-gw" });
  const ok = buildCluster(load);
  assert.ok(ok.ok);
  const network = ok.value.model.network!;
  const r = FlannelPlugin.check({ network, nodes: [{ name: "far", ip: 0x0a0a0001 } as never] }, FlannelBackend.HOST_GW, "cluster.yaml");
  assert.ok(!r.ok);
  if (!r.ok) assert.equal(`${r.error.subject}: ${r.error.reason}`, "cluster.yaml: spec.cni.mode: host-gw requires all nodes on one L2 segment, but far (10.10.0.1) is outside 10.9.0.0/24");
});

test("unsupported combinations are errors naming the Cluster file and the field", () => {
  const bridgeMulti = buildCluster(loadShape({ plugin: "bridge" }));
  assert.ok(!bridgeMulti.ok);
  if (!bridgeMulti.ok) assert.match(formatClusterError(bridgeMulti.error), /^conformance\.yaml[\s\S]*bridge/);
  const ebpfFlannel = buildCluster(loadShape({ plugin: "flannel", dataplane: "ebpf" }));
  assert.ok(!ebpfFlannel.ok);
  if (!ebpfFlannel.ok) assert.match(formatClusterError(ebpfFlannel.error), /^conformance\.yaml[\s\S]*dataplane/);
});

test("bridge (docker0): containers talk over the bridge, go out masqueraded, and published ports DNAT in", () => {
  const extra = `
---
apiVersion: v1
kind: Pod
metadata: {name: web, namespace: default}
spec:
  nodeName: n1
  containers: [{name: nginx, image: nginx, ports: [{containerPort: 80, hostPort: 8080}]}]`;
  const rt = build({ plugin: "bridge", nodes: 1, extra });
  const a = rt.pod("default/a")!;
  const web = rt.pod("default/web")!;
  assert.deepEqual([a.ip, web.ip].map(formatIPv4), ["172.17.0.2", "172.17.0.4"], "docker0 is .1, containers from .2 in creation order");
  assert.equal(ping(rt, a.ns, rt.pod("default/b")!.ip), true);
  // Outbound: the client sees the host's address.
  const client = rt.externalHost("client")!;
  assert.equal(ping(rt, a.ns, client.ip), true);
  const accepted: string[] = [];
  assert.ok(TcpStack.of(client.ns).listen(9000, (s) => accepted.push(formatIPv4(s.remoteAddr))).ok);
  assert.ok(TcpStack.of(a.ns).connect(client.ip, 9000, {}).ok);
  rt.runFor(1_000_000_000);
  assert.deepEqual(accepted, ["10.9.0.11"], "MASQUERADE to the host address");
  // Inbound: client -> host:8080 reaches the container's port 80.
  let status = 0;
  httpGet(client.ns, { host: formatIPv4(rt.node("n1")!.ip), port: 8080 }, (r) => (status = r.kind === "response" ? r.status : -1));
  rt.runFor(1_000_000_000);
  assert.equal(status, 200, "the container's nginx answered");
  assert.deepEqual(rt.workloads.logs("default/web").map((l) => l.split(" ")[0]), ["10.9.0.100"], "DNAT keeps the client's address (nginx's access log)");
});

test("macvlan: pods on the underlay reach other nodes and hosts, but not their own node through eth0", () => {
  const rt = build({ plugin: "macvlan" });
  const a = rt.pod("default/a")!;
  const c = rt.pod("default/c")!;
  assert.equal(formatIPv4(a.ip).startsWith("10.9.0."), true);
  assert.ok(a.ip >= 0x0a090080, "from the upper half of the subnet");
  assert.equal(ping(rt, a.ns, c.ip), true, "pod to pod across nodes, over the switch");
  assert.equal(ping(rt, a.ns, rt.pod("default/b")!.ip), true, "siblings on one parent talk directly (bridge mode)");
  assert.equal(ping(rt, a.ns, rt.externalHost("client")!.ip), true);
  assert.equal(ping(rt, a.ns, rt.node("n2")!.ip), true, "another node is fine");
  assert.equal(ping(rt, a.ns, rt.node("n1")!.ip), false, "its own host: the frame leaves on the wire and the switch does not send it back");
  assert.equal(ping(rt, rt.node("n1")!.ns, a.ip), false, "and the other way round");
  assert.ok(rt.notices().some((n) => n.includes("cannot reach its own node")));
});

test("Calico honours a requested address (ipAddrs annotation), and a taken one is an error naming the pod", () => {
  const extra = (ip: string, name: string) => `
---
apiVersion: v1
kind: Pod
metadata: {name: ${name}, namespace: default, annotations: {cni.projectcalico.org/ipAddrs: '["${ip}"]'}}
spec: {nodeName: n2, containers: [{name: c, image: busybox}]}`;
  const rt = build({ plugin: "calico", mode: "ipip", podCIDR: "10.224.0.0/16", extra: extra("10.224.7.9", "fixed") });
  assert.equal(formatIPv4(rt.pod("default/fixed")!.ip), "10.224.7.9");
  assert.equal(rt.store.get("Pod", "default", "fixed")?.status?.podIP, "10.224.7.9");
  assert.equal(ping(rt, rt.pod("default/a")!.ns, rt.pod("default/fixed")!.ip), true, "its block was claimed for n2 and announced");
  // A pod added later asking for the same address: the runtime reports it, naming the pod.
  const two = loadText(extra("10.224.7.9", "two"), "two.yaml").objects[0]!.object;
  assert.ok(rt.store.add(two).ok);
  assert.ok(rt.errors.includes("pod default/two: requested address 10.224.7.9 is already in use by default/fixed"), rt.errors.join("\n"));
  assert.equal(rt.pod("default/two"), undefined);
  assert.ok(rt.store.add(loadText(extra("10.225.0.1", "far"), "far.yaml").objects[0]!.object).ok);
  assert.ok(rt.errors.includes("pod default/far: requested address 10.225.0.1 is outside the IP pool 10.224.0.0/16"), rt.errors.join("\n"));
});

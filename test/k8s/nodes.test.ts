// Node merging, the control-plane label and taint, default allocatable, and the normalized
// cluster model. Oracles: the seed lab's `kubectl get node --show-labels` and `kubectl top node`.
import { test } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import type { Node } from "kubernetes-types/core/v1.js";
import { buildClusterModel } from "../../src/k8s/cluster-model.js";
import type { Cluster } from "../../src/k8s/cluster-types.js";
import { loadFiles, loadText } from "../../src/k8s/load.js";
import { clusterNodeObjects } from "../../src/k8s/node-merge.js";
import { parseQuantity, quantityMilliValue } from "../../src/k8s/quantity.js";
import { storeFromLoad } from "../../src/k8s/store-from-load.js";
import { fmt, repoPath } from "./helpers.js";

const LAB = repoPath("examples/seed-lab");

async function seedCluster(): Promise<Cluster> {
  const r = await loadFiles([join(LAB, "cluster.yaml")]);
  assert.ok(r.cluster);
  return r.cluster.object;
}

const showLabels = (n: { metadata?: { labels?: Record<string, string> } }): string =>
  Object.entries(n.metadata?.labels ?? {})
    .sort(([a], [b]) => (a < b ? -1 : 1))
    .map(([k, v]) => `${k}=${v}`)
    .join(",");

test("merged nodes carry the labels the seed lab's `kubectl get node --show-labels` prints, and the control-plane taint", async () => {
  const nodes = clusterNodeObjects(await seedCluster(), []);
  assert.deepEqual(
    nodes.map((n) => [n.metadata.name, showLabels(n)]),
    [
      [
        "master30.cyh.cloud",
        "beta.kubernetes.io/arch=amd64,beta.kubernetes.io/os=linux,kubernetes.io/arch=amd64,kubernetes.io/hostname=master30.cyh.cloud,kubernetes.io/os=linux,node-role.kubernetes.io/control-plane=,node.kubernetes.io/exclude-from-external-load-balancers=",
      ],
      ["worker31.cyh.cloud", "beta.kubernetes.io/arch=amd64,beta.kubernetes.io/os=linux,kubernetes.io/arch=amd64,kubernetes.io/hostname=worker31.cyh.cloud,kubernetes.io/os=linux"],
      ["worker32.cyh.cloud", "beta.kubernetes.io/arch=amd64,beta.kubernetes.io/os=linux,kubernetes.io/arch=amd64,kubernetes.io/hostname=worker32.cyh.cloud,kubernetes.io/os=linux"],
    ],
  );
  assert.deepEqual(nodes.map((n) => n.spec?.taints), [[{ key: "node-role.kubernetes.io/control-plane", effect: "NoSchedule" }], undefined, undefined]);
  assert.deepEqual(nodes[1]!.status?.addresses, [
    { type: "InternalIP", address: "10.1.8.31" },
    { type: "Hostname", address: "worker31.cyh.cloud" },
  ]);
  assert.equal(nodes[0]!.status?.nodeInfo?.kubeletVersion, "v1.30.2");
});

test("the default allocatable reproduces the seed lab's `kubectl top node` percentages", async () => {
  const model = buildClusterModel(await seedCluster());
  assert.ok(model.ok);
  // kubectl's metrics printer: int64(usage.MilliValue() / allocatable.MilliValue() * 100).
  const pct = (usage: string, allocatableMilli: number): number => {
    const q = parseQuantity(usage);
    assert.ok(q.ok);
    return Math.trunc((quantityMilliValue(q.value) / allocatableMilli) * 100);
  };
  const alloc = model.value.nodes[0]!.allocatable;
  const memMilli = alloc.memoryBytes * 1000;
  const seedTop: [string, number, string, number][] = [
    ["97m", 4, "1328Mi", 35],
    ["49m", 2, "912Mi", 24],
    ["45m", 2, "926Mi", 24],
  ];
  for (const [cpu, cpuPct, mem, memPct] of seedTop) {
    assert.equal(pct(cpu, alloc.cpuMilli), cpuPct, cpu);
    assert.equal(pct(mem, memMilli), memPct, mem);
    // kubectl prints memory floored to Mi, so the real usage may be up to 1Mi more.
    assert.equal(pct(`${Number(mem.slice(0, -2)) + 0.999}Mi`, memMilli), memPct, `${mem} + 0.999Mi`);
  }
  assert.deepEqual(alloc, { cpuMilli: 2000, memoryBytes: 3750 * 1024 * 1024, pods: 110, scalar: {} });
});

test("a Node object adds to and overrides a Cluster node's labels, taints and allocatable", async () => {
  const text = await import("node:fs").then((fs) => fs.readFileSync(join(LAB, "cluster.yaml"), "utf8"));
  const withNode =
    text.replace("{name: worker32.cyh.cloud, ip: 10.1.8.32}", "{name: worker32.cyh.cloud, ip: 10.1.8.32, labels: {zone: a, rack: r1}, taints: [{key: CPU, value: L2, effect: NoSchedule}], allocatable: {cpu: '4'}}") +
    "---\napiVersion: v1\nkind: Node\nmetadata: {name: worker32.cyh.cloud, labels: {zone: b, disktype: ssd}}\n" +
    "spec:\n  unschedulable: true\n  taints: [{key: CPU, value: L3, effect: NoSchedule}, {key: MEM, value: L2, effect: NoExecute}]\n" +
    "status: {allocatable: {memory: 8Gi, example.com/gpu: '2'}}\n";
  const r = loadText(withNode, "c.yaml");
  assert.deepEqual(fmt(r.errors), []);
  const nodes = r.objects.filter((o) => o.object.kind === "Node").map((o) => o.object as Node);
  const model = buildClusterModel(r.cluster!.object, nodes);
  assert.ok(model.ok);
  const w32 = model.value.nodes.find((n) => n.name === "worker32.cyh.cloud")!;
  assert.equal(w32.labels["zone"], "b");
  assert.equal(w32.labels["rack"], "r1");
  assert.equal(w32.labels["disktype"], "ssd");
  assert.equal(w32.labels["kubernetes.io/hostname"], "worker32.cyh.cloud");
  assert.deepEqual(w32.taints, [
    { key: "CPU", value: "L3", effect: "NoSchedule" },
    { key: "MEM", value: "L2", effect: "NoExecute" },
  ]);
  assert.deepEqual(w32.allocatable, { cpuMilli: 4000, memoryBytes: 8 * 2 ** 30, pods: 110, scalar: { "example.com/gpu": 2 } });
  assert.equal(w32.unschedulable, true);
  assert.deepEqual([w32.role, w32.ip, w32.ipInt], ["worker", "10.1.8.32", 0x0a010820]);
  const master = model.value.nodes[0]!;
  assert.deepEqual([master.role, master.taints], ["control-plane", [{ key: "node-role.kubernetes.io/control-plane", effect: "NoSchedule" }]]);
});

test("the cluster model resolves the seed lab's network settings", async () => {
  const m = buildClusterModel(await seedCluster());
  assert.ok(m.ok);
  const net = m.value.network!;
  assert.deepEqual(net.underlay, {
    subnet: { address: 0x0a010800, prefixLength: 24, text: "10.1.8.0/24" },
    gateway: 0x0a010802,
    link: { bandwidthBps: 10e9, latencyNs: 50_000, mtu: 1500, queueBytes: 1_514_000 },
  });
  assert.deepEqual(net.externalHosts, [{ name: "client", ip: "10.1.8.100", ipInt: 0x0a010864, onUnderlay: true }]);
  assert.deepEqual(net.cni, {
    plugin: "calico",
    mode: "ipip",
    dataplane: "iptables",
    podCIDR: { address: 0x0ae00000, prefixLength: 16, text: "10.224.0.0/16" },
    blockSize: 26,
    mtu: 1480,
    encapOverhead: 20,
  });
  assert.deepEqual(net.serviceCIDR, { address: 0x0a600000, prefixLength: 12, text: "10.96.0.0/12" });
  assert.deepEqual(net.kubeProxy, { mode: "iptables", clusterCIDR: null, nodePortRange: { min: 30000, max: 32767 } });
  assert.deepEqual([m.value.name, m.value.kubernetesVersion, m.value.seed], ["seed-lab", "v1.30.2", 1]);
});

test("plugin defaults: flannel vxlan /24 blocks and MTU 1450; bridge and macvlan have no blocks", () => {
  const cluster = (cni: string, extra = ""): Cluster => {
    const r = loadText(
      `apiVersion: cnisim.io/v1alpha1\nkind: Cluster\nmetadata: {name: c}\nspec:\n  underlay: {subnet: 10.0.0.0/24}\n  nodes: [{name: n1, ip: 10.0.0.11}]\n  cni: ${cni}\n${extra}`,
      "c.yaml",
    );
    assert.deepEqual(fmt(r.errors), []);
    return r.cluster!.object;
  };
  const model = (c: Cluster) => {
    const m = buildClusterModel(c);
    assert.ok(m.ok);
    return m.value.network!;
  };
  const flannel = model(cluster("{plugin: flannel}"));
  assert.deepEqual([flannel.cni.mode, flannel.cni.blockSize, flannel.cni.mtu, flannel.cni.podCIDR.text], ["vxlan", 24, 1450, "10.244.0.0/16"]);
  assert.equal(flannel.underlay.gateway, 0x0a000001, "the default gateway is .1");
  const calico = model(cluster("{plugin: calico}", "  externalHosts: [{name: web, ip: 203.0.113.5}]\n"));
  assert.deepEqual([calico.cni.mode, calico.cni.blockSize, calico.cni.mtu, calico.cni.podCIDR.text], ["ipip", 26, 1480, "192.168.0.0/16"]);
  assert.equal(calico.externalHosts[0]!.onUnderlay, false);
  const bridge = model(cluster("{plugin: bridge}"));
  assert.deepEqual([bridge.cni.mode, bridge.cni.blockSize, bridge.cni.mtu, bridge.cni.podCIDR.text], [null, null, 1500, "172.17.0.0/16"]);
  const macvlan = model(cluster("{plugin: macvlan}"));
  assert.deepEqual([macvlan.cni.blockSize, macvlan.cni.podCIDR.text], [null, "10.0.0.0/24"]);
});

test("without a Cluster, Node objects alone make the nodes; a bad hand-made Cluster is an error, not a crash", () => {
  const r = loadText(
    "apiVersion: v1\nkind: Node\nmetadata: {name: cp, labels: {node-role.kubernetes.io/control-plane: ''}}\nstatus: {addresses: [{type: InternalIP, address: 172.18.0.2}]}\n",
    "n.yaml",
  );
  const m = buildClusterModel(undefined, r.objects.map((o) => o.object as Node));
  assert.ok(m.ok);
  assert.equal(m.value.network, null);
  assert.deepEqual([m.value.nodes[0]!.role, m.value.nodes[0]!.ip, m.value.nodes[0]!.taints], ["control-plane", "172.18.0.2", [{ key: "node-role.kubernetes.io/control-plane", effect: "NoSchedule" }]]);
  const bad = { apiVersion: "cnisim.io/v1alpha1", kind: "Cluster", metadata: { name: "x" }, spec: { underlay: { subnet: "10.0.0.1/24" }, nodes: [], cni: { plugin: "flannel" } } } as Cluster;
  const e = buildClusterModel(bad);
  assert.ok(!e.ok && e.error === 'Cluster x: invalid value "10.0.0.1/24": host bits are set (did you mean 10.0.0.0/24?)');
});

test("storeFromLoad holds built-in and declared namespaces, merged nodes and the loaded objects", async () => {
  const r = await loadFiles([join(LAB, "cluster.yaml"), join(LAB, "workloads.yaml"), join(LAB, "policies", "01-ingress-from-pods-run-test.yaml")], { namespace: "web" });
  const store = storeFromLoad(r);
  assert.deepEqual(store.list("Namespace").map((n) => n.metadata.name), ["cyh", "default", "kube-node-lease", "kube-public", "kube-system", "web"]);
  assert.equal(store.get("Namespace", undefined, "kube-system")?.metadata.labels?.["kubernetes.io/metadata.name"], "kube-system");
  assert.deepEqual(store.list("Node").map((n) => n.metadata.name), ["master30.cyh.cloud", "worker31.cyh.cloud", "worker32.cyh.cloud"]);
  assert.deepEqual(store.list("Pod").map((p) => `${p.metadata.namespace}/${p.metadata.name}`), ["cyh/test", "web/test", "web/web1", "web/web2"]);
  assert.equal(store.list("NetworkPolicy")[0]?.metadata.namespace, "web");
  assert.equal(store.revision, 4 + 2 + 3 + 4 + 2 + 1, "4 built-in namespaces + 2 declared, 3 nodes, 4 pods, 2 services, 1 policy");
});

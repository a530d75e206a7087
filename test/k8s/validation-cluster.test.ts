// Cluster object rules and the rules that involve several objects, each with a failing example.
import { test } from "node:test";
import assert from "node:assert/strict";
import { loadText } from "../../src/k8s/load.js";
import { at, fmt } from "./helpers.js";

const F = "t.yaml";
const d = (text: string, needle: string | [string, number], object: string, path: string, message: string): string => {
  const [n, nth] = typeof needle === "string" ? [needle, 1] : needle;
  return `${F}:${at(text, n, nth)}: ${object}: ${path === "" ? "" : path + ": "}${message}`;
};

const CLUSTER = [
  "apiVersion: cnisim.io/v1alpha1",
  "kind: Cluster",
  "metadata: {name: lab}",
  "spec:",
  "  underlay: {subnet: 10.1.8.0/24, gateway: 10.1.8.2, link: {bandwidth: 10Gbps, latency: 50us, mtu: 1500}}",
  "  nodes:",
  "  - {name: m1, role: control-plane, ip: 10.1.8.30}",
  "  - {name: w1, ip: 10.1.8.31}",
  "  externalHosts:",
  "  - {name: client, ip: 10.1.8.100}",
  "  cni: {plugin: calico, mode: ipip, podCIDR: 10.224.0.0/16, blockSize: 26}",
  "  serviceCIDR: 10.96.0.0/12",
  "  kubeProxy: {mode: iptables, nodePortRange: 30000-32767}",
  "",
].join("\n");
const C = "Cluster lab";
const edit = (from: string, to: string, base = CLUSTER): string => {
  assert.ok(base.includes(from), `test bug: ${from}`);
  return base.replace(from, to);
};

test("the base Cluster of these tests is valid", () => {
  const r = loadText(CLUSTER, F);
  assert.deepEqual(fmt(r.errors), []);
  assert.deepEqual(fmt(r.warnings), []);
  assert.equal(r.cluster?.object.metadata.name, "lab");
});

const cases: { rule: string; text: string; expect: (t: string) => string[] }[] = [
  {
    rule: "the underlay is required",
    text: edit("  underlay: {subnet: 10.1.8.0/24, gateway: 10.1.8.2, link: {bandwidth: 10Gbps, latency: 50us, mtu: 1500}}\n", ""),
    expect: (t) => [d(t, "nodes:", C, "spec.underlay", "required value")],
  },
  {
    rule: "the subnet is a network address",
    text: edit("subnet: 10.1.8.0/24", "subnet: 10.1.8.1/24"),
    expect: (t) => [d(t, "10.1.8.1/24", C, "spec.underlay.subnet", 'invalid value "10.1.8.1/24": host bits are set (did you mean 10.1.8.0/24?)')],
  },
  {
    rule: "the gateway is inside the subnet",
    text: edit("gateway: 10.1.8.2", "gateway: 10.1.9.2"),
    expect: (t) => [d(t, "10.1.9.2", C, "spec.underlay.gateway", 'invalid value "10.1.9.2": must be inside the underlay subnet 10.1.8.0/24')],
  },
  {
    rule: "node addresses are inside the subnet",
    text: edit("ip: 10.1.8.31", "ip: 10.1.9.31"),
    expect: (t) => [d(t, "10.1.9.31", C, "spec.nodes[1].ip", 'invalid value "10.1.9.31": must be inside the underlay subnet 10.1.8.0/24')],
  },
  {
    rule: "node addresses are IPv4 addresses",
    text: edit("ip: 10.1.8.31", "ip: 10.1.8"),
    expect: (t) => [d(t, "10.1.8}", C, "spec.nodes[1].ip", 'invalid value "10.1.8": must be an IPv4 address')],
  },
  {
    rule: "node addresses are not the broadcast address",
    text: edit("ip: 10.1.8.31", "ip: 10.1.8.255"),
    expect: (t) => [d(t, "10.1.8.255", C, "spec.nodes[1].ip", 'invalid value "10.1.8.255": must not be the network or broadcast address of 10.1.8.0/24')],
  },
  {
    rule: "addresses are unique across gateway, nodes and hosts",
    text: edit("ip: 10.1.8.100", "ip: 10.1.8.31", edit("ip: 10.1.8.31", "ip: 10.1.8.2")),
    expect: (t) => [
      d(t, ["10.1.8.2}", 1], C, "spec.nodes[1].ip", 'duplicate value "10.1.8.2": already used by the underlay gateway'),
    ],
  },
  {
    rule: "an external host may not reuse a node address",
    text: edit("ip: 10.1.8.100", "ip: 10.1.8.30"),
    expect: (t) => [d(t, ["10.1.8.30", 2], C, "spec.externalHosts[0].ip", 'duplicate value "10.1.8.30": already used by node m1')],
  },
  {
    rule: "without a gateway, .1 of the subnet is the gateway and may not be a node",
    text: edit("ip: 10.1.8.30", "ip: 10.1.8.1", edit(" gateway: 10.1.8.2,", "")),
    expect: (t) => [d(t, "10.1.8.1}", C, "spec.nodes[0].ip", 'duplicate value "10.1.8.1": already used by the default underlay gateway')],
  },
  {
    rule: "node names are unique",
    text: edit("name: w1", "name: m1"),
    expect: (t) => [d(t, ["m1", 2], C, "spec.nodes[1].name", 'duplicate value "m1"')],
  },
  {
    rule: "a cluster has nodes",
    text: edit("  nodes:\n  - {name: m1, role: control-plane, ip: 10.1.8.30}\n  - {name: w1, ip: 10.1.8.31}\n", "  nodes: []\n"),
    expect: (t) => [d(t, "[]", C, "spec.nodes", "must have at least one node")],
  },
  {
    rule: "node roles are control-plane or worker",
    text: edit("role: control-plane", "role: master"),
    expect: (t) => [d(t, "master", C, "spec.nodes[0].role", "must be one of control-plane, worker")],
  },
  {
    rule: "an external host may not be named like a node",
    text: edit("name: client", "name: w1"),
    expect: (t) => [d(t, ["w1", 2], C, "spec.externalHosts[0].name", 'duplicate value "w1": already the name of a node')],
  },
  {
    rule: "CNI plugins are calico, flannel, canal, bridge, macvlan",
    text: edit("plugin: calico", "plugin: cilium"),
    expect: (t) => [d(t, "cilium", C, "spec.cni.plugin", "must be one of calico, flannel, canal, bridge, macvlan")],
  },
  {
    rule: "the mode belongs to the plugin",
    text: edit("plugin: calico, mode: ipip", "plugin: flannel, mode: ipip"),
    expect: (t) => [d(t, "ipip", C, "spec.cni.mode", "must be one of vxlan, host-gw")],
  },
  {
    rule: "bridge has no mode and one node",
    text: edit("{plugin: calico, mode: ipip, podCIDR: 10.224.0.0/16, blockSize: 26}", "{plugin: bridge, mode: vxlan}"),
    expect: (t) => [
      d(t, "- {name: m1", C, "spec.nodes", "the bridge plugin models a single docker0-style host: give exactly one node"),
      d(t, "vxlan", C, "spec.cni.mode", "must not be set for plugin bridge"),
    ],
  },
  {
    rule: "the ebpf dataplane is Calico's",
    text: edit("plugin: calico, mode: ipip", "plugin: flannel, dataplane: ebpf"),
    expect: (t) => [d(t, "ebpf", C, "spec.cni.dataplane", "ebpf is only available with plugin calico")],
  },
  {
    rule: "the pod CIDR does not overlap the underlay",
    text: edit("podCIDR: 10.224.0.0/16", "podCIDR: 10.1.0.0/16"),
    expect: (t) => [d(t, "10.1.0.0/16", C, "spec.cni.podCIDR", "must not overlap the underlay subnet")],
  },
  {
    rule: "macvlan pods live inside the underlay subnet",
    text: edit("{plugin: calico, mode: ipip, podCIDR: 10.224.0.0/16, blockSize: 26}", "{plugin: macvlan, podCIDR: 10.224.0.0/16}"),
    expect: (t) => [d(t, "10.224.0.0/16", C, "spec.cni.podCIDR", "must be inside the underlay subnet: macvlan pods live on the underlay")],
  },
  {
    rule: "Calico block sizes are 20-32",
    text: edit("blockSize: 26", "blockSize: 19"),
    expect: (t) => [d(t, "19", C, "spec.cni.blockSize", "must be between 20 and 32, inclusive")],
  },
  {
    rule: "the pod CIDR has a block per node",
    text: edit("podCIDR: 10.224.0.0/16", "podCIDR: 10.224.0.0/26"),
    expect: (t) => [d(t, "26}", C, "spec.cni.blockSize", "the pod CIDR /26 has room for 1 block(s) of /26, fewer than the 2 nodes")],
  },
  {
    rule: "the service CIDR is /12 or smaller",
    text: edit("serviceCIDR: 10.96.0.0/12", "serviceCIDR: 172.0.0.0/8"),
    expect: (t) => [d(t, "172.0.0.0/8", C, "spec.serviceCIDR", "must be /12 or smaller (kube-apiserver refuses larger service ranges)")],
  },
  {
    rule: "the service CIDR does not overlap the pod CIDR",
    text: edit("serviceCIDR: 10.96.0.0/12", "serviceCIDR: 10.224.0.0/12"),
    expect: (t) => [d(t, "10.224.0.0/12", C, "spec.serviceCIDR", "must not overlap the pod CIDR")],
  },
  {
    rule: "kube-proxy runs in iptables mode",
    text: edit("mode: iptables", "mode: ipvs"),
    expect: (t) => [d(t, "ipvs", C, "spec.kubeProxy.mode", "must be one of iptables (the ipvs and nftables modes are not modelled)")],
  },
  {
    rule: "the NodePort range is a valid port range",
    text: edit("30000-32767", "32767-30000"),
    expect: (t) => [d(t, "32767-30000", C, "spec.kubeProxy.nodePortRange", 'invalid value "32767-30000": must be a port range such as 30000-32767 within 1-65535')],
  },
  {
    rule: "bandwidth is in bits per second",
    text: edit("bandwidth: 10Gbps", "bandwidth: 10GBps"),
    expect: (t) => [d(t, "10GBps", C, "spec.underlay.link.bandwidth", 'invalid bandwidth "10GBps": bytes per second is ambiguous; write bits per second, e.g. 10Gbps')],
  },
  {
    rule: "latency has a unit",
    text: edit("latency: 50us", "latency: '50'"),
    expect: (t) => [d(t, "'50'", C, "spec.underlay.link.latency", 'invalid duration "50": expected a number and a unit (ns, us, ms, s), e.g. 50us')],
  },
  {
    rule: "the MTU is 68-65535",
    text: edit("mtu: 1500", "mtu: 20"),
    expect: (t) => [d(t, "20}", C, "spec.underlay.link.mtu", "must be between 68 and 65535, inclusive")],
  },
  {
    rule: "the transmit queue is a quantity of bytes",
    text: edit("mtu: 1500", "mtu: 1500, queue: 4MB"),
    expect: (t) => [d(t, "4MB", C, "spec.underlay.link.queue", `invalid queue "4MB": quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'`)],
  },
  {
    rule: "the transmit queue holds at least one frame",
    text: edit("mtu: 1500", "mtu: 9000, queue: 9037"),
    expect: (t) => [d(t, "9037}", C, "spec.underlay.link.queue", "invalid queue 9037: must hold at least one full frame, 9038 bytes on the wire (MTU 9000 + 14 + 24)")],
  },
  {
    rule: "kubernetesVersion looks like v1.30.2",
    text: edit("  serviceCIDR:", "  kubernetesVersion: latest\n  serviceCIDR:"),
    expect: (t) => [d(t, "latest", C, "spec.kubernetesVersion", 'invalid value "latest": must be a version such as v1.30.2')],
  },
  {
    rule: "cluster node taints are unique by key and effect",
    text: edit("{name: w1, ip: 10.1.8.31}", "{name: w1, ip: 10.1.8.31, taints: [{key: a, effect: NoSchedule}, {key: a, effect: NoSchedule}]}"),
    expect: (t) => [d(t, ["{key: a", 2], C, "spec.nodes[1].taints[1]", 'duplicate value "a:NoSchedule": taints must be unique by key and effect pair')],
  },
];

for (const c of cases) {
  test(`Cluster rule: ${c.rule}`, () => {
    const r = loadText(c.text, F);
    assert.deepEqual(fmt(r.errors), c.expect(c.text));
    assert.equal(r.cluster, undefined);
  });
}

const POD = (name: string, extra = ""): string =>
  `---\napiVersion: v1\nkind: Pod\nmetadata: {name: ${name}}\nspec: {containers: [{name: c, image: nginx}]}\n${extra}`;
const SVC = (name: string, ports: string, extra = ""): string =>
  `---\napiVersion: v1\nkind: Service\nmetadata: {name: ${name}}\nspec: {type: NodePort, ${extra}ports: [${ports}]}\n`;

const cross: { rule: string; text: string; expect: (t: string) => string[] }[] = [
  {
    rule: "duplicate objects name both locations",
    text: POD("p") + POD("p"),
    expect: (t) => [d(t, ["p}", 2], "Pod default/p", "metadata.name", "duplicate Pod default/p: first defined at t.yaml:2:1")],
  },
  {
    rule: "only one Cluster",
    text: CLUSTER + "---\n" + CLUSTER.replace("name: lab", "name: lab2"),
    expect: (t) => [`${F}:${at(t, "apiVersion", 2)}: Cluster lab2: only one Cluster may be given; the first is at t.yaml:1:1`],
  },
  {
    rule: "Node objects name a Cluster node",
    text: CLUSTER + "---\napiVersion: v1\nkind: Node\nmetadata: {name: w9}\n",
    expect: (t) => [d(t, "w9", "Node w9", "metadata.name", 'node "w9" is not in Cluster lab (spec.nodes)')],
  },
  {
    rule: "nodePorts are inside the Cluster's range",
    text: edit("30000-32767", "30000-30100") + SVC("s", "{port: 80, nodePort: 30790}"),
    expect: (t) => [d(t, "30790", "Service default/s", "spec.ports[0].nodePort", "invalid value 30790: provided port is not in the valid range. The range of valid ports is 30000-30100")],
  },
  {
    rule: "without a Cluster, nodePorts are inside kube-apiserver's default range",
    text: SVC("s", "{port: 80, nodePort: 8080}"),
    expect: (t) => [d(t, "8080", "Service default/s", "spec.ports[0].nodePort", "invalid value 8080: provided port is not in the valid range. The range of valid ports is 30000-32767")],
  },
  {
    rule: "a nodePort is allocated once",
    text: SVC("a", "{port: 80, nodePort: 30080}") + SVC("b", "{port: 81, nodePort: 30080}"),
    expect: (t) => [d(t, ["30080", 2], "Service default/b", "spec.ports[0].nodePort", "invalid value 30080: provided port is already allocated (to Service default/a)")],
  },
  {
    rule: "clusterIPs are inside the service CIDR",
    text: SVC("s", "{port: 80}", "clusterIP: 192.168.1.1, "),
    expect: (t) => [
      d(t, "192.168.1.1", "Service default/s", "spec.clusterIP", "failed to allocate IP 192.168.1.1: the provided IP (192.168.1.1) is not in the valid range. The range of valid IPs is 10.96.0.0/12"),
    ],
  },
  {
    rule: "a clusterIP is allocated once",
    text: SVC("a", "{port: 80}", "clusterIP: 10.96.0.20, ") + SVC("b", "{port: 80}", "clusterIP: 10.96.0.20, "),
    expect: (t) => [d(t, ["10.96.0.20", 2], "Service default/b", "spec.clusterIP", "failed to allocate IP 10.96.0.20: provided IP is already allocated (to Service default/a)")],
  },
  {
    rule: "requested pod addresses are inside the pod CIDR",
    text: CLUSTER + POD("p", "status: {podIP: 10.225.0.1}\n"),
    expect: (t) => [d(t, "10.225.0.1", "Pod default/p", "status.podIP", "requested address 10.225.0.1 is not inside the pod CIDR 10.224.0.0/16")],
  },
  {
    rule: "a requested pod address is requested once",
    text: POD("p", "status: {podIP: 10.224.1.5}\n") + POD("q").replace("metadata: {name: q}", `metadata: {name: q, annotations: {cni.projectcalico.org/ipAddrs: '["10.224.1.5"]'}}`),
    expect: (t) => [d(t, `'["10.224.1.5"]'`, "Pod default/q", "metadata.annotations[cni.projectcalico.org/ipAddrs]", "requested address 10.224.1.5 is already requested by Pod default/p")],
  },
];

for (const c of cross) {
  test(`cross-object rule: ${c.rule}`, () => assert.deepEqual(fmt(loadText(c.text, F).errors), c.expect(c.text)));
}

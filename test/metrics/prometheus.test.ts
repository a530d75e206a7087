// /metrics through a real Prometheus text-format parser: metric families follow Prometheus naming,
// values agree with the accounting and the devices' own counters, drops are counted by node and
// reason, policy verdicts add up, and the encapsulating path shows more datapath CPU.
import { test } from "node:test";
import assert from "node:assert/strict";
import { createRequire } from "node:module";
import { Direction, PolicyMap, PolicyVerdict } from "../../datapath/maps/policy.js";
import { DropReason } from "../../datapath/reasons.js";
import { accountCluster, createPrometheusRegistry, DEFAULT_COST_MODEL, DropCounter, type MeteredCluster } from "../../src/metrics/index.js";
import type { DropRecord } from "../../src/trace/records.js";
import { makeWorld, packet, udpPacket } from "../net/l2/helpers.js";
import { PathMode, twoNodes } from "./two-nodes.js";

interface Family {
  name: string;
  help: string;
  type: string;
  metrics: { value: string; labels?: Record<string, string> }[];
}
const parse = createRequire(import.meta.url)("parse-prometheus-text-format") as (text: string) => Family[];

const DATAGRAMS = 200;

async function scrape(mode: PathMode, withPolicy = false) {
  const { sim, world } = makeWorld();
  const { nodes, cluster } = twoNodes(world, mode);
  const [a, b] = nodes as [(typeof nodes)[0], (typeof nodes)[0]];
  const drops = new DropCounter();
  world.tracer.addSink(drops);
  b.pod.bindUdp(9000, () => {});
  for (let i = 0; i < DATAGRAMS; i++) sim.schedule(i * 20_000, () => a.pod.outputIp(packet(world, udpPacket(a.podAddr, b.podAddr, 40000, 9000, 500))));
  sim.schedule(10e6, () => a.pod.outputIp(packet(world, udpPacket(a.podAddr, b.podAddr, 40000, 9999, 10))));
  sim.runUntil(5e9);
  let metered: MeteredCluster = cluster;
  if (withPolicy) {
    // pod2 isolated for ingress with one allow rule: five decisions, two of which ended in a policy drop.
    const map = new PolicyMap(64);
    map.upsert(Direction.INGRESS, 0, 17, 9000, 9000, PolicyVerdict.ALLOW, 1);
    for (let i = 0; i < 5; i++) map.lookup(Direction.INGRESS, 300, 17, 9000);
    const pods = cluster.pods().map((p, i) => (i === 1 ? { ...p, policyMap: map } : p));
    metered = { nodes: () => cluster.nodes(), pods: () => pods };
    const record = { node: "node2", reason: DropReason.POLICY_DENIED } as DropRecord;
    drops.drop(record);
    drops.drop(record);
  }
  const registry = createPrometheusRegistry({ cluster: metered, model: DEFAULT_COST_MODEL, nowNs: () => sim.now, drops, ledger: world.ledger });
  return { families: parse(await registry.metrics()), nodes, world, cluster: metered, now: sim.now };
}

const family = (fs: Family[], name: string): Family => {
  const f = fs.find((x) => x.name === name);
  assert.ok(f !== undefined, `${name} exported`);
  return f;
};
const value = (fs: Family[], name: string, labels: Record<string, string>): number => {
  const m = family(fs, name).metrics.find((x) => Object.entries(labels).every(([k, v]) => x.labels?.[k] === v));
  assert.ok(m !== undefined, `${name}${JSON.stringify(labels)}`);
  return Number(m.value);
};

test("families follow Prometheus naming: cnisim_ prefix, base units, counters end in _total", async () => {
  const { families } = await scrape(PathMode.VXLAN);
  const expected: Record<string, string> = {
    cnisim_node_cpu_usage_seconds_total: "COUNTER",
    cnisim_node_memory_working_set_bytes: "GAUGE",
    cnisim_node_datapath_cpu_seconds_total: "COUNTER",
    cnisim_pod_cpu_usage_seconds_total: "COUNTER",
    cnisim_pod_memory_working_set_bytes: "GAUGE",
    cnisim_interface_receive_packets_total: "COUNTER",
    cnisim_interface_transmit_bytes_total: "COUNTER",
    cnisim_drops_total: "COUNTER",
    cnisim_policy_verdicts_total: "COUNTER",
    cnisim_conntrack_entries: "GAUGE",
    cnisim_packets_entered_total: "COUNTER",
    cnisim_packets_in_flight: "GAUGE",
  };
  for (const [name, type] of Object.entries(expected)) assert.equal(family(families, name).type, type, name);
  for (const f of families) {
    assert.match(f.name, /^cnisim_[a-z_]+$/);
    assert.equal(f.type === "COUNTER", f.name.endsWith("_total"), f.name);
    assert.ok(f.help.length > 0, `${f.name} has help`);
  }
});

test("values agree with the accounting and with the devices' own counters", async () => {
  const { families, nodes, cluster, now, world } = await scrape(PathMode.VXLAN);
  const acc = accountCluster(cluster, DEFAULT_COST_MODEL, now);
  for (const n of acc.nodes) {
    assert.ok(Math.abs(value(families, "cnisim_node_cpu_usage_seconds_total", { node: n.node.name }) - n.cpuNs / 1e9) < 1e-9);
    assert.equal(value(families, "cnisim_node_memory_working_set_bytes", { node: n.node.name }), n.memoryBytes);
  }
  const encap = value(families, "cnisim_node_datapath_cpu_seconds_total", { node: "node1", step: "vxlanEncap" });
  assert.ok(Math.abs(encap - (DATAGRAMS + 1) * DEFAULT_COST_MODEL.steps.vxlanEncap.packetNs * 1e-9) < 1e-12);
  const eth0 = nodes[0]!.ns.deviceByName("eth0")!;
  assert.equal(value(families, "cnisim_interface_transmit_packets_total", { node: "node1", netns: "host", interface: "eth0" }), eth0.stats.txPackets);
  assert.equal(value(families, "cnisim_interface_receive_bytes_total", { node: "node2", netns: "default/pod2", interface: "eth0" }), nodes[1]!.pod.deviceByName("eth0")!.stats.rxBytes);
  assert.equal(value(families, "cnisim_packets_entered_total", {}), world.ledger.entered);
});

test("drops by node and reason; policy verdicts: decisions minus policy drops are allowed", async () => {
  const { families } = await scrape(PathMode.HOST_GW, true);
  assert.equal(value(families, "cnisim_drops_total", { node: "node2", reason: "NOT_LISTENING", code: "1006" }), 1);
  assert.equal(value(families, "cnisim_drops_total", { node: "node2", reason: "POLICY_DENIED", code: "133" }), 2);
  assert.equal(value(families, "cnisim_policy_verdicts_total", { node: "node2", verdict: "allowed" }), 3);
  assert.equal(value(families, "cnisim_policy_verdicts_total", { node: "node2", verdict: "denied" }), 2);
  assert.equal(value(families, "cnisim_policy_verdicts_total", { node: "node1", verdict: "allowed" }), 0);
});

test("the encapsulating path shows more datapath CPU per node in /metrics than host-gw", async () => {
  const total = (fs: Family[], node: string): number =>
    family(fs, "cnisim_node_datapath_cpu_seconds_total").metrics.filter((m) => m.labels?.node === node).reduce((n, m) => n + Number(m.value), 0);
  const hostGw = (await scrape(PathMode.HOST_GW)).families;
  const vxlan = (await scrape(PathMode.VXLAN)).families;
  const ipip = (await scrape(PathMode.IPIP)).families;
  for (const node of ["node1", "node2"]) {
    assert.ok(total(hostGw, node) < total(ipip, node) && total(ipip, node) < total(vxlan, node), node);
  }
});

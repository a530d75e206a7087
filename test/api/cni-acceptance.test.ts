// The comparison on real CNI plugins: the same pod-to-pod traffic between two nodes shows
// more node CPU through calico-ipip than through Calico without encapsulation (BGP-routed), and
// through flannel-vxlan than through flannel-host-gw, in `top` (metrics-server rates) and in /metrics.
import { test } from "node:test";
import assert from "node:assert/strict";
import { createRequire } from "node:module";
import { clusterMetering } from "../../src/api/cluster-metering.js";
import { buildCluster } from "../../src/cluster/index.js";
import { loadText } from "../../src/k8s/index.js";
import { createPrometheusRegistry, DEFAULT_COST_MODEL, DropCounter, MetricsServer, StoreMeteredCluster, topNodeRows, TopHeaderStyle } from "../../src/metrics/index.js";
import { packet, udpPacket } from "../net/l2/helpers.js";

const parse = createRequire(import.meta.url)("parse-prometheus-text-format") as (text: string) => { name: string; metrics: { value: string; labels?: Record<string, string> }[] }[];

const S = 1e9;
const CNIS = {
  "calico-ipip": "{plugin: calico, mode: ipip, podCIDR: 10.224.0.0/16, blockSize: 26}",
  "calico-bgp": "{plugin: calico, mode: none, podCIDR: 10.224.0.0/16, blockSize: 26}",
  "flannel-vxlan": "{plugin: flannel, mode: vxlan}",
  "flannel-host-gw": "{plugin: flannel, mode: host-gw}",
} as const;
type Cni = keyof typeof CNIS;
const ENCAP_VS_ROUTED: readonly [Cni, Cni][] = [
  ["calico-ipip", "calico-bgp"],
  ["flannel-vxlan", "flannel-host-gw"],
];

function yaml(cni: Cni): string {
  const pod = (name: string, node: string): string =>
    `---\napiVersion: v1\nkind: Pod\nmetadata: {name: ${name}, namespace: default}\nspec: {nodeName: ${node}, containers: [{name: app, image: busybox}]}\n`;
  return (
    "apiVersion: cnisim.io/v1alpha1\nkind: Cluster\nmetadata: {name: acceptance}\nspec:\n" +
    "  underlay: {subnet: 10.1.8.0/24, gateway: 10.1.8.2}\n" +
    "  nodes: [{name: worker31, ip: 10.1.8.31}, {name: worker32, ip: 10.1.8.32}]\n" +
    `  cni: ${CNIS[cni]}\n` +
    pod("sender", "worker31") +
    pod("receiver", "worker32")
  );
}

/** 3,000 datagrams a second of 1,000 bytes sender -> receiver for 3 s; node CPU per top and /metrics. */
async function measure(cni: Cni): Promise<{ topMilli: number[]; datapathSeconds: number[] }> {
  const built = buildCluster(loadText(yaml(cni), `${cni}.yaml`));
  assert.ok(built.ok, built.ok ? "" : built.error.reason);
  const rt = built.value;
  const sender = rt.pod("default/sender")!;
  const receiver = rt.pod("default/receiver")!;
  let got = 0;
  receiver.ns.bindUdp(9000, () => got++);
  const metered = new StoreMeteredCluster(rt.store, { epochMs: 0, ...clusterMetering(rt) });
  const model = { ...DEFAULT_COST_MODEL, resolutionNs: S };
  const ms = new MetricsServer(metered, model);
  const start = rt.sim.now;
  ms.start(rt.sim);
  for (let i = 0; i < 9000; i++) rt.sim.scheduleAt(start + i * 333_333, () => sender.ns.outputIp(packet(rt.world, udpPacket(sender.ip, receiver.ip, 40000, 9000, 1000))));
  rt.runFor(3 * S);
  assert.ok(got > 8900, `${cni}: ${got} datagrams arrived`);
  const nodes = metered.nodes();
  const top = topNodeRows(ms.nodes(), nodes.map((n) => ({ name: n.name, ...n.allocatable })), TopHeaderStyle.CURRENT, true);
  const registry = createPrometheusRegistry({ cluster: metered, model, nowNs: () => rt.sim.now, drops: new DropCounter(), ledger: rt.world.ledger });
  const family = parse(await registry.metrics()).find((f) => f.name === "cnisim_node_datapath_cpu_seconds_total")!;
  const datapathSeconds = ["worker31", "worker32"].map((n) => family.metrics.filter((m) => m.labels?.node === n).reduce((s, m) => s + Number(m.value), 0));
  ms.stop();
  return { topMilli: top.map((r) => Number(r[1]!.replace("m", ""))), datapathSeconds };
}

test("encapsulating CNIs cost the nodes more CPU than routed ones, in top and in /metrics", async () => {
  const r = {} as Record<Cni, { topMilli: number[]; datapathSeconds: number[] }>;
  for (const cni of Object.keys(CNIS) as Cni[]) r[cni] = await measure(cni);
  for (const i of [0, 1]) {
    // Within one plugin, so that only the encapsulation differs (Calico's felix chains cost more per
    // packet than flannel's few rules, so calico-bgp against flannel-vxlan would compare policy engines).
    for (const [encap, routed] of ENCAP_VS_ROUTED) {
      const what = `node ${i}: ${encap} vs ${routed}`;
      assert.ok(r[encap].topMilli[i]! > r[routed].topMilli[i]!, `${what} in top: ${JSON.stringify(r)}`);
      assert.ok(r[encap].datapathSeconds[i]! > r[routed].datapathSeconds[i]!, `${what} in /metrics`);
    }
  }
});

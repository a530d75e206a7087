// The issue's comparison as a user runs it: the same traffic (5,000 datagrams/s of 1,400 bytes pod
// to pod across nodes, plus an HTTP mix through a Service and straight to the pod) through
// calico-ipip costs both nodes more CPU than through Calico without encapsulation (BGP), and through
// flannel-vxlan more than through flannel-host-gw, in `top node` (as `cnisim top node --traffic` prints it) and in
// /metrics (parsed by a real Prometheus text parser, as a rate over the traffic window).
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { emulationBackend, handleRequest, openEmulation, parseTrafficSpec, topOutput, TrafficDriver } from "../../src/api/index.js";
import { TopHeaderStyle } from "../../src/metrics/index.js";

const parse = createRequire(import.meta.url)("parse-prometheus-text-format") as (text: string) => { name: string; metrics: { value: string; labels?: Record<string, string> }[] }[];

const CNIS = {
  "calico-ipip": "{plugin: calico, mode: ipip, podCIDR: 10.224.0.0/16, blockSize: 26}",
  "flannel-vxlan": "{plugin: flannel, mode: vxlan}",
  "calico-bgp": "{plugin: calico, mode: none, podCIDR: 10.224.0.0/16, blockSize: 26}",
  "flannel-host-gw": "{plugin: flannel, mode: host-gw}",
} as const;
type Cni = keyof typeof CNIS;
const ENCAP_VS_ROUTED: readonly [Cni, Cni][] = [
  ["calico-ipip", "calico-bgp"],
  ["flannel-vxlan", "flannel-host-gw"],
];
const NODES = ["worker31", "worker32"] as const;

const TRAFFIC = [
  "udp default/sender->default/receiver:9000 rate=5000/s size=1400",
  "http default/sender->svc/default/web:80 rate=100/s",
  "http default/sender->default/receiver:80 path=/missing rate=20/s",
];

function clusterFile(cni: Cni): string {
  const pod = (name: string, node: string, image: string): string =>
    `---\napiVersion: v1\nkind: Pod\nmetadata: {name: ${name}, namespace: default, labels: {app: ${name}}}\n` +
    `spec: {nodeName: ${node}, containers: [{name: app, image: ${image}}]}\n`;
  const text =
    "apiVersion: cnisim.io/v1alpha1\nkind: Cluster\nmetadata: {name: acceptance}\nspec:\n" +
    "  underlay: {subnet: 10.1.8.0/24, gateway: 10.1.8.2}\n" +
    "  nodes: [{name: worker31, ip: 10.1.8.31}, {name: worker32, ip: 10.1.8.32}]\n" +
    `  cni: ${CNIS[cni]}\n` +
    "  costModel: {resolution: 1s}\n" +
    pod("sender", "worker31", "busybox") +
    pod("receiver", "worker32", "nginx:1.25") +
    "---\napiVersion: v1\nkind: Service\nmetadata: {name: web, namespace: default}\nspec: {selector: {app: receiver}, ports: [{port: 80, targetPort: 80}]}\n";
  const file = join(mkdtempSync(join(tmpdir(), `cnisim-${cni}-`)), "cluster.yaml");
  writeFileSync(file, text);
  return file;
}

interface Measured {
  /** `top node` millicores per node. */
  readonly top: number[];
  /** Increase of cnisim_node_cpu_usage_seconds_total and of its datapath share over the traffic window. */
  readonly cpu: number[];
  readonly datapath: number[];
}

/** Runs the traffic for 3 s on the cluster file; top node as `cnisim top node` prints it, /metrics before and after. */
async function measure(file: string): Promise<Measured> {
  const opened = await openEmulation([file]);
  assert.ok(opened.ok, opened.ok ? "" : opened.error.join("\n"));
  const em = opened.value;
  assert.ok(em.waitForPods());
  const specs = TRAFFIC.map((t) => {
    const s = parseTrafficSpec(t);
    assert.ok(s.ok);
    return s.value;
  });
  const traffic = TrafficDriver.start(em.network!, specs, em.lab.wall.epochMs);
  assert.ok(traffic.ok, traffic.ok ? "" : traffic.error);
  const backend = emulationBackend(em, [traffic.value]);
  const scrape = async (): Promise<{ cpu: number[]; datapath: number[] }> => {
    const r = await handleRequest(backend, { method: "GET", path: "/metrics", query: new URLSearchParams(), accept: "text/plain", host: "127.0.0.1" });
    assert.equal(r.status, 200);
    const families = parse(String(r.body));
    const perNode = (name: string): number[] => {
      const f = families.find((x) => x.name === name);
      assert.ok(f, name);
      return NODES.map((n) => f.metrics.filter((m) => m.labels?.node === n).reduce((sum, m) => sum + Number(m.value), 0));
    };
    return { cpu: perNode("cnisim_node_cpu_usage_seconds_total"), datapath: perNode("cnisim_node_datapath_cpu_seconds_total") };
  };
  const before = await scrape();
  em.advance(3e9);
  const after = await scrape();
  const flows = traffic.value.flows();
  assert.ok(flows[0]!.sent === 15001 && flows[0]!.answered >= 14990, JSON.stringify(flows));
  assert.ok(flows.every((f) => f.failed === 0 && f.answered >= f.sent - 2), JSON.stringify(flows));
  const top = topOutput(
    { what: "node", names: [], namespace: null, labels: () => true, noHeaders: true, style: TopHeaderStyle.CURRENT },
    { metrics: backend.metrics, metered: backend.metered, store: em.lab.store, ageNs: () => 0 },
  );
  traffic.value.stop();
  backend.metrics.stop();
  em.close();
  const rows = top.stdout.map((l) => l.trim().split(/\s+/));
  assert.deepEqual(rows.map((w) => w[0]), [...NODES]);
  const diff = (a: number[], b: number[]): number[] => a.map((x, i) => x - b[i]!);
  return { top: rows.map((w) => Number(w[1]!.replace(/m$/, ""))), cpu: diff(after.cpu, before.cpu), datapath: diff(after.datapath, before.datapath) };
}

test("encapsulating CNIs cost both nodes more CPU than routed ones for the same traffic, in top and in /metrics", async () => {
  const r = {} as Record<Cni, Measured>;
  for (const cni of Object.keys(CNIS) as Cni[]) r[cni] = await measure(clusterFile(cni));
  const report = JSON.stringify(r);
  for (const i of [0, 1]) {
    // Within one plugin, so that only the encapsulation differs (Calico's felix chains cost more per
    // packet than flannel's few rules, so calico-bgp against flannel-vxlan would compare policy engines).
    for (const [encap, routed] of ENCAP_VS_ROUTED) {
      const what = `${NODES[i]}: ${encap} vs ${routed}`;
      assert.ok(r[encap].top[i]! > r[routed].top[i]!, `${what} in top: ${report}`);
      assert.ok(r[encap].cpu[i]! > r[routed].cpu[i]!, `${what} in /metrics cpu: ${report}`);
      assert.ok(r[encap].datapath[i]! > r[routed].datapath[i]!, `${what} in /metrics datapath: ${report}`);
    }
  }
  // Traffic is the difference: every flavour's nodes are well above the idle node (20m system + pods).
  for (const cni of Object.keys(CNIS) as Cni[]) for (const m of r[cni].top) assert.ok(m > 25, `${cni}: ${report}`);
  const m = (seconds: number[]): string => seconds.map((x) => ((x / 3) * 1000).toFixed(1)).join("/");
  console.log(`# top node (millicores, worker31 sender / worker32 receiver): ${Object.entries(r).map(([k, v]) => `${k} ${v.top.join("/")}`).join(", ")}`);
  console.log(`# /metrics datapath rate (millicores): ${Object.entries(r).map(([k, v]) => `${k} ${m(v.datapath)}`).join(", ")}`);
});

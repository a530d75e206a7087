// The CNI comparison: the cost of one cross-node ICMP echo round trip (pod -> its node -> underlay ->
// the other node -> pod and back, through every stack, hook and tunnel on the way) per plugin and
// dataplane, as ratios against flannel host-gw (plain routing, no encapsulation, no policy) measured
// in the same run. A default-allow NetworkPolicy isolates the target pod so policy is consulted.
import { Bench } from "tinybench";
import { buildCluster } from "../src/cluster/build.js";
import type { ClusterRuntime } from "../src/cluster/runtime.js";
import { loadText } from "../src/k8s/load.js";
import { SkBuff } from "../src/skb/skbuff.js";
import { write16, write32 } from "../src/wire/bytes.js";
import { setIpv4HeaderChecksum, setL4ChecksumV4 } from "../src/wire/checksum.js";

const BATCH = 20;

function yaml(cni: string): string {
  const pod = (name: string, node: string) =>
    `---\napiVersion: v1\nkind: Pod\nmetadata: {name: ${name}, namespace: default, labels: {app: ${name}}}\nspec: {nodeName: ${node}, containers: [{name: c, image: busybox}]}\n`;
  return `apiVersion: cnisim.io/v1alpha1
kind: Cluster
metadata: {name: bench}
spec:
  underlay: {subnet: 10.9.0.0/24, gateway: 10.9.0.1}
  nodes: [{name: n1, ip: 10.9.0.11}, {name: n2, ip: 10.9.0.12}]
  cni: {${cni}}
${pod("a", "n1")}${pod("c", "n2")}---
apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata: {name: allow-from-a, namespace: default}
spec: {podSelector: {matchLabels: {app: c}}, policyTypes: [Ingress], ingress: [{from: [{podSelector: {matchLabels: {app: a}}}]}]}
`;
}

function cluster(cni: string): { rt: ClusterRuntime; send: () => void } {
  const r = buildCluster(loadText(yaml(cni), "bench.yaml"));
  if (!r.ok) throw new Error(`${r.error.source}: ${r.error.reason}`);
  const rt = r.value;
  const a = rt.pod("default/a")!;
  const c = rt.pod("default/c")!;
  const p = new Uint8Array(84);
  p[0] = 0x45;
  write16(p, 2, 84);
  p[8] = 64;
  p[9] = 1;
  write32(p, 12, a.ip);
  write32(p, 16, c.ip);
  setIpv4HeaderChecksum(p, 0, 20);
  p[20] = 8;
  setL4ChecksumV4(p, 20, 64, 1, a.ip, c.ip);
  let replies = 0;
  a.ns.listenIcmp(() => replies++);
  const send = (): void => {
    a.ns.outputIp(SkBuff.fromBytes(rt.world.ledger.admit(), p));
    rt.runUntilIdle();
  };
  send();
  if (replies !== 1) throw new Error(`${cni}: no echo reply`);
  return { rt, send };
}

const flavours: [string, string][] = [
  ["flannel host-gw (baseline)", "plugin: flannel, mode: host-gw"],
  ["flannel vxlan", "plugin: flannel, mode: vxlan"],
  ["calico bgp (no encap), iptables policy", "plugin: calico, mode: none"],
  ["calico ipip, iptables policy", "plugin: calico, mode: ipip"],
  ["calico vxlan, iptables policy", "plugin: calico, mode: vxlan"],
  ["calico ipip, eBPF dataplane", "plugin: calico, mode: ipip, dataplane: ebpf"],
];

const bench = new Bench({ time: 500, warmupTime: 100 });
for (const [name, cni] of flavours) {
  const c = cluster(cni);
  bench.add(name, () => {
    for (let i = 0; i < BATCH; i++) c.send();
  });
}
await bench.run();
/** Round trips per second of a task. */
const rate = (i: number): number => {
  const r = bench.tasks[i]?.result;
  return r === undefined || !("throughput" in r) ? 0 : r.throughput.mean * BATCH;
};
const base = rate(0);
console.table(bench.tasks.map((t, i) => ({ flavour: t.name, "round trips/s": Math.round(rate(i)), "cost vs host-gw": (base / rate(i)).toFixed(2) })));

// The seed lab's NodePort + ipBlock experiment (seed-lab.md, networking row 6) over real TCP: policy 05
// admits 10.1.8.0/24 except 10.1.8.128/26 on TCP 80 into web1 (on worker32). The client 10.1.8.100
// connects to NodePort 30790 on each node. Through worker32 the policy sees 10.1.8.100 (kube-proxy's
// DNAT in PREROUTING, Calico's policy in FORWARD, MASQUERADE only in POSTROUTING): allowed. Through
// master30 or worker31 that node masquerades the packet to its tunl0 address as it leaves on tunl0, so
// worker32's policy sees 10.224.x.x: denied, dropped with reason 133 on worker32. web1 runs nginx (the
// runtime starts it); which client address it saw is read from nginx's access log, as `kubectl logs` would.
import { describe, it, before } from "node:test";
import assert from "node:assert/strict";
import { resolve } from "node:path";
import { DropReason } from "../../datapath/reasons.js";
import { buildCluster } from "../../src/cluster/build.js";
import { formatClusterError } from "../../src/cluster/errors.js";
import type { ClusterRuntime } from "../../src/cluster/runtime.js";
import { readFileSync } from "node:fs";
import { loadText } from "../../src/k8s/load.js";
import { httpGet, type HttpResult } from "../../src/cluster/workloads/http/client.js";
import { RingSink } from "../../src/trace/tracer.js";
import { formatIPv4 } from "../../src/util/ip.js";

const lab = (rel: string): string => resolve(process.cwd(), "examples/seed-lab", rel);
const NODE_PORT = 30790;

async function buildLab(dataplane: "iptables" | "ebpf" = "iptables"): Promise<ClusterRuntime> {
  const files = [lab("cluster.yaml"), lab("workloads.yaml"), lab("policies/05-ingress-from-ipblock.yaml")];
  const text = files.map((f) => readFileSync(f, "utf8")).join("\n---\n");
  const load = loadText(dataplane === "ebpf" ? text.replace("blockSize: 26}", "blockSize: 26, dataplane: ebpf}") : text, "seed-lab.yaml", { namespace: "web" });
  assert.deepEqual(load.errors, []);
  const r = buildCluster(load);
  if (!r.ok) assert.fail(formatClusterError(r.error));
  return r.value;
}

/** curl from the client to node:30790 (3 s connect timeout); true when nginx answered. */
function connect(rt: ClusterRuntime, nodeIp: number): boolean {
  const client = rt.externalHost("client")!;
  let result: HttpResult | null = null;
  httpGet(client.ns, { host: formatIPv4(nodeIp), port: NODE_PORT, connectTimeoutNs: 3_000_000_000 }, (r) => (result = r));
  rt.runFor(3_500_000_000);
  rt.runUntilIdle();
  const r = result as HttpResult | null;
  return r !== null && r.kind === "response" && r.status === 200;
}

/** The client addresses in web1's nginx access log. */
function seenByWeb1(rt: ClusterRuntime): string[] {
  return rt.workloads.logs("web/web1").map((line) => line.split(" ")[0]!);
}

describe("seed lab: NodePort from the client with the ipBlock policy", () => {
  let rt: ClusterRuntime;
  const drops = new RingSink();
  before(async () => {
    rt = await buildLab();
    rt.world.tracer.addSink({ drop: (r) => drops.drop(r) });
    assert.ok(rt.workloads.serves("web/web1", "TCP", 80), "nginx in web1 serves TCP 80");
  });

  it("through worker32 (hosting web1): allowed, the policy sees 10.1.8.100", () => {
    assert.equal(connect(rt, rt.node("worker32.cyh.cloud")!.ip), true);
  });

  for (const via of ["master30.cyh.cloud", "worker31.cyh.cloud"]) {
    it(`through ${via}: denied on worker32, which sees ${via}'s tunl0 address`, () => {
      const before = drops.dropRecords.length;
      assert.equal(connect(rt, rt.node(via)!.ip), false);
      const mine = drops.dropRecords.slice(before).filter((d) => d.reason === DropReason.POLICY_DENIED);
      assert.ok(mine.length > 0, "SYNs dropped by policy");
      const tunl0 = rt.node(via)!.ns.deviceByName("tunl0")!;
      for (const d of mine) {
        assert.equal(d.node, "worker32.cyh.cloud");
        assert.equal(formatIPv4(d.after.src), formatIPv4(rt.node(via)!.ns.primaryAddress(tunl0)), "masqueraded to the forwarding node's tunl0 address");
        assert.equal(formatIPv4(d.after.dst), formatIPv4(rt.pod("web/web1")!.ip));
        assert.match(d.explanation ?? "", /ipBlock|10\.1\.8\.0\/24/);
      }
    });
  }
});

describe("seed lab: the documented ways out change the outcome", () => {
  it("externalTrafficPolicy: Local: no SNAT, so only the hosting node answers and the client address is kept", async () => {
    const rt = await buildLab();
    assert.ok(rt.store.modify("Service", "web", "web1", (svc) => {
      svc.spec = { ...svc.spec, externalTrafficPolicy: "Local" };
    }).ok);
    assert.equal(connect(rt, rt.node("worker32.cyh.cloud")!.ip), true);
    assert.equal(connect(rt, rt.node("worker31.cyh.cloud")!.ip), false, "no local endpoint on worker31: kube-proxy drops");
    assert.equal(connect(rt, rt.node("master30.cyh.cloud")!.ip), false);
    assert.deepEqual(seenByWeb1(rt), ["10.1.8.100"]);
  });

  it("Calico eBPF dataplane: NodePort through any node reaches web1 with the client address kept, so the ipBlock admits it", async () => {
    const rt = await buildLab("ebpf");
    assert.equal(rt.plugin.name, "calico-ipip-ebpf");
    assert.equal(rt.services.proxies.size, 0, "kube-proxy is replaced");
    for (const n of ["master30.cyh.cloud", "worker31.cyh.cloud", "worker32.cyh.cloud"]) assert.equal(connect(rt, rt.node(n)!.ip), true, n);
    assert.deepEqual(seenByWeb1(rt), ["10.1.8.100", "10.1.8.100", "10.1.8.100"]);
  });

  it("Calico eBPF still enforces the policy: a pod outside the ipBlock is dropped at web1's node with reason 133", async () => {
    const rt = await buildLab("ebpf");
    const drops = new RingSink();
    rt.world.tracer.addSink({ drop: (r) => drops.drop(r) });
    let result: HttpResult | null = null;
    httpGet(rt.pod("cyh/test")!.ns, { host: formatIPv4(rt.pod("web/web1")!.ip), connectTimeoutNs: 2_000_000_000 }, (r) => (result = r));
    rt.runFor(2_500_000_000);
    assert.equal((result as HttpResult | null)?.kind, "timeout");
    const d = drops.dropRecords.find((r) => r.reason === DropReason.POLICY_DENIED);
    assert.ok(d);
    assert.equal(d.node, "worker32.cyh.cloud");
    assert.match(d.site, /^datapath\//);
  });
});

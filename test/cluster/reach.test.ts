// `reach` on the seed lab (seed-lab.md networking experiments 1 and 2), measured with real TCP
// handshakes through the datapath. Expected matrices come from the lab document: with no policy every
// pod reaches web1/web2 on TCP 80 (nginx) and busybox pods refuse (nothing listens); with policy 01
// (run=web1 ingress from run=test, TCP 80) web/test reaches web1, cyh/test is dropped by policy (133);
// with policy 06 (no ports) web/test can ping web1 but not its ClusterIP (experiment 7). UDP: a declared
// UDP containerPort answers, any other port gets ICMP port unreachable (Linux: ECONNREFUSED).
import { describe, it, before } from "node:test";
import assert from "node:assert/strict";
import { resolve } from "node:path";
import { DropReason } from "../../datapath/reasons.js";
import { buildCluster } from "../../src/cluster/build.js";
import { formatClusterError } from "../../src/cluster/errors.js";
import type { ClusterRuntime } from "../../src/cluster/runtime.js";
import { reach, parseReachPort } from "../../src/cluster/reach.js";
import { selectEndpoints } from "../../src/cluster/probe/endpoints.js";
import { readFileSync } from "node:fs";
import { loadFiles, loadText } from "../../src/k8s/load.js";

const lab = (rel: string): string => resolve(process.cwd(), "examples/seed-lab", rel);

async function buildLab(...extra: string[]): Promise<ClusterRuntime> {
  const load = await loadFiles([lab("cluster.yaml"), lab("workloads.yaml"), ...extra.map(lab)], { namespace: "web" });
  const r = buildCluster(load);
  if (!r.ok) assert.fail(formatClusterError(r.error));
  return r.value;
}

const sel = (rt: ClusterRuntime, s: string, role: "from" | "to") => {
  const r = selectEndpoints(rt, s, role);
  if (!r.ok) assert.fail(r.error);
  return r.value;
};
const TCP80 = [{ port: 80, protocol: "TCP" as const }];
const DENIED = `dropped:${DropReason.POLICY_DENIED}`;

describe("reach: seed lab experiment 1, no policy", () => {
  let rt: ClusterRuntime;
  before(async () => {
    rt = await buildLab();
  });

  it("every pod to every pod on TCP 80: nginx pods accept, busybox pods refuse", () => {
    const r = reach(rt, sel(rt, "pods", "from"), sel(rt, "pods", "to"), TCP80);
    const p = r.probes[0]!;
    assert.deepEqual(p.to, ["cyh/test", "web/test", "web/web1", "web/web2"]);
    assert.deepEqual(p.from, p.to);
    const row = ["refused", "refused", "connected", "connected"];
    assert.deepEqual(p.outcome, [row, row, row, row]);
    assert.deepEqual(p.allowed[0], [false, false, true, true]);
  });

  it("pods and nodes to services, and the client to the NodePort on every node", () => {
    const svc = reach(rt, sel(rt, "pods,nodes", "from"), sel(rt, "svc/web/web1,svc/web/web2", "to"), TCP80).probes[0]!;
    assert.equal(svc.from.length, 7);
    for (const row of svc.outcome) assert.deepEqual(row, ["connected", "connected"]);
    const np = reach(rt, sel(rt, "ext/client", "from"), sel(rt, "nodes", "to"), [{ port: 30790, protocol: "TCP" }]).probes[0]!;
    assert.deepEqual(np.outcome, [["connected", "connected", "connected"]]);
  });
});

describe("reach: seed lab experiment 2, policy 01 (run=web1 from podSelector run=test, TCP 80)", () => {
  it("web/test -> web1 connected, cyh/test -> web1 dropped by policy (133); web2 unaffected", async () => {
    const rt = await buildLab("policies/01-ingress-from-pods-run-test.yaml");
    const p = reach(rt, sel(rt, "web/test,cyh/test,web/web2", "from"), sel(rt, "web/web1,web/web2", "to"), TCP80).probes[0]!;
    assert.deepEqual(p.outcome, [
      ["connected", "connected"],
      [DENIED, "connected"],
      [DENIED, "connected"],
    ]);
    assert.deepEqual(p.allowed, [
      [true, true],
      [false, true],
      [false, true],
    ]);
  });
});

describe("reach: seed lab experiment 7, policy 06 (run=web1 from podSelector run=test, all ports)", () => {
  it("web/test pings web1's pod IP; cyh/test is dropped (133); a ping to the ClusterIP gets no echo reply", async () => {
    const rt = await buildLab("policies/06-ingress-all-ports-from-run-test.yaml");
    const icmp = parseReachPort("ICMP");
    assert.ok(icmp.ok);
    const p = reach(rt, sel(rt, "web/test,cyh/test", "from"), sel(rt, "web/web1,svc/web/web1", "to"), [icmp.value]).probes[0]!;
    assert.equal(p.protocol, "ICMP");
    assert.equal(p.outcome[0]![0], "connected");
    assert.equal(p.outcome[1]![0], DENIED);
    assert.deepEqual(p.allowed.map((row) => row[1]), [false, false], "a ClusterIP only answers its service ports");
  });
});

describe("reach: UDP datagram and reply", () => {
  it("a pod declaring UDP 53 echoes from another node; a pod without it answers port unreachable (refused)", async () => {
    const dns = ["apiVersion: v1", "kind: Pod", "metadata: {name: dns, namespace: web, labels: {run: dns}}",
      "spec: {nodeName: worker31.cyh.cloud, containers: [{name: dns, image: coredns/coredns, ports: [{containerPort: 53, protocol: UDP}]}]}"].join("\n");
    const text = [lab("cluster.yaml"), lab("workloads.yaml")].map((f) => readFileSync(f, "utf8")).join("\n---\n") + "\n---\n" + dns;
    const load = loadText(text, "seed-lab+dns.yaml", { namespace: "web" });
    assert.deepEqual(load.errors, []);
    const built = buildCluster(load);
    if (!built.ok) assert.fail(formatClusterError(built.error));
    const rt = built.value;
    const udp = parseReachPort("53/UDP");
    assert.ok(udp.ok);
    const p = reach(rt, sel(rt, "web/test", "from"), sel(rt, "web/dns,web/web1", "to"), [udp.value]).probes[0]!;
    assert.deepEqual(p.outcome, [["connected", "refused"]]);
  });
});

describe("reach: arguments", () => {
  it("parses ports and names what it rejects", async () => {
    assert.deepEqual(parseReachPort("80/tcp"), { ok: true, value: { port: 80, protocol: "TCP" } });
    assert.deepEqual(parseReachPort("8080"), { ok: true, value: { port: 8080, protocol: "TCP" } });
    assert.equal(parseReachPort("70000").ok, false);
    assert.deepEqual(parseReachPort("icmp"), { ok: true, value: { port: 0, protocol: "ICMP" } });
    assert.deepEqual(parseReachPort("80/SCTP"), { ok: true, value: { port: 80, protocol: "SCTP" } });
    const dccp = parseReachPort("80/DCCP");
    assert.ok(!dccp.ok && /DCCP/.test(dccp.error));
    const rt = await buildLab();
    const bad = selectEndpoints(rt, "web/nope", "to");
    assert.ok(!bad.ok && /web\/nope/.test(bad.error));
    assert.equal(selectEndpoints(rt, "svc", "from").ok, false);
  });
});

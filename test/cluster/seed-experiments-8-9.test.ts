// Seed lab networking experiments 8 and 9 (../shared/scenarios/seed-lab.md; seed document section
// 实施网络策略, "限定端口范围" and "默认策略"), measured with real connection attempts through the
// emulated Calico IPIP datapath. The seed document only shows these policies' YAML and the effect it
// quotes from the Kubernetes documentation, so the expected outcomes are upstream NetworkPolicy
// semantics (kubernetes.io/docs/concepts/services-networking/network-policies):
// - endPort: "the policy allows traffic on a range of ports" port..endPort, both ends included;
// - a pod selected by a policy with Ingress (Egress) in policyTypes is isolated in that direction and
//   admits only what some such policy's rules allow; the rules of all policies add up;
// - "to allow a connection from a source pod to a destination pod, both the egress policy on the
//   source pod and the ingress policy on the destination pod need to allow the connection" (the seed
//   quotes this sentence in bold);
// - default-deny-ingress "does not change the default egress isolation behavior", and vice versa.
// A pod's traffic to its own IP never leaves its network namespace (lo), so no policy applies to it.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { resolve } from "node:path";
import { Writable } from "node:stream";
import { DropReason } from "../../datapath/reasons.js";
import { buildCluster } from "../../src/cluster/build.js";
import { formatClusterError } from "../../src/cluster/errors.js";
import type { ClusterRuntime } from "../../src/cluster/runtime.js";
import { reach, type ReachPort, type ReachProbe } from "../../src/cluster/reach.js";
import { selectEndpoints } from "../../src/cluster/probe/endpoints.js";
import { listenInPod } from "../../src/cluster/probe/exec-listeners.js";
import { probeTcp } from "../../src/cluster/probe/tcp-probe.js";
import { loadFiles } from "../../src/k8s/load.js";
import { networkDemo } from "../../src/cli/demo-network.js";
import { LineOutput } from "../../src/cli/line-output.js";
import type { CliContext } from "../../src/cli/command.js";

const lab = (rel: string): string => resolve(process.cwd(), "examples/seed-lab", rel);

async function buildLab(...policies: string[]): Promise<ClusterRuntime> {
  const load = await loadFiles([lab("cluster.yaml"), lab("workloads.yaml"), ...policies.map((p) => lab(`policies/${p}`))], { namespace: "web" });
  assert.deepEqual(load.errors, []);
  const r = buildCluster(load);
  if (!r.ok) assert.fail(formatClusterError(r.error));
  return r.value;
}

function probe(rt: ClusterRuntime, from: string, to: string, port: ReachPort): ReachProbe {
  const f = selectEndpoints(rt, from, "from");
  const t = selectEndpoints(rt, to, "to");
  if (!f.ok) assert.fail(f.error);
  if (!t.ok) assert.fail(t.error);
  return reach(rt, f.value, t.value, [port]).probes[0]!;
}

const DENIED = `dropped:${DropReason.POLICY_DENIED}`;
const OK = "connected";
const TCP80: ReachPort = { port: 80, protocol: "TCP" };
const ICMP: ReachPort = { port: 0, protocol: "ICMP" };
const PODS = ["cyh/test", "web/test", "web/web1", "web/web2"];

/** The ICMP matrix over the lab's four pods (rows and columns in PODS order). */
function pingMatrix(rt: ClusterRuntime): string[][] {
  const p = probe(rt, PODS.join(","), PODS.join(","), ICMP);
  assert.deepEqual(p.from, PODS);
  assert.deepEqual(p.to, PODS);
  return p.outcome;
}

describe("seed experiment 8: port 32000, endPort 32768 (policy 07)", () => {
  it("web1 listens on 31999, 32000, 32768, 32769: run=test of web connects on 32000 and 32768 only", async () => {
    const rt = await buildLab("07-ingress-port-range.yaml");
    const ports = [31999, 32000, 32768, 32769];
    const close = listenInPod(rt, "web/web1", ports);
    if (!close.ok) assert.fail(close.error);
    const row = (port: number): string[] => probe(rt, "web/test,cyh/test,web/web2", "web/web1", { port, protocol: "TCP" }).outcome.map((r) => r[0]!);
    // Rows: web/test (run=test, same namespace, same node), cyh/test (run=test, other namespace: a bare
    // podSelector means the policy's namespace), web/web2 (run=web2, another node).
    assert.deepEqual(row(31999), [DENIED, DENIED, DENIED], "one below the range");
    assert.deepEqual(row(32000), [OK, DENIED, DENIED], "port: the first port of the range");
    assert.deepEqual(row(32768), [OK, DENIED, DENIED], "endPort: included");
    assert.deepEqual(row(32769), [DENIED, DENIED, DENIED], "one above the range");
    assert.deepEqual(row(80), [DENIED, DENIED, DENIED], "nginx's own port is outside the range");
    close.value();
    assert.equal(row(32000)[0], "refused", "without the listener the same allowed port answers with a reset");
  });

  it("the range names TCP only: a ping from web/test is denied, and the drop explains the port range", async () => {
    const rt = await buildLab("07-ingress-port-range.yaml");
    assert.equal(probe(rt, "web/test", "web/web1", ICMP).outcome[0]![0], DENIED);
    const r = probeTcp(rt, rt.pod("web/test")!.ns, rt.pod("web/web1")!.ip, 32769);
    assert.equal(r.outcome, DENIED);
    const why = r.drops[0]?.explanation ?? "";
    assert.match(why, /my-network-policy/);
    assert.match(why, /32000/);
  });
});

describe("seed experiment 9: default policies in namespace web", () => {
  it("allow-all-ingress (09): every pod of web is isolated, and everything is admitted", async () => {
    const rt = await buildLab("09-allow-all-ingress.yaml");
    const p = probe(rt, PODS.join(","), "web/web1,web/web2", TCP80);
    for (const row of p.outcome) assert.deepEqual(row, [OK, OK]);
  });

  it("allow-all-ingress (09) outweighs default-deny-ingress (10): policies only add allowances", async () => {
    const rt = await buildLab("10-default-deny-ingress.yaml", "09-allow-all-ingress.yaml");
    for (const row of pingMatrix(rt)) assert.deepEqual(row, [OK, OK, OK, OK]);
  });

  it("default-deny-ingress (10): nothing enters a web pod; egress unchanged, so web pods still reach cyh/test", async () => {
    const rt = await buildLab("10-default-deny-ingress.yaml");
    assert.deepEqual(pingMatrix(rt), [
      //cyh/test web/test web/web1 web/web2
      [OK, DENIED, DENIED, DENIED], // from cyh/test
      [OK, OK, DENIED, DENIED], // from web/test
      [OK, DENIED, OK, DENIED], // from web/web1
      [OK, DENIED, DENIED, OK], // from web/web2
    ]);
    const r = probeTcp(rt, rt.pod("cyh/test")!.ns, rt.pod("web/web1")!.ip, 80);
    assert.equal(r.outcome, DENIED);
    assert.equal(r.drops[0]?.node, "worker32.cyh.cloud", "ingress is enforced on the node hosting web1");
    assert.match(r.drops[0]?.explanation ?? "", /default-deny-ingress/);
  });

  it("allow-all-egress (11): nothing is denied; with default-deny-egress (12) too, still nothing", async () => {
    for (const files of [["11-allow-all-egress.yaml"], ["12-default-deny-egress.yaml", "11-allow-all-egress.yaml"]]) {
      const rt = await buildLab(...files);
      for (const row of pingMatrix(rt)) assert.deepEqual(row, [OK, OK, OK, OK], files.join(" + "));
    }
  });

  it("default-deny-egress (12): nothing leaves a web pod; ingress unchanged, so cyh/test reaches every web pod", async () => {
    const rt = await buildLab("12-default-deny-egress.yaml");
    assert.deepEqual(pingMatrix(rt), [
      [OK, OK, OK, OK],
      [DENIED, OK, DENIED, DENIED],
      [DENIED, DENIED, OK, DENIED],
      [DENIED, DENIED, DENIED, OK],
    ]);
    const r = probeTcp(rt, rt.pod("web/web2")!.ns, rt.pod("web/web1")!.ip, 80);
    assert.equal(r.outcome, DENIED);
    assert.equal(r.drops[0]?.node, "worker31.cyh.cloud", "egress is enforced on the source's node (web2 on worker31)");
    // Name resolution breaks too, as in real clusters: the query to kube-dns is egress like any other.
    assert.deepEqual(probe(rt, "web/test,cyh/test", "svc/kube-system/kube-dns", { port: 53, protocol: "UDP" }).outcome, [[DENIED], [OK]]);
    assert.match(r.drops[0]?.explanation ?? "", /egress[\s\S]*default-deny-egress/);
  });

  it("default-deny-all (13): both directions of every web pod closed", async () => {
    const rt = await buildLab("13-default-deny-all.yaml");
    assert.deepEqual(pingMatrix(rt), [
      [OK, DENIED, DENIED, DENIED],
      [DENIED, OK, DENIED, DENIED],
      [DENIED, DENIED, OK, DENIED],
      [DENIED, DENIED, DENIED, OK],
    ]);
    const p = probe(rt, "cyh/test,web/web2", "web/web1,svc/web/web1", TCP80);
    assert.deepEqual(p.outcome, [
      [DENIED, DENIED],
      [DENIED, DENIED],
    ]);
  });
});

describe("seed experiment 9: a connection needs the source's egress AND the destination's ingress", () => {
  it("ingress allowed by web1's policy (01), egress denied by the source's (12): denied at the source", async () => {
    const rt = await buildLab("01-ingress-from-pods-run-test.yaml", "12-default-deny-egress.yaml");
    const r = probeTcp(rt, rt.pod("web/test")!.ns, rt.pod("web/web1")!.ip, 80);
    assert.equal(r.outcome, DENIED);
    assert.match(r.drops[0]?.explanation ?? "", /egress out of pod web\/test[\s\S]*default-deny-egress/);
    assert.equal(probe(rt, "cyh/test", "web/web1", TCP80).outcome[0]![0], DENIED, "cyh/test may send, but 01 does not admit it");
  });

  it("adding allow-all-egress (11) to 01 + 12: both sides allow, web/test connects; cyh/test still denied", async () => {
    const rt = await buildLab("01-ingress-from-pods-run-test.yaml", "12-default-deny-egress.yaml", "11-allow-all-egress.yaml");
    assert.deepEqual(probe(rt, "web/test,cyh/test", "web/web1", TCP80).outcome, [[OK], [DENIED]]);
  });

  it("egress allowed by allow-all-egress (11), ingress denied by default-deny-ingress (10): denied at the destination", async () => {
    const rt = await buildLab("10-default-deny-ingress.yaml", "11-allow-all-egress.yaml");
    const r = probeTcp(rt, rt.pod("web/test")!.ns, rt.pod("web/web1")!.ip, 80);
    assert.equal(r.outcome, DENIED);
    assert.match(r.drops[0]?.explanation ?? "", /ingress into pod web\/web1[\s\S]*default-deny-ingress/);
  });
});

describe("cnisim demo, network experiments 8 and 9", () => {
  it("prints each experiment with its expectation and the measured matrices", async () => {
    let text = "";
    const sink = new Writable({
      write(chunk: Buffer, _enc, done) {
        text += chunk.toString();
        done();
      },
    });
    const ctx: CliContext = { out: new LineOutput(sink), err: new LineOutput(sink), exitCode: 0 };
    assert.equal(await networkDemo(process.cwd(), ctx, "8"), 0);
    assert.equal(await networkDemo(process.cwd(), ctx, "9f"), 0);
    await ctx.out.flush();
    assert.match(text, /=== 8\. /);
    assert.match(text, /PORT 32000\/TCP\nFROM \\ TO\s+web\/web1\nweb\/test\s+connected\ncyh\/test\s+dropped:133\nweb\/web2\s+dropped:133/);
    assert.match(text, /PORT 32769\/TCP\nFROM \\ TO\s+web\/web1\nweb\/test\s+dropped:133/);
    assert.match(text, /=== 9f\. [\s\S]*expected \(Kubernetes NetworkPolicy semantics\)[\s\S]*web\/test\s+dropped:133/);
    assert.equal(await networkDemo(process.cwd(), ctx, "10"), 1, "an unknown id is reported");
  });
});

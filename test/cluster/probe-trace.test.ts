// `trace` for UDP (datagram and reply) and ICMP echo on the seed lab, with the same hop-by-hop path,
// translations and verdicts as TCP. Expected behaviour:
// - UDP to a ClusterIP: kube-proxy's DNAT in PREROUTING of the client's node, IPIP to the backend's
//   node, the echo's reply un-NATed back to the ClusterIP; an unserved UDP port answers ICMP port
//   unreachable (udp_rcv: no socket -> icmp_send(ICMP_DEST_UNREACH, ICMP_PORT_UNREACH)).
// - Experiment 7 (seed-lab.md; policy 06, ingress from run=test, no ports): web/test pings web1's pod
//   IP, cyh/test is denied by policy. A ping to web1's ClusterIP: kube-proxy (iptables mode) installs
//   only `-d CLUSTER-IP -p tcp --dport 80` rules, so no DNAT; the node routes 10.103.36.143 by its
//   main table, where the service CIDR has no route: the default route via 10.1.8.2 takes it off the
//   node (Calico's natOutgoing masquerades it to the node address on the way). The seed's ping then
//   printed "1 packets transmitted, 0 received, 100% packet loss" without an error line: the lab's
//   gateway forwarded it upstream and nothing answered.
import { describe, it, before } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { DropReason } from "../../datapath/reasons.js";
import { buildCluster } from "../../src/cluster/build.js";
import { formatClusterError } from "../../src/cluster/errors.js";
import type { ClusterRuntime } from "../../src/cluster/runtime.js";
import { formatTracePath, parseTraceTarget } from "../../src/cluster/trace-path.js";
import { loadText } from "../../src/k8s/load.js";
import { formatIPv4 } from "../../src/util/ip.js";
import { trace } from "./support/trace.js";

const lab = (rel: string): string => readFileSync(resolve(process.cwd(), "examples/seed-lab", rel), "utf8");
const W31 = "worker31.cyh.cloud";
const W32 = "worker32.cyh.cloud";

const UDP_ECHO = `apiVersion: v1
kind: Pod
metadata: {name: echo, namespace: web, labels: {run: echo}}
spec: {nodeName: ${W31}, containers: [{name: e, image: busybox, ports: [{containerPort: 5353, protocol: UDP}]}]}
---
apiVersion: v1
kind: Service
metadata: {name: echo, namespace: web}
spec: {selector: {run: echo}, ports: [{port: 53, targetPort: 5353, protocol: UDP}]}`;

function build(...docs: string[]): ClusterRuntime {
  const load = loadText([lab("cluster.yaml"), lab("workloads.yaml"), ...docs].join("\n---\n"), "seed-lab.yaml", { namespace: "web" });
  assert.deepEqual(load.errors, []);
  const r = buildCluster(load);
  if (!r.ok) assert.fail(formatClusterError(r.error));
  return r.value;
}

describe("trace: UDP datagram and reply", () => {
  let rt: ClusterRuntime;
  before(() => {
    rt = build(UDP_ECHO);
  });

  it("to a ClusterIP: DNAT on the client's node, IPIP to worker31, delivered; the reply un-NATed back to the ClusterIP", () => {
    const p = trace(rt, "web/test", "svc/web/echo");
    assert.deepEqual([p.to.protocol, p.to.port], ["UDP", 53], "the service's first port and its protocol");
    assert.equal(p.outcome, "connected");
    const echo = formatIPv4(rt.pod("web/echo")!.ip);
    const svc = formatIPv4(p.to.addr);
    const [request, reply] = [...new Set(p.hops.map((h) => h.packetId))];
    const req = p.hops.filter((h) => h.packetId === request);
    const dnat = req.find((h) => h.note.startsWith("DNAT"));
    assert.ok(dnat);
    assert.deepEqual([dnat.node, dnat.hook, dnat.note], [W32, "PREROUTING", `DNAT ${svc}:53 -> ${echo}:5353`]);
    assert.ok(req.some((h) => h.node === W32 && /encap ipip/.test(h.note)), "IPIP from worker32");
    assert.ok(req.some((h) => h.node === W31 && h.hook === "socket" && h.note === "socket port 5353"), "delivered to the echo's socket");
    const rep = p.hops.filter((h) => h.packetId === reply);
    const unnat = rep.find((h) => h.note.startsWith("SNAT"));
    assert.ok(unnat, "the reply's source restored to the ClusterIP");
    assert.equal(unnat.note, `SNAT ${echo}:5353 -> ${svc}:53`);
    assert.equal(formatIPv4(rep.at(-1)!.tuple.src), svc);
    const text = formatTracePath(p).join("\n");
    assert.match(text, new RegExp(`^trace web/test -> svc/web/echo \\(${svc.replace(/\./g, "\\.")}:53/UDP\\)`));
    assert.match(text, /verdict: connected/);
  });

  it("to an unserved port: NOT_LISTENING on worker31, ICMP port unreachable back: refused", () => {
    const p = trace(rt, "web/test", "web/echo:5354/UDP");
    assert.equal(p.outcome, "refused");
    assert.equal(p.drops[0]?.record.reason, DropReason.NOT_LISTENING);
    assert.equal(p.drops[0]?.record.node, W31);
    const back = p.hops.filter((h) => h.tuple.proto === 1 && h.tuple.dstPort === 3);
    assert.ok(back.some((h) => h.node === W32 && h.hook === "socket"), "the ICMP error reaches web/test");
    assert.match(formatTracePath(p).join("\n"), /ICMP unreachable/);
  });
});

describe("trace: ICMP echo, seed experiment 7 (policy 06)", () => {
  let rt: ClusterRuntime;
  before(() => {
    rt = build(lab("policies/06-ingress-all-ports-from-run-test.yaml"));
  });

  it("web/test pings web1's pod IP: echo request and reply", () => {
    const p = trace(rt, "web/test", "web/web1/ICMP");
    assert.deepEqual([p.to.protocol, p.to.port], ["ICMP", 0]);
    assert.equal(p.outcome, "connected");
    const text = formatTracePath(p).join("\n");
    assert.match(text, /ICMP echo request id \d+/);
    assert.match(text, /ICMP echo reply id \d+/);
  });

  it("cyh/test pings web1: IPIP from worker31, dropped 133 by web1's ingress policy on worker32", () => {
    const p = trace(rt, "cyh/test", "web/web1/ICMP");
    assert.equal(p.outcome, `dropped:${DropReason.POLICY_DENIED}`);
    assert.ok(p.hops.some((h) => h.node === W31 && /encap ipip/.test(h.note)));
    assert.equal(p.drops[0]?.record.node, W32);
    assert.match(p.drops[0]?.record.explanation ?? "", /my-network-policy/);
  });

  it("a ping to web1's ClusterIP: no DNAT, routed by the default route off the node, explained; never answered by web1", () => {
    const p = trace(rt, "web/test", "svc/web/web1/ICMP");
    assert.notEqual(p.outcome, "connected");
    const svc = formatIPv4(p.to.addr);
    assert.equal(svc, "10.103.36.143");
    assert.ok(!p.hops.some((h) => h.note.startsWith(`DNAT ${svc}`)), "kube-proxy has no rule for ICMP");
    const routed = p.hops.find((h) => h.node === W32 && h.note.startsWith("routed via"));
    assert.equal(routed?.note, "routed via eth0", "the default route (via 10.1.8.2 dev eth0), not a pod interface");
    assert.ok(p.hops.some((h) => h.node === W32 && h.hook === "POSTROUTING" && h.note.startsWith("SNAT 10.224.")), "natOutgoing: masqueraded to the node address");
    assert.ok(!p.hops.some((h) => formatIPv4(h.tuple.src) === formatIPv4(rt.pod("web/web1")!.ip)), "web1 never sees it");
    assert.match(p.notes?.join("\n") ?? "", /only on the service's ports \(80\/TCP\); an ICMP echo matches no KUBE-SERVICES rule/);
    assert.match(formatTracePath(p).join("\n"), /note: no DNAT/);
  });

  it("the gateway forwards off-subnet traffic upstream through its uplink, as the lab's 10.1.8.2 did: the ping times out like the seed's", () => {
    const rt2 = build(lab("policies/06-ingress-all-ports-from-run-test.yaml"));
    const before = rt2.underlay.uplink.live.emitted;
    const p = trace(rt2, "web/test", "svc/web/web1/ICMP");
    assert.equal(p.outcome, "timeout");
    assert.deepEqual(p.drops, []);
    assert.equal(rt2.underlay.uplink.live.emitted - before, 1, "the echo left through the gateway's uplink");
  });
});

describe("trace: destinations", () => {
  it("parses protocols and ports, and names what it rejects", () => {
    const rt = build(UDP_ECHO);
    const t = (s: string) => parseTraceTarget(rt, s);
    assert.deepEqual(t("10.1.8.31"), { ok: true, value: { label: "10.1.8.31", addr: 0x0a01081f, port: 0, protocol: "ICMP" } }, "an IP without a port is pinged");
    assert.deepEqual(t("node/worker31.cyh.cloud"), { ok: true, value: { label: "node/worker31.cyh.cloud", addr: 0x0a01081f, port: 0, protocol: "ICMP" } });
    const udp = t("web/echo:5353/udp");
    assert.ok(udp.ok && udp.value.protocol === "UDP" && udp.value.port === 5353);
    const sctp = t("10.1.8.31:9999/SCTP");
    assert.ok(sctp.ok && sctp.value.protocol === "SCTP");
    const pod = t("web/web1");
    assert.ok(pod.ok && pod.value.protocol === "TCP" && pod.value.port === 80, "a pod without a port: TCP 80");
    for (const bad of ["10.1.8.31:80/ICMP", "node/worker31.cyh.cloud/UDP", "web/nope", "10.1.8.31:70000"]) assert.ok(!t(bad).ok, bad);
  });
});

describe("cnisim trace -o json (child process)", () => {
  it("an ICMP echo to web1's ClusterIP: protocol ICMP, port 0, and the notes explaining the missing DNAT", () => {
    const seed = (f: string): string => resolve(process.cwd(), "examples/seed-lab", f);
    const main = resolve(dirname(fileURLToPath(import.meta.url)), "../../src/cli/main.js");
    const stdout = execFileSync(process.execPath, [main, "trace", "-f", seed("cluster.yaml"), seed("workloads.yaml"), seed("policies/06-ingress-all-ports-from-run-test.yaml"), "-n", "web", "--from", "web/test", "--to", "svc/web/web1/ICMP", "-o", "json"], { encoding: "utf8" });
    const j = JSON.parse(stdout) as { to: { protocol: string; port: number; address: string }; verdict: string; notes: string[]; hops: { tuple: string }[] };
    assert.deepEqual(j.to, { name: "svc/web/web1", address: "10.103.36.143", port: 0, protocol: "ICMP" });
    assert.notEqual(j.verdict, "connected");
    assert.match(j.notes[0] ?? "", /^no DNAT: kube-proxy \(iptables mode\)/);
    assert.match(j.hops[0]?.tuple ?? "", /-> 10\.103\.36\.143 ICMP echo request id \d+$/);
  });
});

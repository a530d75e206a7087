// SCTP through the seed lab's datapath: a pod declaring SCTP containerPort 9999 (on worker31) and a
// Service mapping SCTP 99 to it. Expected behaviour, from the RFC and Linux:
// - association setup is INIT, INIT ACK, COOKIE ECHO, COOKIE ACK (RFC 4960 5.1): "connected";
// - an INIT to a port nobody listens on, in a namespace with SCTP, gets an ABORT whose verification tag
//   is the INIT's Initiate Tag with the T bit clear (RFC 4960 8.4 rule 3; Linux sctp_sf_do_5_1B_init ->
//   sctp_sf_tabort_8_4_8, sctp_make_abort sets T only when the chunk is not an INIT): "refused";
// - in a namespace without SCTP the stack answers ICMP protocol unreachable (ip_local_deliver finds no
//   protocol handler): "refused";
// - kube-proxy's iptables rules DNAT a ClusterIP's SCTP port like TCP's (-p sctp);
// - NetworkPolicy ports name the protocol: a TCP 9999 rule does not admit SCTP 9999, an SCTP one does.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { DropReason } from "../../datapath/reasons.js";
import { buildCluster } from "../../src/cluster/build.js";
import { formatClusterError } from "../../src/cluster/errors.js";
import type { ClusterRuntime } from "../../src/cluster/runtime.js";
import { parseReachPort, reach } from "../../src/cluster/reach.js";
import { selectEndpoints } from "../../src/cluster/probe/endpoints.js";
import { probeSctp } from "../../src/cluster/probe/sctp-probe.js";
import { SctpEndpoint, SctpHost, type SctpPacket } from "../../src/cluster/workloads/sctp-endpoint.js";
import { loadText } from "../../src/k8s/load.js";
import { PcapTap } from "./support/capture.js";
import { tsharkFields, tsharkMissing } from "./workloads/tshark.js";

const lab = (rel: string): string => readFileSync(resolve(process.cwd(), "examples/seed-lab", rel), "utf8");

const SCTP_POD = `apiVersion: v1
kind: Pod
metadata: {name: sctp, namespace: web, labels: {run: sctp}}
spec: {nodeName: worker31.cyh.cloud, containers: [{name: s, image: busybox, ports: [{containerPort: 9999, protocol: SCTP}]}]}
---
apiVersion: v1
kind: Service
metadata: {name: sctp, namespace: web}
spec: {selector: {run: sctp}, ports: [{port: 99, targetPort: 9999, protocol: SCTP}]}`;

const policy = (protocol: string): string => `apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata: {name: sctp-from-test, namespace: web}
spec:
  podSelector: {matchLabels: {run: sctp}}
  ingress: [{from: [{podSelector: {matchLabels: {run: test}}}], ports: [{protocol: ${protocol}, port: 9999}]}]`;

function build(...extra: string[]): ClusterRuntime {
  const load = loadText([lab("cluster.yaml"), lab("workloads.yaml"), SCTP_POD, ...extra].join("\n---\n"), "seed-lab+sctp.yaml", { namespace: "web" });
  assert.deepEqual(load.errors, []);
  const r = buildCluster(load);
  if (!r.ok) assert.fail(formatClusterError(r.error));
  return r.value;
}

function matrix(rt: ClusterRuntime, from: string, to: string, port: string): string[][] {
  const f = selectEndpoints(rt, from, "from");
  const t = selectEndpoints(rt, to, "to");
  const p = parseReachPort(port);
  if (!f.ok || !t.ok || !p.ok) assert.fail("bad selection");
  return reach(rt, f.value, t.value, [p.value]).probes[0]!.outcome;
}

describe("SCTP probes (reach --port N/SCTP)", () => {
  it("pod to pod across nodes and via the ClusterIP: the four-way handshake completes; no listener or no SCTP: refused; an unserved ClusterIP port: unanswered", () => {
    const rt = build();
    assert.deepEqual(matrix(rt, "web/test,cyh/test", "web/sctp,web/web1", "9999/SCTP"), [
      ["connected", "refused"],
      ["connected", "refused"],
    ]);
    assert.deepEqual(matrix(rt, "web/test", "svc/web/sctp", "99/SCTP"), [["connected"]], "kube-proxy DNATs SCTP 99 -> 9999");
    assert.deepEqual(matrix(rt, "web/test", "svc/web/sctp", "9999/SCTP"), [["timeout"]], "the ClusterIP has no SCTP 9999: no DNAT, routed out by the default route, never answered");
  });

  it("the endpoint counts the INIT it answered and the association the COOKIE ECHO established", () => {
    const rt = build();
    const pod = rt.pod("web/sctp")!;
    const ep = new SctpEndpoint(pod.ns, 7777);
    assert.deepEqual(ep.start(), { ok: true, value: undefined });
    assert.ok(!new SctpEndpoint(pod.ns, 7777).start().ok, "the port is taken");
    const r = probeSctp(rt, rt.pod("web/test")!.ns, pod.ip, 7777);
    assert.equal(r.outcome, "connected");
    assert.deepEqual([ep.initsAnswered, ep.established], [1, 1]);
    ep.stop();
    assert.equal(probeSctp(rt, rt.pod("web/test")!.ns, pod.ip, 7777).outcome, "refused", "stopped: ABORT");
  });

  it("an INIT to a port without a listener gets ABORT, T bit clear, tagged with the INIT's Initiate Tag", () => {
    const rt = build();
    const server = new SctpEndpoint(rt.pod("web/sctp")!.ns, 9999);
    if (!server.start().ok) assert.ok(SctpHost.of(rt.pod("web/sctp")!.ns).ok, "the runtime serves 9999: SCTP is loaded there");
    const client = SctpHost.of(rt.pod("web/test")!.ns);
    assert.ok(client.ok);
    const seen: SctpPacket[] = [];
    const port = client.value.bindEphemeral({ packet: (p) => void seen.push(p) });
    assert.ok(port.ok);
    const init = { kind: "init" as const, initiateTag: 0x0badcafe, aRwnd: 106496, outboundStreams: 10, inboundStreams: 65535, initialTsn: 1, params: new Uint8Array(0) };
    assert.ok(client.value.send(0, rt.pod("web/sctp")!.ip, port.value, 9998, 0, [init]).ok);
    rt.runUntilIdle();
    assert.equal(seen.length, 1);
    const p = seen[0]!;
    assert.deepEqual([p.srcPort, p.dstPort, p.verificationTag], [9998, port.value, 0x0badcafe]);
    assert.deepEqual(p.chunks, [{ kind: "abort", tBit: false, causes: new Uint8Array(0) }]);
    // A COOKIE ECHO out of the blue (rule 8): ABORT reflecting the packet's own tag, T bit set.
    assert.ok(client.value.send(0, rt.pod("web/sctp")!.ip, port.value, 9998, 0x12345678, [{ kind: "cookie-echo", cookie: new Uint8Array(8) }]).ok);
    rt.runUntilIdle();
    assert.deepEqual([seen[1]?.verificationTag, seen[1]?.chunks[0]], [0x12345678, { kind: "abort", tBit: true, causes: new Uint8Array(0) }]);
    client.value.unbind(port.value);
    server.stop();
  });

  it("a TCP 9999 policy rule does not admit SCTP 9999: dropped by policy (133) with the explanation", () => {
    const rt = build(policy("TCP"));
    const r = probeSctp(rt, rt.pod("web/test")!.ns, rt.pod("web/sctp")!.ip, 9999);
    assert.equal(r.outcome, `dropped:${DropReason.POLICY_DENIED}`);
    assert.equal(r.drops[0]?.node, "worker31.cyh.cloud");
    assert.equal(r.drops[0]?.before.proto, 132);
    assert.match(r.drops[0]?.explanation ?? "", /sctp-from-test/);
  });

  it("an SCTP 9999 rule admits run=test of web, and only it", () => {
    const rt = build(policy("SCTP"));
    assert.deepEqual(matrix(rt, "web/test,cyh/test,web/web2", "web/sctp", "9999/SCTP"), [["connected"], ["dropped:133"], ["dropped:133"]]);
  });
});

describe("SCTP on the wire, decoded by tshark", { skip: tsharkMissing() ?? false }, () => {
  it("worker32's eth0 carries INIT, INIT ACK, COOKIE ECHO, COOKIE ACK, ABORT inside IPIP, every CRC32c good", async () => {
    const rt = build();
    const tap = new PcapTap(rt.node("worker32.cyh.cloud")!.ns.deviceByName("eth0")!);
    const tapIn = new PcapTap(rt.node("worker31.cyh.cloud")!.ns.deviceByName("eth0")!, "w31");
    assert.deepEqual(matrix(rt, "web/test", "web/sctp", "9999/SCTP"), [["connected"]]);
    const frames = [...(await tap.finish()), ...(await tapIn.finish())].map((f) => f.bytes).filter((b) => b.length > 34 && b[23] === 4);
    const rows = await tsharkFields(frames, ["frame.time_relative", "sctp.srcport", "sctp.dstport", "sctp.chunk_type", "sctp.checksum.status"], ["-o", "sctp.checksum:CRC 32c", "-Y", "sctp"]);
    const sent = rows.filter((r) => r[2] === "9999").map((r) => r[3]);
    const got = rows.filter((r) => r[1] === "9999").map((r) => r[3]);
    assert.deepEqual(sent, ["1", "10", "6"], "INIT, COOKIE ECHO, ABORT from web/test");
    assert.deepEqual(got, ["2", "11"], "INIT ACK, COOKIE ACK from web/sctp");
    for (const r of rows) assert.equal(r[4], "1", `checksum of chunk ${r[3]}`);
  });
});

describe("cnisim reach --port N/SCTP (child process)", () => {
  it("prints the documented JSON shape with protocol SCTP", () => {
    const dir = mkdtempSync(join(tmpdir(), "cnisim-sctp-"));
    const file = join(dir, "sctp.yaml");
    writeFileSync(file, SCTP_POD);
    const seed = (f: string): string => resolve(process.cwd(), "examples/seed-lab", f);
    const main = resolve(dirname(fileURLToPath(import.meta.url)), "../../src/cli/main.js");
    const stdout = execFileSync(process.execPath, [main, "reach", "-f", seed("cluster.yaml"), seed("workloads.yaml"), file, "-n", "web", "--from", "web/test", "--to", "web/sctp,web/web1", "--port", "9999/SCTP", "-o", "json"], { encoding: "utf8" });
    rmSync(dir, { recursive: true, force: true });
    assert.deepEqual(JSON.parse(stdout), {
      probes: [{ port: 9999, protocol: "SCTP", from: ["web/test"], to: ["web/sctp", "web/web1"], allowed: [[true, false]], outcome: [["connected", "refused"]] }],
    });
  });
});

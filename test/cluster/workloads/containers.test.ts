// Pod containers started by the runtime itself (issue 5: "every pod listens on its declared
// containerPorts and answers them; nginx serves HTTP on 80 even when no port is declared; busybox only
// runs clients"; issue 9: no fixture starts servers). Expected texts come from the seed lab document:
// `bash -c 'echo Hello web1 > /usr/share/nginx/html/index.html'` makes nginx answer "Hello web1", and
// before that nginx serves its stock welcome page ("Welcome to nginx!"). SCTP: RFC 4960's four-way
// handshake to a declared port, ABORT for a port nobody listens on.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { TcpStack } from "../../../src/net/tcp/index.js";
import { UdpSocket } from "../../../src/net/udp-socket.js";
import type { ClusterRuntime } from "../../../src/cluster/runtime.js";
import { openServerListeners } from "../../../src/cluster/probe/servers.js";
import { probeSctp } from "../../../src/cluster/probe/sctp-probe.js";
import { buildSeedLab, exec } from "./lab-cluster.js";

const APP = [
  "apiVersion: v1",
  "kind: Pod",
  "metadata: {name: app, namespace: web, labels: {run: app}}",
  "spec:",
  "  nodeName: worker31.cyh.cloud",
  "  containers:",
  "  - name: app",
  "    image: example.com/team/app:1.0",
  "    ports: [{containerPort: 8080}, {containerPort: 9000, protocol: UDP}, {containerPort: 7000, protocol: SCTP}]",
].join("\n");

type Outcome = "connected" | "refused" | "timeout" | "other";

function tcpConnect(rt: ClusterRuntime, from: string, dst: number, port: number): Outcome {
  let outcome: Outcome | null = null;
  const r = TcpStack.of(rt.pod(from)!.ns).connect(dst, port, {
    onConnect: (s) => {
      outcome = "connected";
      s.close();
    },
    onClose: (_s, e) => {
      if (outcome === null) outcome = e === null ? "other" : e.errno === "ECONNREFUSED" ? "refused" : e.errno === "ETIMEDOUT" ? "timeout" : "other";
    },
  }, { timeoutNs: 3e9 });
  assert.ok(r.ok);
  const limit = rt.sim.now + 5e9;
  while (outcome === null && rt.sim.now < limit && rt.sim.pending > 0) rt.sim.step();
  return outcome ?? "timeout";
}

function udpRoundTrip(rt: ClusterRuntime, from: string, dst: number, port: number, payload: string): string | null {
  let answer: string | null = null;
  const sock = UdpSocket.bind(rt.pod(from)!.ns, 0, { onMessage: (_s, m) => { answer = new TextDecoder().decode(m.data); } });
  assert.ok(sock.ok);
  sock.value.send(dst, port, new TextEncoder().encode(payload));
  rt.runFor(1e9);
  sock.value.close();
  return answer;
}

describe("pod containers started by the runtime", () => {
  const rt = buildSeedLab([APP]);
  const web1 = rt.pod("web/web1")!.ip;
  const app = rt.pod("web/app")!.ip;

  it("an nginx pod serves the stock welcome page on 80 without declaring a port", () => {
    const out = exec(rt, "web/web2", "curl", "-s", `http://${rt.store.get("Pod", "web", "web1")!.status!.podIP}/`);
    assert.equal(out.exitCode, 0, out.stderr.join("\n"));
    assert.ok(out.stdout.includes("<title>Welcome to nginx!</title>"), out.stdout.join("\n"));
  });

  it("`bash -c 'echo Hello web1 > /usr/share/nginx/html/index.html'` changes what nginx serves", () => {
    const w = exec(rt, "web/web1", "bash", "-c", "echo Hello web1 > /usr/share/nginx/html/index.html");
    assert.equal(w.exitCode, 0, w.stderr.join("\n"));
    const out = exec(rt, "web/web2", "curl", "-s", "web1");
    assert.deepEqual([out.exitCode, out.stdout], [0, ["Hello web1"]]);
  });

  it("a busybox pod runs no server: TCP 80 is refused (RST), not dropped", () => {
    assert.equal(tcpConnect(rt, "web/web2", rt.pod("web/test")!.ip, 80), "refused");
    assert.equal(tcpConnect(rt, "web/web2", web1, 80), "connected");
  });

  it("declared ports listen: TCP accepts, UDP echoes, undeclared ports refuse", () => {
    assert.equal(tcpConnect(rt, "web/test", app, 8080), "connected");
    assert.equal(tcpConnect(rt, "web/test", app, 8081), "refused");
    assert.equal(udpRoundTrip(rt, "web/test", app, 9000, "ping me"), "ping me");
    assert.equal(udpRoundTrip(rt, "web/test", app, 9001, "nobody"), null);
  });

  it("a declared SCTP port answers association setup across nodes; another SCTP port is refused (ABORT)", () => {
    const from = rt.pod("web/test")!.ns;
    assert.equal(probeSctp(rt, from, app, 7000).outcome, "connected");
    assert.equal(probeSctp(rt, from, app, 7001).outcome, "refused");
    assert.deepEqual(rt.notices(), []);
  });

  it("requestsServed counts HTTP requests and echoed datagrams per pod", () => {
    const before = rt.workloads.requestsServed("web/web1");
    exec(rt, "web/test", "wget", "-q", "-O", "-", "web1");
    assert.equal(rt.workloads.requestsServed("web/web1"), before + 1);
    const echoed = rt.workloads.requestsServed("web/app");
    udpRoundTrip(rt, "web/test", app, 9000, "x");
    assert.equal(rt.workloads.requestsServed("web/app"), echoed + 1);
    assert.equal(rt.workloads.requestsServed("web/test"), 0);
  });

  it("openServerListeners leaves the ports the containers serve alone", () => {
    const close = openServerListeners(rt);
    const out = exec(rt, "web/test", "wget", "-q", "-O", "-", "web1");
    close();
    assert.deepEqual(out.stdout, ["Hello web1"]);
    assert.equal(exec(rt, "web/test", "wget", "-q", "-O", "-", "web1").exitCode, 0, "closing the probe listeners keeps nginx");
  });

  it("a deleted pod stops serving; a pod added later serves at its new address", () => {
    rt.store.delete("Pod", "web", "app");
    assert.equal(rt.workloads.serves("web/app", "TCP", 8080), false);
    rt.store.add({
      apiVersion: "v1",
      kind: "Pod",
      metadata: { name: "late", namespace: "web", labels: { run: "late" } },
      spec: { nodeName: "worker32.cyh.cloud", containers: [{ name: "late", image: "nginx:1.27" }] },
    });
    rt.runUntilIdle();
    const late = rt.pod("web/late");
    assert.ok(late !== undefined);
    assert.equal(tcpConnect(rt, "web/test", late.ip, 80), "connected");
  });

  it("a pod re-wired on another node serves at its new address and no longer at the old one", () => {
    const old = rt.pod("web/late")!.ip;
    rt.store.modify("Pod", "web", "late", (p) => {
      p.spec!.nodeName = "worker31.cyh.cloud";
      delete (p as { status?: unknown }).status;
    });
    rt.runUntilIdle();
    const moved = rt.pod("web/late")!;
    assert.equal(moved.node, "worker31.cyh.cloud");
    assert.notEqual(moved.ip, old);
    assert.equal(tcpConnect(rt, "web/test", moved.ip, 80), "connected");
    assert.notEqual(tcpConnect(rt, "web/test", old, 80), "connected");
  });
});

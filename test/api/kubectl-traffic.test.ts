// The real kubectl against the served seed lab on its network runtime (Calico IPIP, kube-proxy
// iptables): `kubectl top node` in an idle window, then in a window with HTTP and UDP traffic
// flowing from web/test (worker32) to web2 (worker31) through its Service: the CPU of both nodes
// rises, and `kubectl top pod -A` shows the pods that served and sent it above the idle baseline.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { parseTrafficSpec, TrafficDriver, type RequestCounter } from "../../src/api/index.js";
import { kubectl, kubectlMissing, SEED_FILES, serveFiles, type Served } from "./serve-fixture.js";

const missing = kubectlMissing();
const skip = missing ?? false;

let served: Served;
const extra: RequestCounter[] = [];

before(async () => {
  if (missing === null) served = await serveFiles(SEED_FILES, 60e9, {}, extra);
});

after(async () => {
  if (missing === null) await served.close();
});

const rows = (text: string): Map<string, string[]> => new Map(text.trimEnd().split("\n").slice(1).map((l) => l.trim().split(/\s+/)).map((w) => [w[0]!, w.slice(1)]));
const milli = (cell: string | undefined): number => Number((cell ?? "").replace(/m$/, ""));

test("kubectl top node: CPU rises on the nodes traffic crosses, and top pod -A shows who did the work", { skip }, async () => {
  const idle = await kubectl(served.url, "top", "node");
  assert.equal(idle.code, 0, idle.stderr);
  const idleNodes = rows(idle.stdout);
  assert.deepEqual(idleNodes.get("worker31.cyh.cloud")?.[0], "49m", "the seed's idle worker");

  const specs = ["web/test->svc/web/web2:80 rate=200/s", "udp web/test->web/web2:9000 rate=2000/s size=1000"].map((t) => {
    const s = parseTrafficSpec(t);
    assert.ok(s.ok);
    return s.value;
  });
  const traffic = TrafficDriver.start(served.em.network!, specs, served.lab.wall.epochMs);
  assert.ok(traffic.ok, traffic.ok ? "" : traffic.error);
  extra.push(traffic.value);
  served.em.advance(30e9);
  traffic.value.stop();
  const flows = traffic.value.flows();
  assert.ok(flows.every((f) => f.failed === 0 && f.answered > 0.99 * f.sent), JSON.stringify(flows));

  const busy = await kubectl(served.url, "top", "node");
  assert.equal(busy.code, 0, busy.stderr);
  const busyNodes = rows(busy.stdout);
  for (const node of ["worker31.cyh.cloud", "worker32.cyh.cloud"]) {
    assert.ok(milli(busyNodes.get(node)?.[0]) > milli(idleNodes.get(node)?.[0]) + 5, `${node}: ${idle.stdout}${busy.stdout}`);
  }
  assert.equal(busyNodes.get("master30.cyh.cloud")?.[0], idleNodes.get("master30.cyh.cloud")?.[0], "no traffic on the control plane");

  const pods = await kubectl(served.url, "top", "pod", "-A");
  assert.equal(pods.code, 0, pods.stderr);
  const byName = new Map(pods.stdout.trimEnd().split("\n").slice(1).map((l) => l.trim().split(/\s+/)).map((w) => [`${w[0]}/${w[1]}`, w.slice(2)]));
  // web2 answered 200 requests/s and 2,000 datagrams/s at 7 µs each (the idle pod's per-request
  // cost) plus its datapath work: above 15m. The sender pays its own stack and veth crossings.
  assert.ok(milli(byName.get("web/web2")?.[0]) > 15, pods.stdout);
  assert.ok(milli(byName.get("web/test")?.[0]) > 1, pods.stdout);
  assert.deepEqual(byName.get("cyh/test"), ["1m", "1Mi"], "a pod without traffic stays at the idle baseline");
});

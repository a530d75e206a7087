// Per-request workload usage: a pod declares CPU per request served (usage.cnisim.io/cpu-per-request),
// the count comes from the runtime's `workloads.requestsServed(podKey)` when it has one (read through
// an optional interface) plus the servers a traffic driver started; a pod that declares nothing pays
// the model's idle per-request cost.
import { test } from "node:test";
import assert from "node:assert/strict";
import { clusterMetering, parseTrafficSpec, runtimeRequestCounter, TrafficDriver } from "../../src/api/index.js";
import { buildCluster, formatClusterError, type ClusterRuntime } from "../../src/cluster/index.js";
import { HttpServer, httpGet } from "../../src/cluster/workloads/index.js";
import { loadText } from "../../src/k8s/index.js";
import { formatIPv4 } from "../../src/util/ip.js";
import { accountPod, DEFAULT_COST_MODEL, StoreMeteredCluster, type MeteredPod } from "../../src/metrics/index.js";

function cluster(): ClusterRuntime {
  const yaml =
    "apiVersion: cnisim.io/v1alpha1\nkind: Cluster\nmetadata: {name: requests}\nspec:\n" +
    "  underlay: {subnet: 10.1.8.0/24, gateway: 10.1.8.2}\n" +
    "  nodes: [{name: worker31, ip: 10.1.8.31}, {name: worker32, ip: 10.1.8.32}]\n" +
    "  cni: {plugin: flannel, mode: host-gw}\n" +
    "---\napiVersion: v1\nkind: Pod\nmetadata: {name: client, namespace: default}\nspec: {nodeName: worker31, containers: [{name: app, image: busybox}]}\n" +
    "---\napiVersion: v1\nkind: Pod\nmetadata: {name: api, namespace: default, annotations: {usage.cnisim.io/cpu: 5m, usage.cnisim.io/cpu-per-request: 200us}}\n" +
    "spec: {nodeName: worker32, containers: [{name: app, image: nginx:1.25}]}\n" +
    "---\napiVersion: v1\nkind: Pod\nmetadata: {name: plain, namespace: default}\nspec: {nodeName: worker32, containers: [{name: app, image: busybox}]}\n";
  const r = buildCluster(loadText(yaml, "requests.yaml"));
  if (!r.ok) assert.fail(formatClusterError(r.error));
  return r.value;
}

function pods(rt: ClusterRuntime, options: Parameters<typeof clusterMetering>[1] = []): Map<string, MeteredPod> {
  const metered = new StoreMeteredCluster(rt.store, { epochMs: 0, ...clusterMetering(rt, options) });
  return new Map(metered.pods().map((p) => [p.name, p]));
}

test("the runtime's workloads.requestsServed feeds declared CPU per request", () => {
  const rt = cluster();
  const api = rt.pod("default/api")!;
  // The runtime serves HTTP on 80 for an nginx image and counts requests (rt.workloads); on a runtime
  // without that counter, this test's own server and a counter of the specified shape stand in.
  let own = runtimeRequestCounter(rt);
  if (own === null) {
    const server = new HttpServer(api.ns, { port: 80 });
    assert.ok(server.start().ok);
    Object.assign(rt, { workloads: { requestsServed: (key: string): number => (key === "default/api" ? server.stats.requests : 0) } });
    own = runtimeRequestCounter(rt);
  }
  assert.ok(own !== null);
  let answered = 0;
  const host = formatIPv4(api.ip);
  for (let i = 0; i < 50; i++) httpGet(rt.pod("default/client")!.ns, { host, port: 80 }, (r) => void (r.kind === "response" && answered++));
  rt.runFor(5e9);
  assert.equal(answered, 50);
  assert.equal(own.requestsServed("default/api"), 50);
  const p = pods(rt).get("api")!;
  assert.equal(p.requestsServed(), 50);
  const acc = accountPod(p, DEFAULT_COST_MODEL, rt.sim.now);
  const seconds = (rt.sim.now - p.startedAtNs) / 1e9;
  assert.ok(Math.abs(acc.workloadCpuNs - (5e6 * seconds + 200_000 * 50)) < 1e-3, `${acc.workloadCpuNs}`);
});

test("a traffic driver's own servers count requests; an undeclared pod pays the idle per-request cost", () => {
  const rt = cluster();
  const specs = ["udp default/client->default/plain:9000 rate=1000/s size=200", "http default/client->default/api:8080 rate=50/s"].map((t) => {
    const s = parseTrafficSpec(t);
    assert.ok(s.ok);
    return s.value;
  });
  const driver = TrafficDriver.start(rt, specs, 0);
  assert.ok(driver.ok, driver.ok ? "" : driver.error);
  rt.runFor(2e9);
  driver.value.stop();
  const [udp, http] = driver.value.flows();
  assert.deepEqual([udp!.sent, http!.sent], [2001, 101]);
  assert.equal(driver.value.requestsServed("default/plain"), udp!.answered);
  assert.equal(driver.value.requestsServed("default/api"), http!.answered);
  assert.ok(udp!.answered >= 1999 && http!.answered >= 100, JSON.stringify(driver.value.flows()));

  const m = pods(rt, [driver.value]);
  const own = runtimeRequestCounter(rt)?.requestsServed("default/plain") ?? 0;
  const plain = accountPod(m.get("plain")!, DEFAULT_COST_MODEL, rt.sim.now);
  const seconds = (rt.sim.now - m.get("plain")!.startedAtNs) / 1e9;
  const expected = DEFAULT_COST_MODEL.idleCpuNanoCores * seconds + DEFAULT_COST_MODEL.idleRequestCpuNs * (udp!.answered + own);
  assert.ok(Math.abs(plain.workloadCpuNs - expected) < 1e-3, `${plain.workloadCpuNs} vs ${expected}`);
  const api = accountPod(m.get("api")!, DEFAULT_COST_MODEL, rt.sim.now);
  assert.ok(api.workloadCpuNs >= 200_000 * http!.answered, "the declared 200 µs per request, not the idle cost");
});

// Work that is now charged from counters: iptables NAT rewrites (nf_nat_packet runs on every packet
// of a translated connection, both directions, at the node that translated it), iptables rules
// evaluated, and in the eBPF personality the datapath maps (CT, ipcache, LB, policy) read through
// the programs attached to the node's devices.
import { test } from "node:test";
import assert from "node:assert/strict";
import { clusterMetering, datapathMapsOf } from "../../src/api/cluster-metering.js";
import { buildCluster, formatClusterError, type ClusterRuntime } from "../../src/cluster/index.js";
import { HttpServer, httpGet, type HttpResult } from "../../src/cluster/workloads/index.js";
import { loadText } from "../../src/k8s/index.js";
import { accountCluster, DEFAULT_COST_MODEL, StoreMeteredCluster } from "../../src/metrics/index.js";

function cluster(cni: string): ClusterRuntime {
  const pod = (name: string, node: string): string =>
    `---\napiVersion: v1\nkind: Pod\nmetadata: {name: ${name}, namespace: default, labels: {app: ${name}}}\nspec: {nodeName: ${node}, containers: [{name: app, image: busybox}]}\n`;
  const yaml =
    "apiVersion: cnisim.io/v1alpha1\nkind: Cluster\nmetadata: {name: nat}\nspec:\n" +
    "  underlay: {subnet: 10.1.8.0/24, gateway: 10.1.8.2}\n" +
    "  nodes: [{name: worker31, ip: 10.1.8.31}, {name: worker32, ip: 10.1.8.32}]\n" +
    `  cni: ${cni}\n` +
    pod("client", "worker31") +
    pod("server", "worker32") +
    "---\napiVersion: v1\nkind: Service\nmetadata: {name: web, namespace: default}\nspec: {clusterIP: 10.96.0.80, selector: {app: server}, ports: [{port: 80, targetPort: 8080}]}\n";
  const r = buildCluster(loadText(yaml, "nat.yaml"));
  if (!r.ok) assert.fail(formatClusterError(r.error));
  return r.value;
}

/** Three GETs to the Service's cluster IP from the client pod; returns the results. */
function getThrough(rt: ClusterRuntime): HttpResult[] {
  const server = new HttpServer(rt.pod("default/server")!.ns, { port: 8080 });
  assert.ok(server.start().ok);
  const results: HttpResult[] = [];
  for (let i = 0; i < 3; i++) {
    httpGet(rt.pod("default/client")!.ns, { host: "10.96.0.80", port: 80 }, (r) => results.push(r));
    rt.runFor(2e9);
  }
  assert.equal(server.stats.requests, 3);
  return results;
}

function metered(rt: ClusterRuntime): ReturnType<typeof accountCluster> {
  return accountCluster(new StoreMeteredCluster(rt.store, { epochMs: 0, ...clusterMetering(rt) }), DEFAULT_COST_MODEL, rt.sim.now);
}

test("iptables personality: every packet of a DNATed connection is rewritten once at the client's node, and charged", () => {
  const rt = cluster("{plugin: calico, mode: ipip, podCIDR: 10.224.0.0/16, blockSize: 26}");
  const before = rt.node("worker31")!.ns.netfilter.nat.rewrites;
  const evaluated0 = rt.node("worker31")!.ns.netfilter.table("nat").rulesEvaluated;
  const results = getThrough(rt);
  assert.deepEqual(results.map((r) => r.kind), ["response", "response", "response"]);
  const client = rt.pod("default/client")!.ns.counters.ip;
  const n1 = rt.node("worker31")!.ns.netfilter;
  // nf_nat_packet: the original direction gets its destination translated in PREROUTING, replies get
  // the source translated back: one rewrite per IP packet the client sent or received (all of them
  // belong to the three connections to the Service).
  assert.ok(client.OutRequests >= 3 * 5, "SYN, ACK, request, FIN and ACK at least, per connection");
  assert.equal(n1.nat.rewrites - before, client.OutRequests + client.InDelivers);
  assert.equal(rt.node("worker32")!.ns.netfilter.nat.rewrites, 0, "the server's node sees the backend address: no translation there");
  assert.ok(n1.table("nat").rulesEvaluated > evaluated0, "kube-proxy's nat rules were evaluated");
  const acc = metered(rt);
  const w31 = acc.nodes.find((n) => n.node.name === "worker31")!;
  assert.equal(w31.work.packets("natRewrite"), n1.nat.rewrites);
  let evaluated = 0;
  let modules = 0;
  let traversals = 0;
  for (const t of ["raw", "mangle", "nat", "filter"] as const) {
    evaluated += n1.table(t).rulesEvaluated;
    modules += n1.table(t).matchesEvaluated;
    traversals += n1.table(t).traversals;
  }
  const onNode = acc.pods.filter((p) => p.pod.nodeName === "worker31");
  const podRules = onNode.reduce((s, p) => s + p.work.packets("netfilterRule"), 0);
  const podModules = onNode.reduce((s, p) => s + p.work.packets("netfilterMatch"), 0);
  const podTraversals = onNode.reduce((s, p) => s + p.work.packets("netfilterHook"), 0);
  assert.equal(w31.work.packets("netfilterRule"), evaluated + podRules, "every rule evaluated is charged (host namespace plus its pods')");
  assert.equal(w31.work.stepCpuNs("netfilterRule", DEFAULT_COST_MODEL), (evaluated + podRules) * 40);
  // Every rule the host walks carries a comment (kube-proxy's and felix's), so each calls a module at least
  // when ip_packet_match passes; each table run is one netfilterHook.
  assert.ok(modules > 0);
  assert.equal(w31.work.packets("netfilterMatch"), modules + podModules);
  assert.equal(w31.work.packets("netfilterHook"), traversals + podTraversals);
  const fwd = rt.node("worker31")!.ns.counters.ip.ForwDatagrams;
  assert.ok(traversals >= 5 * fwd, "raw, mangle (PREROUTING), mangle, filter (FORWARD), mangle (POSTROUTING) per forwarded packet at least");
});

test("eBPF personality: the node's datapath maps are found through its attached programs and their lookups charged", () => {
  const rt = cluster("{plugin: calico, mode: ipip, dataplane: ebpf, podCIDR: 10.224.0.0/16, blockSize: 26}");
  const maps = datapathMapsOf(rt.node("worker31")!.eth0);
  assert.ok(maps !== null, "calico eBPF attaches programs to eth0");
  assert.equal(datapathMapsOf(rt.node("worker31")!.eth0), maps);
  const results = getThrough(rt);
  assert.deepEqual(results.map((r) => r.kind), ["response", "response", "response"]);
  assert.ok(maps.lb.services.stats.hits >= 3, "the service frontend was found for each connection");
  const acc = metered(rt);
  const w31 = acc.nodes.find((n) => n.node.name === "worker31")!;
  const lookups = [maps.ipcache.v4, maps.endpoints.table, maps.tunnel.lpm, maps.fib.lpm, maps.lb.services, maps.lb.backends, maps.lb.revNat, maps.lb.affinity, maps.snat.table]
    .map((m) => m.stats.lookups)
    .reduce((a, b) => a + b, 0);
  assert.ok(lookups > 0);
  assert.equal(w31.work.packets("bpfMapLookup"), lookups);
  assert.ok(w31.work.packets("conntrackLookup") >= maps.ct.stats.lookups);
  assert.ok(w31.work.packets("natRewrite") >= maps.lb.services.stats.hits);
  const clientPolicy = acc.pods.find((p) => p.pod.name === "client")!.work.packets("policyLookup");
  const serverPolicy = acc.pods.find((p) => p.pod.name === "server")!.work.packets("policyLookup");
  assert.equal(clientPolicy, rt.policy.compiler.endpoint("default/client")?.map.stats.lookups ?? 0);
  assert.ok(serverPolicy > 0 || clientPolicy > 0, "policy decisions were taken and charged to the pods");
});

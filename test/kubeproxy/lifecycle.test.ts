// KubeProxy follows the store: endpoints appearing, pods turning unready, services deleted (their
// chains removed with -X), loading errors reported with the line, and batched re-syncs.
import { test } from "node:test";
import assert from "node:assert/strict";
import { KubeProxy } from "../../src/kubeproxy/index.js";
import { formatTableSave } from "../../src/net/netfilter/index.js";
import { unwrap } from "../../src/util/result.js";
import { cluster } from "./model-harness.js";
import { podObject, serviceObject } from "./objects.js";
import { CLIENT_IP, NODE_IP, NODE_NAME } from "./topology.js";
import { SkBuff } from "../../src/skb/skbuff.js";
import { ip, tcpPacket } from "./packets.js";

const CLUSTER_IP = "10.96.0.50";
const natChains = (c: ReturnType<typeof cluster>): string[] => c.topo.node.netfilter.table("nat").chains().map((ch) => ch.name);

test("re-sync on store events: a pod appearing behind a rejecting service makes it reachable", () => {
  const c = cluster(1, [{ name: "pod0", labels: { app: "client" } }], [serviceObject("web", { clusterIP: CLUSTER_IP })]);
  const pod0 = c.pod("pod0");
  pod0.connect(CLUSTER_IP, 80);
  c.topo.run();
  assert.equal(pod0.seen.filter((s) => s.icmp?.type === 3 && s.icmp.code === 3).length, 1, "rejected while there are no endpoints");

  const web1 = c.topo.addPod("web1");
  web1.serve(8080);
  const syncs = c.proxy.syncs;
  unwrap(c.store.add(podObject("web1", web1.address, { node: NODE_NAME })));
  assert.ok(c.proxy.syncs > syncs, "the endpoints change triggered a sync");
  const sport = pod0.connect(CLUSTER_IP, 80);
  c.topo.run();
  assert.equal(web1.syns.filter((s) => s.sport === sport).length, 1, "DNATed to the new endpoint");
  assert.ok(c.proxy.lastReport!.ruleset.text.includes(`--to-destination ${web1.address}:8080`));
});

test("an unready pod leaves the rules; deleting the service deletes its chains", () => {
  const c = cluster(2, [{ name: "web1", labels: { app: "web" } }], [serviceObject("web", { clusterIP: CLUSTER_IP })]);
  assert.ok(natChains(c).some((n) => n.startsWith("KUBE-SEP-")));
  unwrap(c.store.modify("Pod", "default", "web1", (p) => ((p as { status?: unknown }).status = { ...p.status, conditions: [{ type: "Ready", status: "False" }] })));
  assert.ok(!natChains(c).some((n) => n.startsWith("KUBE-SEP-") || n.startsWith("KUBE-SVC-")), "no ready endpoint: no service chains");
  assert.ok(c.proxy.lastReport!.ruleset.text.includes('"default/web:http has no endpoints"'));
  unwrap(c.store.delete("Service", "default", "web"));
  assert.ok(!c.proxy.lastReport!.ruleset.text.includes("default/web"), "the deleted service has no rules");
  assert.ok(!c.topo.node.netfilter.save().includes("default/web"), "nor in the loaded tables");
});

test("service chains of a removed endpoint are deleted on the next sync (-X)", () => {
  const c = cluster(3, [{ name: "web1", labels: { app: "web" } }, { name: "web2", labels: { app: "web" } }], [serviceObject("web", { clusterIP: CLUSTER_IP })]);
  const before = natChains(c).filter((n) => n.startsWith("KUBE-SEP-"));
  assert.equal(before.length, 2);
  unwrap(c.store.delete("Pod", "default", "web2"));
  const after = natChains(c).filter((n) => n.startsWith("KUBE-SEP-"));
  assert.equal(after.length, 1);
  assert.match(c.proxy.lastReport!.ruleset.text, /^-X KUBE-SEP-/m);
  assert.equal(c.proxy.lastReport!.ruleset.deletedChains, 1);
});

test("syncDelayNs batches changes into one sync on simulated time", () => {
  const c = cluster(4, [], [serviceObject("web", { clusterIP: CLUSTER_IP })], {}, 1_000_000_000);
  const start = c.proxy.syncs;
  for (let i = 0; i < 5; i++) unwrap(c.store.add(podObject(`w${i}`, `10.244.9.${i + 2}`, { node: "node-b" })));
  assert.equal(c.proxy.syncs, start, "nothing before the delay");
  c.topo.world.sim.runUntil(c.topo.world.sim.now + 1_000_000_000);
  assert.equal(c.proxy.syncs, start + 1, "one sync for five changes");
  assert.equal((c.proxy.lastReport!.ruleset.text.match(/-j DNAT/g) ?? []).length, 5);
});

test("loading errors name the restore line; config errors name the field", () => {
  const empty = cluster(5, [], []);
  const bad = KubeProxy.create({ store: empty.store, slices: empty.endpoints, netfilter: empty.topo.node.netfilter, config: { nodeName: "n", clusterCIDR: "10.0.0.0/33" } });
  assert.equal(bad.ok, false);
  assert.match(!bad.ok ? (bad.error.kind === "config" ? bad.error.message : "") : "", /clusterCIDR: "10\.0\.0\.0\/33" is not an IPv4 CIDR/);

  // Another program's rule jumps to a kube-proxy service chain: when the service goes, the chain's
  // "-X" fails as in iptables-restore (chain in use), and the nat block is not applied at all.
  const c = cluster(6, [{ name: "web1", labels: { app: "web" } }], [serviceObject("web", { clusterIP: CLUSTER_IP })]);
  const nat = c.topo.node.netfilter.table("nat");
  const svcChain = natChains(c).find((n) => n.startsWith("KUBE-SVC-"));
  assert.ok(svcChain !== undefined);
  unwrap(nat.append("PREROUTING", { target: { kind: "JUMP", chain: svcChain } }));
  const before = formatTableSave(nat, false);
  unwrap(c.store.delete("Service", "default", "web"));
  const r = c.proxy.sync();
  assert.equal(r.ok, false);
  const e = !r.ok && r.error.kind === "load" ? r.error : null;
  assert.ok(e !== null);
  assert.equal(e.stage, "restore");
  assert.equal(e.table, "nat");
  assert.equal(e.lineText, `-X ${svcChain}`);
  assert.match(e.reason, /referenced by 1 rule/);
  assert.equal(formatTableSave(nat, false), before, "the failed nat block left the table as it was");
});

test("clusterCIDR unset (the seed lab): off-cluster and host traffic to a ClusterIP keeps its source; set: masqueraded", () => {
  for (const clusterCIDR of [undefined, "10.244.0.0/16"]) {
    const masq = clusterCIDR !== undefined;
    const c = cluster(7, [{ name: "web1", labels: { app: "web" } }], [serviceObject("web", { clusterIP: CLUSTER_IP })], clusterCIDR === undefined ? {} : { clusterCIDR });
    const web1 = c.pod("web1");
    c.topo.client.connect(CLUSTER_IP, 80);
    // The node's own connection: source chosen by the route to the ClusterIP (eth0), kept after DNAT.
    c.topo.node.outputIp(SkBuff.fromBytes(c.topo.world.ledger.admit(), tcpPacket(0, ip(CLUSTER_IP), 33000, 80)));
    c.topo.run();
    const sources = web1.syns.map((s) => `${s.src}:${s.sport}`).sort();
    if (masq) {
      // Neither source is in clusterCIDR: both leave masqueraded to the veth's address.
      assert.equal(web1.syns.length, 2);
      assert.ok(web1.syns.every((s) => s.src === c.topo.nodeSideOf(web1.address)), sources.join(" "));
    } else {
      assert.deepEqual(sources, [`${CLIENT_IP}:40000`, `${NODE_IP}:33000`].sort(), "sources and ports kept");
    }
  }
});

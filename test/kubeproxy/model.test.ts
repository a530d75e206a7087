// kube-proxy on the real network model: rules loaded into a node namespace's netfilter, real packets
// from pods and from an external client over an Ethernet link, checked where they arrive.
import { test } from "node:test";
import assert from "node:assert/strict";
import { DropReason } from "../../datapath/reasons.js";
import { RingSink } from "../../src/trace/tracer.js";
import { TcpFlag } from "../../src/wire/tcp.js";
import { backendOf, cluster } from "./model-harness.js";
import { serviceObject } from "./objects.js";
import { CLIENT_IP, NODE_IP } from "./topology.js";
import { ip } from "./packets.js";

const CLUSTER_IP = "10.96.0.50";
const web = (name: string) => ({ name, labels: { app: "web" } });
const clientPod = { name: "pod0", labels: { app: "client" } };

test("ClusterIP: a pod's SYN is DNATed to one backend, the SYN-ACK comes back from the ClusterIP", () => {
  const c = cluster(3, [clientPod, web("web1"), web("web2")], [serviceObject("web", { clusterIP: CLUSTER_IP })]);
  const pod0 = c.pod("pod0");
  const sport = pod0.connect(CLUSTER_IP, 80);
  c.topo.run();
  const backend = backendOf(c, sport);
  assert.ok(backend === "web1" || backend === "web2", `a backend got the SYN (${backend})`);
  const syn = c.pod(backend).syns.find((s) => s.sport === sport)!;
  assert.deepEqual([syn.src, syn.dst, syn.dport, syn.checksumsOk], [pod0.address, c.pod(backend).address, 8080, true], "no SNAT for pod traffic");
  const reply = pod0.seen.find((s) => s.dport === sport)!;
  assert.deepEqual([reply.src, reply.sport, reply.dst, reply.flags, reply.checksumsOk], [CLUSTER_IP, 80, pod0.address, TcpFlag.SYN | TcpFlag.ACK, true], "reverse NAT on the reply");
  assert.equal(c.proxy.lastReport?.servicePorts, 1);
});

test("NodePort, externalTrafficPolicy Cluster: the client's connection is masqueraded to the node's address on the way out", () => {
  const svc = serviceObject("web", { type: "NodePort", clusterIP: CLUSTER_IP, ports: [{ name: "http", port: 80, protocol: "TCP", targetPort: 8080, nodePort: 30080 }] });
  const c = cluster(5, [web("web1"), web("web2")], [svc]);
  const sports = Array.from({ length: 8 }, () => c.topo.client.connect(NODE_IP, 30080));
  c.topo.run();
  let syns = 0;
  for (const pod of c.topo.pods.values()) {
    for (const syn of pod.syns) {
      syns++;
      assert.equal(syn.src, c.topo.nodeSideOf(pod.address), "MASQUERADE picks the outgoing veth's address");
      assert.deepEqual([syn.dst, syn.dport, syn.checksumsOk], [pod.address, 8080, true]);
    }
  }
  assert.equal(syns, sports.length, "every SYN reached a backend");
  assert.ok(c.pod("web1").syns.length > 0 && c.pod("web2").syns.length > 0, "both backends used");
  const replies = c.topo.client.seen.filter((s) => sports.includes(s.dport));
  assert.equal(replies.length, sports.length, "every connection is answered");
  for (const r of replies) assert.deepEqual([r.src, r.sport, r.dst, r.flags, r.checksumsOk], [NODE_IP, 30080, CLIENT_IP, TcpFlag.SYN | TcpFlag.ACK, true]);
  assert.match(c.proxy.lastReport!.ruleset.text, /-j MASQUERADE --random-fully/);
});

test("NodePort, externalTrafficPolicy Local: only the local endpoint, client address kept; Cluster also picks the remote one", () => {
  const ports = [{ name: "http", port: 80, protocol: "TCP" as const, targetPort: 8080, nodePort: 30080 }];
  const pods = [web("web1"), { ...web("web-remote"), remoteIP: "10.244.2.2" }];
  const local = cluster(9, pods, [serviceObject("web", { type: "NodePort", clusterIP: CLUSTER_IP, ports, externalTrafficPolicy: "Local" })]);
  const sports = Array.from({ length: 40 }, () => local.topo.client.connect(NODE_IP, 30080));
  local.topo.run();
  const web1 = local.pod("web1");
  assert.equal(web1.syns.length, 40, "every connection goes to the node's own endpoint");
  assert.ok(web1.syns.every((s) => s.src === CLIENT_IP), "no SNAT: the pod sees the client");
  assert.equal(local.topo.client.seen.filter((s) => sports.includes(s.dport) && s.src === NODE_IP && s.sport === 30080).length, 40);

  const clusterPolicy = cluster(9, pods, [serviceObject("web", { type: "NodePort", clusterIP: CLUSTER_IP, ports, externalTrafficPolicy: "Cluster" })]);
  for (let i = 0; i < 40; i++) clusterPolicy.topo.client.connect(NODE_IP, 30080);
  clusterPolicy.topo.run();
  const n = clusterPolicy.pod("web1").syns.length;
  assert.ok(n > 5 && n < 35, `Cluster policy spreads over both endpoints (${n}/40 local)`);
});

test("externalTrafficPolicy Local without a local endpoint: external traffic is dropped, not rejected", () => {
  const sink = new RingSink();
  const ports = [{ name: "http", port: 80, protocol: "TCP" as const, targetPort: 8080, nodePort: 30080 }];
  const c = cluster(2, [{ ...web("web-remote"), remoteIP: "10.244.2.2" }], [serviceObject("web", { type: "NodePort", clusterIP: CLUSTER_IP, ports, externalTrafficPolicy: "Local" })]);
  c.topo.world.tracer.addSink(sink);
  const sport = c.topo.client.connect(NODE_IP, 30080);
  c.topo.run();
  assert.equal(c.topo.client.seen.filter((s) => s.dport === sport || s.icmp !== undefined).length, 0, "no answer at all");
  const drop = sink.dropRecords.find((d) => d.reason === DropReason.NETFILTER_DROP);
  assert.ok(drop !== undefined, "dropped by a netfilter rule");
  assert.equal(drop.node, "node-a");
  assert.match(drop.site, /KUBE-EXTERNAL-SERVICES/);
});

test("a service without endpoints: TCP and UDP get ICMP port unreachable (kube-proxy's REJECT), quoting the ClusterIP", () => {
  const svc = serviceObject("empty", { clusterIP: "10.96.0.60", selector: { app: "nothing" }, ports: [{ name: "http", port: 80, protocol: "TCP", targetPort: 8080 }, { name: "dns", port: 53, protocol: "UDP", targetPort: 53 }] });
  const c = cluster(4, [clientPod], [svc]);
  const pod0 = c.pod("pod0");
  pod0.connect("10.96.0.60", 80, "tcp");
  pod0.connect("10.96.0.60", 53, "udp");
  c.topo.run();
  const errors = pod0.seen.filter((s) => s.icmp !== undefined);
  assert.equal(errors.length, 2);
  for (const [e, proto, port] of [[errors[0]!, 6, 80], [errors[1]!, 17, 53]] as const) {
    assert.deepEqual([e.icmp!.type, e.icmp!.code], [3, 3], "destination unreachable, port unreachable");
    assert.deepEqual([e.icmp!.innerSrc, e.icmp!.innerDst, e.icmp!.innerDport, e.icmp!.innerProto], [pod0.address, "10.96.0.60", port, proto]);
    assert.ok(c.topo.node.isLocalAddress(ip(e.src)), "sent by the node");
    assert.equal(e.checksumsOk, true);
  }
  assert.ok(!pod0.seen.some((s) => s.flags & TcpFlag.RST), "no TCP reset: REJECT's default is icmp-port-unreachable");
});

test("session affinity ClientIP: one client sticks to one backend until the affinity times out", () => {
  const pods = [clientPod, web("web1"), web("web2"), web("web3")];
  const sticky = cluster(6, pods, [serviceObject("web", { clusterIP: CLUSTER_IP, affinitySeconds: 2 })]);
  const pod0 = sticky.pod("pod0");
  const sports = Array.from({ length: 30 }, () => pod0.connect(CLUSTER_IP, 80));
  sticky.topo.run();
  const chosen = new Set(sports.map((p) => backendOf(sticky, p)));
  assert.equal(chosen.size, 1, `all 30 connections on one backend (${[...chosen].join(",")})`);
  assert.notEqual([...chosen][0], "");

  // With 3 s between connections the 2 s affinity has expired each time: choices spread again.
  const expiring = cluster(6, pods, [serviceObject("web", { clusterIP: CLUSTER_IP, affinitySeconds: 2 })]);
  const p0 = expiring.pod("pod0");
  const spread: number[] = [];
  for (let i = 0; i < 30; i++) {
    spread.push(p0.connect(CLUSTER_IP, 80));
    expiring.topo.world.sim.runUntil(expiring.topo.world.sim.now + 3_000_000_000);
  }
  expiring.topo.run();
  assert.ok(new Set(spread.map((p) => backendOf(expiring, p))).size > 1, "expired affinity chooses anew");
});

test("load balancing follows the statistic cascade: 900 connections over 3 backends are uniform (chi-square, df 2, p > 0.001)", () => {
  const c = cluster(11, [clientPod, web("web1"), web("web2"), web("web3")], [serviceObject("web", { clusterIP: CLUSTER_IP })]);
  assert.match(c.proxy.lastReport!.ruleset.text, /--probability 0\.3333333333 -j KUBE-SEP-/);
  assert.match(c.proxy.lastReport!.ruleset.text, /--probability 0\.5000000000 -j KUBE-SEP-/);
  const pod0 = c.pod("pod0");
  const sports = Array.from({ length: 900 }, () => pod0.connect(CLUSTER_IP, 80));
  c.topo.run();
  const counts = new Map<string, number>();
  for (const p of sports) counts.set(backendOf(c, p), (counts.get(backendOf(c, p)) ?? 0) + 1);
  assert.deepEqual([...counts.keys()].sort(), ["web1", "web2", "web3"]);
  const chi = [...counts.values()].reduce((s, n) => s + (n - 300) ** 2 / 300, 0);
  assert.ok(chi < 13.82, `chi-square ${chi.toFixed(2)} for ${JSON.stringify([...counts])}`);
});

test("determinism: the same seed makes the same backend choices, another seed different ones", () => {
  const choices = (seed: number): string[] => {
    const c = cluster(seed, [clientPod, web("web1"), web("web2"), web("web3")], [serviceObject("web", { clusterIP: CLUSTER_IP })]);
    const sports = Array.from({ length: 40 }, () => c.pod("pod0").connect(CLUSTER_IP, 80));
    c.topo.run();
    return sports.map((p) => backendOf(c, p));
  };
  const a = choices(21);
  assert.deepEqual(choices(21), a);
  assert.notDeepEqual(choices(22), a);
});

// The host stack runs the namespace's Netfilter at the kernel's hook points: FORWARD drops and
// REJECTs on a router (the REJECT's ICMP leaves through the router's own output path), DNAT in
// OUTPUT re-routes the packet, DNAT in PREROUTING changes the route decision, MASQUERADE in
// POSTROUTING takes the outgoing interface's address, and the reply is translated back.

import { test } from "node:test";
import assert from "node:assert/strict";
import { NetNamespace } from "../../../src/net/stack/index.js";
import { DropReason } from "../../../datapath/reasons.js";
import { unwrap } from "../../../src/util/result.js";
import { addr, assertConserved, ip, mac, newWorld, vethBetween } from "./topology.js";
import { bytesOf, packetSkb, udp } from "./packets.js";

/** A (10.1.0.2) -- R (forwarding) -- B (10.2.0.2); B echoes UDP 8080 back to the sender. */
function routed() {
  const { world, sink } = newWorld(41);
  const a = new NetNamespace(world, "a", "node-a");
  const r = new NetNamespace(world, "r", "node-r");
  const b = new NetNamespace(world, "b", "node-b");
  const [va, vra] = vethBetween(world, a, "va", mac("02:00:00:01:00:02"), r, "vra", mac("02:00:00:01:00:01"));
  const [vb, vrb] = vethBetween(world, b, "vb", mac("02:00:00:02:00:02"), r, "vrb", mac("02:00:00:02:00:01"));
  addr(a, va, "10.1.0.2/24");
  addr(r, vra, "10.1.0.1/24");
  addr(r, vrb, "10.2.0.1/24");
  addr(b, vb, "10.2.0.2/24");
  unwrap(a.routes.add({ dst: 0, prefixLen: 0, via: ip("10.1.0.1") }));
  unwrap(b.routes.add({ dst: 0, prefixLen: 0, via: ip("10.2.0.1") }));
  r.sysctl.ipForward = true;
  const atB: { src: number; dst: number; port: number }[] = [];
  unwrap(b.bindUdp(8080, (_skb, info) => {
    atB.push({ src: info.src, dst: info.dst, port: info.dstPort });
    b.outputIp(packetSkb(world, udp(info.dst, info.src, info.dstPort, info.srcPort, bytesOf("pong"))));
  }));
  const atA: { src: number; port: number }[] = [];
  unwrap(a.bindUdp(5555, (_skb, info) => atA.push({ src: info.src, port: info.srcPort })));
  const icmpAtA: number[] = [];
  a.listenIcmp((skb) => icmpAtA.push((skb.data[skb.head]! << 8) | skb.data[skb.head + 1]!));
  const send = (dst: string, port: number): void => a.outputIp(packetSkb(world, udp(0, ip(dst), 5555, port, bytesOf("ping"))));
  return { world, sink, a, r, b, vra, vrb, atA, atB, icmpAtA, send };
}

test("a FORWARD DROP rule drops on the router, once, with the rule as the site", () => {
  const t = routed();
  unwrap(t.r.netfilter.table("filter").append("FORWARD", { dst: "10.2.0.2/32", proto: "udp", dport: 8080, comment: "block", target: { kind: "DROP" } }));
  t.send("10.2.0.2", 8080);
  t.world.sim.run();
  assert.deepEqual(t.atB, []);
  const drop = t.sink.dropRecords.find((r) => r.reason === DropReason.NETFILTER_DROP)!;
  assert.equal(drop.node, "node-r");
  assert.match(drop.site, /filter\/FORWARD#1/);
  assert.equal(t.r.counters.ip.ForwDatagrams, 1, "counted as forwarded before the hook (Linux 6.7+)");
  assertConserved(t.world);
});

test("a FORWARD REJECT answers with ICMP port unreachable from the router", () => {
  const t = routed();
  unwrap(t.r.netfilter.table("filter").append("FORWARD", { dst: "10.2.0.2/32", target: { kind: "REJECT" } }));
  t.send("10.2.0.2", 8080);
  t.world.sim.run();
  assert.deepEqual(t.icmpAtA, [0x0303]);
  assert.deepEqual(t.atB, []);
  assertConserved(t.world);
});

test("DNAT in OUTPUT re-routes: a service address becomes B's, and the reply comes back from the service", () => {
  const t = routed();
  unwrap(t.a.netfilter.table("nat").append("OUTPUT", { dst: "10.96.0.10/32", proto: "udp", dport: 53, target: { kind: "DNAT", to: "10.2.0.2:8080" } }));
  // Before DNAT the service range is on-link (no gateway); only a new route lookup finds the gateway for B.
  unwrap(t.a.routes.add({ dst: ip("10.96.0.0"), prefixLen: 12, dev: t.a.deviceByName("va")! }));
  t.send("10.96.0.10", 53);
  t.world.sim.run();
  assert.deepEqual(t.atB, [{ src: ip("10.1.0.2"), dst: ip("10.2.0.2"), port: 8080 }], "re-routed after DNAT");
  assert.deepEqual(t.atA, [{ src: ip("10.96.0.10"), port: 53 }], "the reply is un-DNATed");
  assertConserved(t.world);
});

test("MASQUERADE on the router: B sees the router's address, A gets the reply", () => {
  const t = routed();
  unwrap(t.r.netfilter.table("nat").append("POSTROUTING", { outIface: "vrb", target: { kind: "MASQUERADE" } }));
  t.send("10.2.0.2", 8080);
  t.world.sim.run();
  assert.equal(t.atB[0]?.src, ip("10.2.0.1"));
  assert.deepEqual(t.atA.map((x) => x.src), [ip("10.2.0.2")]);
  assertConserved(t.world);
});

test("DNAT in PREROUTING on the router changes where it forwards", () => {
  const t = routed();
  unwrap(t.r.netfilter.table("nat").append("PREROUTING", { dst: "10.1.0.1/32", proto: "udp", dport: 80, target: { kind: "DNAT", to: "10.2.0.2:8080" } }));
  t.send("10.1.0.1", 80);
  t.world.sim.run();
  assert.deepEqual(t.atB.map((x) => x.port), [8080]);
  assert.deepEqual(t.atA, [{ src: ip("10.1.0.1"), port: 80 }]);
  assertConserved(t.world);
});

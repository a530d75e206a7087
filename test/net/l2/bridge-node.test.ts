// The bridge with a namespace (cni0 on a node): the bridge address as the pods' gateway, broadcast
// passed up and flooded, unicast between pods bridged without going up, frames the node's stack
// sends on cni0 forwarded by FDB, and br_netfilter (iptables on bridged IPv4, in/out = the bridge).

import { test } from "node:test";
import assert from "node:assert/strict";
import { DropReason } from "../../../datapath/reasons.js";
import { NfHook, NF_HOOK_NAMES, ProgramVerdict } from "../../../src/net/netfilter/index.js";
import type { SocketInfo } from "../../../src/net/stack/sockets.js";
import { SkBuff } from "../../../src/skb/skbuff.js";
import { read16 } from "../../../src/wire/bytes.js";
import { readMac } from "../../../src/util/mac.js";
import { formatIPv4 } from "../../../src/util/ip.js";
import { assertConserved, echoPacket, ip, makeWorld, packet, udpPacket } from "./helpers.js";
import { buildBridgeNode, GATEWAY, GATEWAY_MAC } from "./bridge-node-fixture.js";

/** A short name for a captured frame: arp-request, arp-reply, icmp-8, udp-9000, ... */
function kind(f: Uint8Array): string {
  const type = read16(f, 12);
  if (type === 0x0806) return read16(f, 20) === 1 ? "arp-request" : "arp-reply";
  if (type !== 0x0800) return `eth-${type.toString(16)}`;
  const proto = f[23]!;
  if (proto === 1) return `icmp-${f[34]!}`;
  if (proto === 17) return `udp-${read16(f, 36)}`;
  return `ip-${proto}`;
}

test("a pod pings its gateway: ARP broadcast is flooded and passed up, the echo to the bridge MAC goes up", () => {
  const { sim, world } = makeWorld();
  const { pods, cap } = buildBridgeNode(world, 3);
  const [p1] = pods as [typeof pods[0]];
  const replies: number[] = [];
  p1.ns.listenIcmp((skb: SkBuff, info: SocketInfo) => replies.push(info.src, skb.data[skb.head]!));
  p1.ns.outputIp(SkBuff.fromBytes(world.ledger.admit(), echoPacket(p1.addr, GATEWAY, 7, 1)));
  sim.runUntil(1_000_000_000); // before the gateway's STALE neighbour entry sends its unicast probe (5 s)
  assert.deepEqual(replies, [GATEWAY, 0], "echo reply (type 0) from the gateway");
  assert.deepEqual(cap.on("cni0", "rx").map(kind), ["arp-request", "icmp-8"]);
  assert.deepEqual(cap.on("cni0", "tx").map(kind), ["arp-reply", "icmp-0"]);
  // The ARP request is flooded to the other pods; the echo is not.
  assert.deepEqual(cap.on("eth0", "rx").map(kind).sort(), ["arp-reply", "arp-request", "arp-request", "icmp-0"]);
  cap.clear();
  sim.run();
  assert.deepEqual(cap.on("cni0", "tx").map(kind), ["arp-request"], "the unicast probe goes to pod1 only");
  assert.deepEqual(cap.on("cni0", "rx").map(kind), ["arp-reply"]);
  assertConserved(world);
});

test("pod to pod on one bridge: data is bridged by FDB and not passed up", () => {
  const { sim, world } = makeWorld();
  const { node, cni0, pods, cap } = buildBridgeNode(world, 3);
  const [p1, p2] = pods as [typeof pods[0], typeof pods[0]];
  node.sysctl.bridgeNfCallIptables = false;
  const got: number[] = [];
  p2.ns.bindUdp(9000, (_skb, info) => got.push(info.src));
  for (let i = 0; i < 3; i++) p1.ns.outputIp(packet(world, udpPacket(p1.addr, p2.addr, 40000, 9000)));
  sim.run();
  assert.deepEqual(got, [p1.addr, p1.addr, p1.addr]);
  assert.deepEqual(cap.on("cni0", "rx").map(kind), ["arp-request"], "only the broadcast went up");
  assert.equal(cni0.bridgeStats.forwarded, 4); // the ARP reply and three datagrams
  const learned = cni0.fdbEntries().filter((e) => e.flags === 0).map((e) => e.dev?.name);
  assert.deepEqual(learned, ["veth1", "veth2"]);
  assertConserved(world);
});

test("what the node's stack sends on cni0 is forwarded by FDB to one port", () => {
  const { sim, world } = makeWorld();
  const { node, pods, cap } = buildBridgeNode(world, 3);
  const [, p2] = pods as [typeof pods[0], typeof pods[0]];
  const got: number[] = [];
  p2.ns.bindUdp(9000, (_skb, info) => got.push(info.src));
  node.outputIp(packet(world, udpPacket(GATEWAY, p2.addr, 41000, 9000)));
  node.outputIp(packet(world, udpPacket(GATEWAY, p2.addr, 41000, 9000)));
  sim.run();
  assert.deepEqual(got, [GATEWAY, GATEWAY]);
  // pod1 and pod3 only see the ARP request; pod2 sees it and both datagrams.
  const byPod = pods.map((p) => p.eth0.stats.rxPackets);
  assert.deepEqual(byPod, [1, 3, 1]);
  assert.equal(read16(cap.on("cni0", "tx")[0]!, 20), 1, "first the gateway's ARP request");
  assertConserved(world);
});

interface HookCall {
  readonly hook: string;
  readonly in: string;
  readonly out: string;
  readonly what: string;
}

function recordHooks(node: ReturnType<typeof buildBridgeNode>["node"]): HookCall[] {
  const calls: HookCall[] = [];
  const mangle = node.netfilter.table("mangle");
  for (const hook of [NfHook.PREROUTING, NfHook.INPUT, NfHook.FORWARD, NfHook.OUTPUT, NfHook.POSTROUTING]) {
    const name = NF_HOOK_NAMES[hook]!;
    mangle.append(name, {
      target: {
        kind: "PROGRAM",
        name: `record-${name}`,
        run: (skb, inDev, outDev) => {
          calls.push({ hook: name, in: inDev?.name ?? "", out: outDev?.name ?? "", what: `${skb.data[skb.head + 9]}` });
          return ProgramVerdict.CONTINUE;
        },
      },
    });
  }
  return calls;
}

test("br_netfilter: bridged IPv4 passes PREROUTING, FORWARD and POSTROUTING with in/out = the bridge", () => {
  const { sim, world } = makeWorld();
  const { node, pods } = buildBridgeNode(world, 2);
  const [p1, p2] = pods as [typeof pods[0], typeof pods[0]];
  assert.equal(node.sysctl.bridgeNfCallIptables, true, "a new namespace starts with bridge-nf-call-iptables=1");
  const calls = recordHooks(node);
  const got: number[] = [];
  p2.ns.bindUdp(9000, (_skb, info) => got.push(info.src));
  p1.ns.outputIp(packet(world, udpPacket(p1.addr, p2.addr, 40000, 9000)));
  sim.run();
  assert.deepEqual(got, [p1.addr]);
  assert.deepEqual(calls.map((c) => `${c.hook} in=${c.in} out=${c.out} proto=${c.what}`), [
    "PREROUTING in=cni0 out= proto=17",
    "FORWARD in=cni0 out=cni0 proto=17",
    "POSTROUTING in= out=cni0 proto=17",
  ]);
  assertConserved(world);
});

test("br_netfilter off: bridged frames skip iptables; on: a FORWARD DROP rule drops them", () => {
  const { sim, world, drops } = makeWorld();
  const { node, pods } = buildBridgeNode(world, 2);
  const [p1, p2] = pods as [typeof pods[0], typeof pods[0]];
  const calls = recordHooks(node);
  node.sysctl.bridgeNfCallIptables = false;
  const got: number[] = [];
  p2.ns.bindUdp(9000, (_skb, info) => got.push(info.src));
  p1.ns.outputIp(packet(world, udpPacket(p1.addr, p2.addr, 40000, 9000)));
  sim.run();
  assert.deepEqual(calls, []);
  assert.equal(got.length, 1);
  node.sysctl.bridgeNfCallIptables = true;
  node.netfilter.table("filter").append("FORWARD", { inIface: "cni0", outIface: "cni0", proto: "udp", target: { kind: "DROP" } });
  p1.ns.outputIp(packet(world, udpPacket(p1.addr, p2.addr, 40000, 9000)));
  sim.run();
  assert.equal(got.length, 1, "the second datagram was dropped");
  const d = drops.dropRecords.at(-1)!;
  assert.equal(d.reason, DropReason.NETFILTER_DROP);
  assert.equal(d.hook, "FORWARD");
  assertConserved(world);
});

test("kube-proxy on a bridge: the reply is un-DNATed only because bridged replies pass iptables", () => {
  for (const brnf of [true, false]) {
    const { sim, world } = makeWorld();
    const { node, pods } = buildBridgeNode(world, 2);
    const [p1, p2] = pods as [typeof pods[0], typeof pods[0]];
    node.sysctl.ipForward = true;
    node.sysctl.bridgeNfCallIptables = brnf;
    const vip = ip("10.96.0.10");
    node.netfilter.table("nat").append("PREROUTING", { dst: "10.96.0.10/32", proto: "udp", dport: 80, target: { kind: "DNAT", to: "10.244.0.3:8080" } });
    p2.ns.bindUdp(8080, (skb, info) => {
      p2.ns.outputIp(packet(world, udpPacket(p2.addr, info.src, 8080, info.srcPort)));
      void skb;
    });
    const replies: string[] = [];
    p1.ns.bindUdp(40000, (_skb, info) => replies.push(`${info.src === vip ? "vip" : info.src === p2.addr ? "pod2" : info.src}:${info.srcPort}`));
    p1.ns.outputIp(packet(world, udpPacket(p1.addr, vip, 40000, 80)));
    sim.run();
    if (brnf) assert.deepEqual(replies, ["vip:80"], "reply translated back by conntrack in the bridge path");
    else assert.deepEqual(replies, ["pod2:8080"], "without br_netfilter the bridged reply bypasses conntrack");
    assertConserved(world);
  }
});

test("the gateway MAC is the bridge's own; frames to a port's MAC also go up (local FDB entries)", () => {
  const { world } = makeWorld();
  const { cni0, pods } = buildBridgeNode(world, 2);
  const locals = cni0.fdbEntries().filter((e) => e.flags !== 0);
  assert.deepEqual(locals.map((e) => [e.mac, e.dev?.name ?? "cni0"]), [
    [pods[0]!.hostVeth.mac, "veth1"],
    [pods[1]!.hostVeth.mac, "veth2"],
    [GATEWAY_MAC, "cni0"],
  ]);
});

test("bridged DNAT: a frame for another pod's MAC DNATed to a pod on the same bridge stays bridged (no TTL decrement)", () => {
  const { sim, world } = makeWorld();
  const { node, cni0, pods, cap } = buildBridgeNode(world, 3);
  const [p1, p2, p3] = pods as [typeof pods[0], typeof pods[0], typeof pods[0]];
  node.neigh.addStatic(cni0, p2.addr, p2.eth0.mac);
  node.netfilter.table("nat").append("PREROUTING", { dst: `${formatIPv4(p3.addr)}/32`, proto: "udp", dport: 80, target: { kind: "DNAT", to: `${formatIPv4(p2.addr)}:8080` } });
  const seen: string[] = [];
  p2.ns.bindUdp(8080, (skb, info) => {
    seen.push(`from ${formatIPv4(info.src)} ttl ${skb.data[info.ipOffset + 8]}`);
    p2.ns.outputIp(packet(world, udpPacket(p2.addr, info.src, 8080, info.srcPort)));
  });
  const replies: string[] = [];
  p1.ns.bindUdp(40000, (_skb, info) => replies.push(`${formatIPv4(info.src)}:${info.srcPort}`));
  p1.ns.outputIp(packet(world, udpPacket(p1.addr, p3.addr, 40000, 80)));
  sim.runUntil(1_000_000_000);
  assert.deepEqual(seen, [`from ${formatIPv4(p1.addr)} ttl 64`], "not routed: the TTL is unchanged");
  assert.deepEqual(replies, [`${formatIPv4(p3.addr)}:80`], "the bridged reply is translated back");
  const atPod2 = cap.frames.find((f) => f.dir === "rx" && f.dev === "eth0" && f.bytes[23] === 17 && read16(f.bytes, 36) === 8080)!;
  assert.equal(readMac(atPod2.bytes, 6), p1.eth0.mac, "the source MAC is still pod1's");
  sim.run();
  assertConserved(world);
});


test("pod -> ClusterIP -> pod on the same bridge: PREROUTING runs once in the bridge and the frame stays bridged", () => {
  const { sim, world } = makeWorld();
  const { node, cni0, pods, cap } = buildBridgeNode(world, 2);
  const [p1, p2] = pods as [typeof pods[0], typeof pods[0]];
  node.sysctl.ipForward = true;
  node.sysctl.bridgeNfCallIptables = true;
  node.neigh.addStatic(cni0, p2.addr, p2.eth0.mac);
  const vip = ip("10.96.0.10");
  node.netfilter.table("nat").append("PREROUTING", { dst: "10.96.0.10/32", proto: "udp", dport: 80, target: { kind: "DNAT", to: `${formatIPv4(p2.addr)}:8080` } });
  const seen: number[] = [];
  p2.ns.bindUdp(8080, (skb, info) => {
    seen.push(skb.data[info.ipOffset + 8]!);
    p2.ns.outputIp(packet(world, udpPacket(p2.addr, info.src, 8080, info.srcPort)));
  });
  const replies: string[] = [];
  p1.ns.bindUdp(40000, (_skb, info) => replies.push(`${info.src === vip ? "vip" : formatIPv4(info.src)}:${info.srcPort}`));
  p1.ns.outputIp(packet(world, udpPacket(p1.addr, vip, 40000, 80)));
  sim.runUntil(1_000_000_000);
  assert.deepEqual(seen, [64], "bridged, not routed: TTL unchanged");
  assert.deepEqual(replies, ["vip:80"]);
  const atPod2 = cap.frames.find((f) => f.dir === "rx" && f.dev === "eth0" && f.bytes[23] === 17 && read16(f.bytes, 36) === 8080)!;
  assert.equal(readMac(atPod2.bytes, 6), p1.eth0.mac, "source MAC is pod1's: the node did not route it");
  const prerouting = node.netfilter.table("nat").chain("PREROUTING");
  assert.equal(prerouting?.rules[0]?.packets, 1, "the DNAT rule saw the first packet exactly once");
  sim.run();
  assertConserved(world);
});

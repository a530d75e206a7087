// Local delivery: sockets get packets from a 0-delay event with the head at the transport header,
// tunnel handlers synchronously; closed UDP ports answer port unreachable, closed TCP ports a reset
// (none for a reset), unknown protocols protocol unreachable; echo requests to broadcast are ignored;
// pinging one's own address goes over lo; timestamp requests are answered.

import { test } from "node:test";
import assert from "node:assert/strict";
import { NetNamespace, SocketMode, type SocketInfo } from "../../../src/net/stack/index.js";
import { DropReason } from "../../../datapath/reasons.js";
import { DeliveryKind } from "../../../src/trace/ledger.js";
import { read16, read32 } from "../../../src/wire/bytes.js";
import { verifyChecksum } from "../../../src/wire/checksum.js";
import { addr, assertConserved, Capture, injectTx, ip, mac, newWorld, vethBetween } from "./topology.js";
import { bytesOf, echo, frame, ipFields, ipv4, packetSkb, tcp, udp } from "./packets.js";

function setup() {
  const { world, sink } = newWorld(21);
  const a = new NetNamespace(world, "a", "n");
  const b = new NetNamespace(world, "b", "n");
  const [va, vb] = vethBetween(world, a, "va", mac("02:00:00:00:00:0a"), b, "vb", mac("02:00:00:00:00:0b"));
  addr(a, va, "10.0.0.1/24");
  addr(b, vb, "10.0.0.2/24");
  const cap = Capture.on(va);
  const send = (bytes: Uint8Array, dstMac = vb.mac): void => injectTx(world, va, frame(dstMac, va.mac, bytes));
  /** IPv4 frames A received (B resolves A with ARP first). */
  const ipRx = (): Uint8Array[] => cap.of("va", "rx").map((f) => f.bytes).filter((x) => read16(x, 12) === 0x0800);
  return { world, sink, a, b, va, vb, cap, send, ipRx };
}

test("UDP to a bound port: handler called from a later event, head at the UDP header, with the addresses", () => {
  const t = setup();
  const seen: { info: SocketInfo; payload: string; now: number }[] = [];
  t.b.bindUdp(53, (skb, info) => seen.push({ info, payload: new TextDecoder().decode(skb.bytes().subarray(8)), now: t.world.sim.now }));
  t.send(udp(ip("10.0.0.1"), ip("10.0.0.2"), 3333, 53, bytesOf("query"), { tos: 0x10 }));
  assert.equal(seen.length, 0, "not called synchronously");
  t.world.sim.run();
  assert.equal(seen.length, 1);
  const { info, payload } = seen[0]!;
  assert.equal(payload, "query");
  assert.deepEqual([info.src, info.dst, info.srcPort, info.dstPort, info.proto, info.dev.name], [ip("10.0.0.1"), ip("10.0.0.2"), 3333, 53, 17, "vb"]);
  assert.equal(t.b.counters.udp.InDatagrams, 1);
  assert.equal(t.world.ledger.deliveredByKind[DeliveryKind.SOCKET], 1);
  assert.equal(t.b.bindUdp(53, () => undefined).ok, false, "port already bound");
  assertConserved(t.world);
});

test("a TUNNEL handler runs synchronously and owns the packet", () => {
  const t = setup();
  let inside = -1;
  t.b.bindUdp(8472, (skb, info) => {
    inside = info.srcPort;
    t.world.ledger.deliver(DeliveryKind.SOCKET);
    assert.equal(read16(skb.data, skb.head + 2), 8472, "head at the UDP header");
  }, SocketMode.TUNNEL);
  t.send(udp(ip("10.0.0.1"), ip("10.0.0.2"), 40000, 8472, bytesOf("vxlan")));
  assert.equal(inside, 40000);
  t.world.sim.run();
  assertConserved(t.world);
});

test("TUNNEL and IP protocol handlers each read their own packet's info, also when one delivers others inside its call", () => {
  const t = setup();
  const seen: string[] = [];
  const describe = (info: SocketInfo): string => `${info.src >>> 0}:${info.srcPort}->${info.dst >>> 0}:${info.dstPort} p${info.proto} ${info.dev.name}`;
  const inject = (packet: Uint8Array): void => t.b.input(t.vb, packetSkb(t.world, frame(t.vb.mac, t.va.mac, packet)));
  // The outer handler hands two more packets to the stack before it returns: the nested deliveries
  // must not disturb what the outer one reads after them.
  t.b.bindUdp(8472, (_skb, info) => {
    const before = describe(info);
    inject(udp(ip("10.0.0.9"), ip("10.0.0.2"), 1111, 4789, bytesOf("inner")));
    inject(ipv4(ip("10.0.0.7"), ip("10.0.0.2"), 99, bytesOf("proto")));
    seen.push(`outer ${before} / ${describe(info)}`);
  }, SocketMode.TUNNEL);
  t.b.bindUdp(4789, (_skb, info) => {
    seen.push(`inner ${describe(info)}`);
    t.world.ledger.deliver(DeliveryKind.SOCKET);
  }, SocketMode.TUNNEL);
  t.b.registerIpProtocol(99, (_skb, _dev, info) => {
    seen.push(`proto ${describe(info)}`);
    t.world.ledger.deliver(DeliveryKind.SOCKET);
  });
  const outer = `${ip("10.0.0.1")}:40000->${ip("10.0.0.2")}:8472 p17 vb`;
  for (const port of [40000, 40000]) t.send(udp(ip("10.0.0.1"), ip("10.0.0.2"), port, 8472, bytesOf("vxlan")));
  t.world.sim.run();
  const inner = `inner ${ip("10.0.0.9")}:1111->${ip("10.0.0.2")}:4789 p17 vb`;
  const proto = `proto ${ip("10.0.0.7")}:0->${ip("10.0.0.2")}:0 p99 vb`;
  assert.deepEqual(seen, [inner, proto, `outer ${outer} / ${outer}`, inner, proto, `outer ${outer} / ${outer}`]);
  // A datagram after them reads its own fields, not what the reused info held.
  t.b.unbindUdp(8472);
  t.b.bindUdp(8472, (_skb, info) => seen.push(describe(info)), SocketMode.TUNNEL);
  t.send(udp(ip("10.0.0.1"), ip("10.0.0.2"), 5555, 8472, bytesOf("vxlan")));
  t.world.sim.run();
  assert.equal(seen.at(-1), `${ip("10.0.0.1")}:5555->${ip("10.0.0.2")}:8472 p17 vb`);
});

test("a UDP datagram with a bad checksum is dropped without an ICMP error", () => {
  const t = setup();
  const p = udp(ip("10.0.0.1"), ip("10.0.0.2"), 1, 9, bytesOf("x"));
  p[26]! ^= 0x55;
  t.send(p);
  t.world.sim.run();
  assert.equal(t.sink.dropRecords[0]?.reason, DropReason.BAD_CHECKSUM);
  assert.equal(t.b.counters.udp.InCsumErrors, 1);
  assert.equal(t.ipRx().length, 0);
  assertConserved(t.world);
});

test("a reset to a closed TCP port is not answered; a segment to a listener is delivered", () => {
  const t = setup();
  t.send(tcp(ip("10.0.0.1"), ip("10.0.0.2"), 5000, 80, 1, 0, 0x04, new Uint8Array(0)));
  const segments: number[] = [];
  t.b.listenTcp(8080, (skb) => segments.push(skb.data[skb.head + 13]!));
  t.send(tcp(ip("10.0.0.1"), ip("10.0.0.2"), 5000, 8080, 1, 0, 0x02, new Uint8Array(0)));
  t.world.sim.run();
  assert.deepEqual(segments, [0x02]);
  assert.equal(t.ipRx().length, 0, "no reset for a reset");
  assert.equal(t.b.counters.tcp.InSegs, 2);
  assert.equal(t.b.counters.tcp.OutRsts, 0);
  assertConserved(t.world);
});

test("an IP protocol nobody handles gets protocol unreachable; a registered handler gets the payload", () => {
  const t = setup();
  t.send(ipv4(ip("10.0.0.1"), ip("10.0.0.2"), 47, bytesOf("gre!")));
  t.world.sim.run();
  const err = t.ipRx()[0]!;
  const f = ipFields(err);
  assert.deepEqual([f.proto, err[f.l4], err[f.l4 + 1]], [1, 3, 2], "ICMP destination unreachable, protocol unreachable");
  assert.equal(f.src, ip("10.0.0.2"));
  assert.equal(t.b.counters.ip.InUnknownProtos, 1);
  let inner = "";
  t.b.registerIpProtocol(4, (skb, dev, info) => {
    inner = `${dev.name} ${info.src} ${new TextDecoder().decode(skb.bytes())}`;
    t.world.ledger.deliver(DeliveryKind.STACK);
  });
  t.send(ipv4(ip("10.0.0.1"), ip("10.0.0.2"), 4, bytesOf("inner")));
  assert.equal(inner, `vb ${ip("10.0.0.1")} inner`);
  assert.equal(t.b.registerIpProtocol(17, () => undefined).ok, false);
  t.world.sim.run();
  assertConserved(t.world);
});

test("echo requests to the broadcast address are ignored unless icmp_echo_ignore_broadcasts is 0", () => {
  const t = setup();
  const bcast = echo(ip("10.0.0.1"), ip("10.0.0.255"), 1, 1, new Uint8Array(4));
  t.send(bcast, 0xffffffffffff);
  t.world.sim.run();
  assert.equal(t.ipRx().length, 0);
  assert.equal(t.sink.dropRecords[0]?.reason, DropReason.IGNORED_BROADCAST);
  t.b.sysctl.icmpEchoIgnoreBroadcasts = false;
  t.send(bcast, 0xffffffffffff);
  t.world.sim.run();
  const reply = t.ipRx()[0]!;
  assert.equal(ipFields(reply).src, ip("10.0.0.2"), "answered from the interface address toward the sender");
  assertConserved(t.world);
});

test("pinging one's own address: request and reply cross lo, the reply reaches the ICMP listener", () => {
  const t = setup();
  const lo = Capture.on(t.b.loopback);
  const got: number[] = [];
  t.b.listenIcmp((skb) => got.push(skb.data[skb.head]!));
  t.b.outputIp(packetSkb(t.world, echo(0, ip("10.0.0.2"), 9, 1, bytesOf("self"))));
  t.world.sim.run();
  assert.deepEqual(got, [0]);
  const frames = lo.of("lo", "tx");
  assert.equal(frames.length, 2);
  assert.ok(frames.every((f) => f.bytes.subarray(0, 12).every((x) => x === 0)), "all-zero MACs on lo");
  const req = ipFields(frames[0]!.bytes);
  assert.equal(req.src, ip("10.0.0.2"), "source chosen: the local route's address");
  assert.equal(t.cap.of("va", "tx").length, 0, "nothing left on the wire");
  assertConserved(t.world);
});

test("timestamp requests get originate copied and receive/transmit in ms since midnight", () => {
  const t = setup();
  t.world.sim.runUntil(86_400_000_000_000 + 1_234_000_000);
  const msg = new Uint8Array(20);
  msg[0] = 13;
  msg.set([0, 5, 0, 6], 4);
  msg.set([0x12, 0x34, 0x56, 0x78], 8);
  const sum = (() => {
    let s = 0;
    for (let i = 0; i < 20; i += 2) s += (msg[i]! << 8) | msg[i + 1]!;
    while (s > 0xffff) s = (s & 0xffff) + (s >>> 16);
    return ~s & 0xffff;
  })();
  msg[2] = sum >>> 8;
  msg[3] = sum & 0xff;
  t.send(ipv4(ip("10.0.0.1"), ip("10.0.0.2"), 1, msg));
  t.world.sim.run();
  const reply = t.ipRx()[0]!;
  const l4 = ipFields(reply).l4;
  assert.equal(reply[l4], 14);
  assert.equal(read32(reply, l4 + 4), 0x00050006, "identifier and sequence copied");
  assert.equal(read32(reply, l4 + 8), 0x12345678);
  assert.equal(read32(reply, l4 + 12), 1234);
  assert.equal(read32(reply, l4 + 16), 1234);
  assert.ok(verifyChecksum(reply, l4, reply.length));
  assertConserved(t.world);
});

test("a limited broadcast leaves with the broadcast MAC (no gateway) and reaches a bound socket, else it is ignored", () => {
  const t = setup();
  t.a.routes.add({ dst: 0, prefixLen: 0, via: ip("10.0.0.9") });
  const got: number[] = [];
  t.b.bindUdp(67, (_skb, info) => got.push(info.dst));
  t.a.outputIp(packetSkb(t.world, udp(0, 0xffffffff, 68, 67, bytesOf("discover"))));
  t.a.outputIp(packetSkb(t.world, udp(0, 0xffffffff, 68, 69, bytesOf("nobody"))));
  t.world.sim.run();
  const tx = t.cap.of("va", "tx");
  assert.equal(tx.length, 2, "no ARP for the gateway");
  assert.ok(tx.every((f) => f.bytes.subarray(0, 6).every((x) => x === 0xff)));
  assert.deepEqual(got, [0xffffffff]);
  assert.equal(t.b.counters.udp.IgnoredMulti, 1);
  assert.equal(t.b.counters.ipExt.InBcastPkts, 2);
  assert.equal(t.b.counters.icmp.OutMsgs, 0, "no port unreachable for a broadcast");
  assertConserved(t.world);
});

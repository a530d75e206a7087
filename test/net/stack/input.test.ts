// Receive-path validation as ip_rcv_core and the routing input do it: every malformed packet is
// dropped once, with a reason naming the failing field and the SNMP counter Linux bumps; Ethernet
// padding is trimmed; frames for other MACs, IPv6, VLAN tags and martian sources are refused.

import { test } from "node:test";
import assert from "node:assert/strict";
import { NetNamespace } from "../../../src/net/stack/index.js";
import { DropReason } from "../../../datapath/reasons.js";
import { setIpv4HeaderChecksum } from "../../../src/wire/checksum.js";
import { addr, assertConserved, injectTx, ip, mac, newWorld, vethBetween } from "./topology.js";
import { bytesOf, frame, udp } from "./packets.js";

function setup() {
  const { world, sink } = newWorld(11);
  const a = new NetNamespace(world, "a", "n");
  const b = new NetNamespace(world, "b", "n");
  const [va, vb] = vethBetween(world, a, "va", mac("02:00:00:00:00:0a"), b, "vb", mac("02:00:00:00:00:0b"));
  addr(a, va, "10.0.0.1/24");
  addr(b, vb, "10.0.0.2/24");
  const got: number[] = [];
  b.bindUdp(7, (skb) => got.push(skb.length));
  const send = (bytes: Uint8Array, dstMac = vb.mac, etherType = 0x0800): void => injectTx(world, va, frame(dstMac, va.mac, bytes, etherType));
  const good = (): Uint8Array => udp(ip("10.0.0.1"), ip("10.0.0.2"), 1000, 7, bytesOf("payload"));
  return { world, sink, a, b, va, vb, got, send, good };
}

function onlyDrop(t: ReturnType<typeof setup>, reason: number, explanation: RegExp): void {
  t.world.sim.run();
  assert.equal(t.sink.dropRecords.length, 1, JSON.stringify(t.sink.dropRecords.map((r) => r.site)));
  const r = t.sink.dropRecords[0]!;
  assert.equal(r.reason, reason);
  assert.match(r.explanation ?? "", explanation);
  assert.equal(r.node, "n");
  assert.equal(r.device, "vb");
  assertConserved(t.world);
}

test("a wrong header checksum: BAD_CHECKSUM, InCsumErrors and InHdrErrors", () => {
  const t = setup();
  const p = t.good();
  p[10]! ^= 0xff;
  t.send(p);
  onlyDrop(t, DropReason.BAD_CHECKSUM, /ipv4\.checksum at byte 10/);
  assert.equal(t.b.counters.ipExt.InCsumErrors, 1);
  assert.equal(t.b.counters.ip.InHdrErrors, 1);
  assert.equal(t.b.counters.ip.InReceives, 1);
});

test("version and header length are checked before the checksum", () => {
  for (const [byte, field] of [[0x65, /ipv4\.version at byte 0: version 6/], [0x44, /ipv4\.ihl at byte 0: header length 16/]] as const) {
    const t = setup();
    const p = t.good();
    p[0] = byte;
    setIpv4HeaderChecksum(p, 0, 20);
    t.send(p);
    onlyDrop(t, DropReason.INVALID_PACKET, field);
    assert.equal(t.b.counters.ip.InHdrErrors, 1);
  }
});

test("a total length beyond the bytes received: InTruncatedPkts; below the header: InHdrErrors", () => {
  const t = setup();
  const p = t.good();
  p[3] = p[3]! + 10;
  setIpv4HeaderChecksum(p, 0, 20);
  t.send(p);
  onlyDrop(t, DropReason.INVALID_PACKET, /ipv4\.totalLength at byte 2: 45, only 35 bytes present/);
  assert.equal(t.b.counters.ipExt.InTruncatedPkts, 1);
  assert.equal(t.b.counters.ip.InHdrErrors, 0);
  const u = setup();
  const q = u.good();
  q[2] = 0;
  q[3] = 12;
  setIpv4HeaderChecksum(q, 0, 20);
  u.send(q);
  onlyDrop(u, DropReason.INVALID_PACKET, /ipv4\.totalLength at byte 2: 12 below header length 20/);
  assert.equal(u.b.counters.ip.InHdrErrors, 1);
});

test("Ethernet padding after the datagram is trimmed before delivery", () => {
  const t = setup();
  const p = udp(ip("10.0.0.1"), ip("10.0.0.2"), 1000, 7, new Uint8Array(0));
  const padded = new Uint8Array(46);
  padded.set(p);
  t.send(padded);
  t.world.sim.run();
  assert.deepEqual(t.got, [8], "the UDP header alone reaches the socket");
  assert.equal(t.sink.dropRecords.length, 0);
  assertConserved(t.world);
});

test("frames for another MAC are not IP input at all (NOT_FOR_HOST, no InReceives)", () => {
  const t = setup();
  t.send(t.good(), mac("02:00:00:00:00:77"));
  onlyDrop(t, DropReason.NOT_FOR_HOST, /another host/);
  assert.equal(t.b.counters.ip.InReceives, 0);
});

test("IPv6 and VLAN-tagged frames are refused with UNKNOWN_L3 / UNSUPPORTED_L2", () => {
  const t = setup();
  t.send(new Uint8Array(40), t.vb.mac, 0x86dd);
  onlyDrop(t, DropReason.UNKNOWN_L3, /IPv6 is not modelled/);
  const u = setup();
  u.send(new Uint8Array(40), u.vb.mac, 0x8100);
  onlyDrop(u, DropReason.UNSUPPORTED_L2, /802\.1Q/);
});

test("a packet claiming one of our own addresses as source is martian", () => {
  const t = setup();
  t.send(udp(ip("10.0.0.2"), ip("10.0.0.2"), 1000, 7, bytesOf("spoof")));
  onlyDrop(t, DropReason.INVALID_SOURCE_IP, /martian source/);
});

test("rp_filter strict drops a source whose route back leaves through another interface", () => {
  const t = setup();
  t.b.sysctl.rpFilter.set(t.vb.ifindex, 1);
  t.send(udp(ip("192.0.2.1"), ip("10.0.0.2"), 1000, 7, bytesOf("x")));
  onlyDrop(t, DropReason.REVERSE_PATH, /rp_filter/);
  const u = setup();
  u.b.sysctl.rpFilterAll = 2;
  u.b.routes.add({ dst: 0, prefixLen: 0, via: ip("10.0.0.1") });
  u.send(udp(ip("192.0.2.1"), ip("10.0.0.2"), 1000, 7, bytesOf("x")));
  u.world.sim.run();
  assert.equal(u.got.length, 1, "loose mode: any route back will do");
  assertConserved(u.world);
});

test("not forwarding: a datagram for another address is dropped silently (InAddrErrors)", () => {
  const t = setup();
  t.send(udp(ip("10.0.0.1"), ip("10.9.9.9"), 1000, 7, bytesOf("x")));
  onlyDrop(t, DropReason.UNKNOWN_TARGET, /ip_forward is 0/);
  assert.equal(t.b.counters.ip.InAddrErrors, 1);
  assert.equal(t.b.counters.icmp.OutMsgs, 0);
});

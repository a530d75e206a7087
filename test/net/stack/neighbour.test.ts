// Neighbour state machine over simulated time on an Ethernet link with latency: queueing while
// resolving and the in-order flush, the unres_qlen_bytes bound, REACHABLE -> STALE -> DELAY -> PROBE
// with unicast probes, failure after three requests a second apart with ICMP host unreachable for
// each queued packet, and static (permanent) entries. Timer values are Linux's defaults.

import { test } from "node:test";
import assert from "node:assert/strict";
import { EthernetDevice } from "../../../src/net/ethernet.js";
import { DEFAULT_LINK, Link } from "../../../src/net/link.js";
import { NetNamespace, Nud, nudStateName } from "../../../src/net/stack/index.js";
import { skbTruesize } from "../../../src/net/stack/neigh-parms.js";
import { DropReason } from "../../../datapath/reasons.js";
import { BROADCAST_MAC, readMac } from "../../../src/util/mac.js";
import { read16, read32 } from "../../../src/wire/bytes.js";
import { unwrap } from "../../../src/util/result.js";
import { addr, assertConserved, Capture, ip, mac, newWorld } from "./topology.js";
import { bytesOf, packetSkb, udp } from "./packets.js";

const S = 1_000_000_000;
const LATENCY = 1_000_000;

/** A (10.0.0.1) and B (10.0.0.2) on one Ethernet link with 1 ms latency; B records UDP port 5000. */
function lan(seed = 7) {
  const { world, sink } = newWorld(seed);
  const a = new NetNamespace(world, "a", "node-a");
  const b = new NetNamespace(world, "b", "node-b");
  const ea = new EthernetDevice(world, "eth0", mac("02:00:00:00:00:01"), 1500);
  const eb = new EthernetDevice(world, "eth0", mac("02:00:00:00:00:02"), 1500);
  const link = new Link(world, ea, eb, { ...DEFAULT_LINK, latencyNs: LATENCY });
  ea.link = link;
  eb.link = link;
  unwrap(a.addDevice(ea));
  unwrap(b.addDevice(eb));
  addr(a, ea, "10.0.0.1/24");
  addr(b, eb, "10.0.0.2/24");
  const got: string[] = [];
  unwrap(b.bindUdp(5000, (skb) => got.push(new TextDecoder().decode(skb.bytes().subarray(8)))));
  const cap = Capture.on(ea);
  const send = (dst: string, text: string): void => a.outputIp(packetSkb(world, udp(0, ip(dst), 4000, 5000, bytesOf(text))));
  return { world, sink, a, b, ea, eb, got, cap, send };
}

const arpFrames = <F extends { bytes: Uint8Array }>(frames: F[]): F[] => frames.filter((f) => read16(f.bytes, 12) === 0x0806);

test("packets sent while resolving wait in the queue and leave in order once the reply arrives", () => {
  const t = lan();
  for (const text of ["one", "two", "three"]) t.send("10.0.0.2", text);
  const n = t.a.neigh.lookup(t.ea, ip("10.0.0.2"))!;
  assert.equal(nudStateName(n.state), "INCOMPLETE");
  assert.equal(n.queue.length, 3);
  t.world.sim.runUntil(10 * LATENCY);
  assert.deepEqual(t.got, ["one", "two", "three"]);
  const tx = t.cap.of("eth0", "tx");
  assert.equal(tx.length, 4);
  const req = tx[0]!.bytes;
  assert.equal(readMac(req, 0), BROADCAST_MAC);
  assert.equal(read16(req, 20), 1, "ARP request");
  assert.equal(read32(req, 28), ip("10.0.0.1"), "sender: the queued packet's (selected) source");
  assert.equal(readMac(req, 32), 0, "target MAC zero");
  assert.equal(read32(req, 38), ip("10.0.0.2"));
  assert.ok(tx.slice(1).every((f) => f.time > tx[0]!.time + 2 * LATENCY && readMac(f.bytes, 0) === t.eb.mac));
  assert.equal(nudStateName(n.state), "REACHABLE", "a unicast reply confirms reachability");
  assert.equal(nudStateName(t.b.neigh.lookup(t.eb, ip("10.0.0.1"))!.state), "STALE", "the asker is learned, unconfirmed");
  t.world.sim.run();
  assertConserved(t.world);
});

test("unres_qlen_bytes: newer packets push the oldest out of the queue (dropped as NO_NEIGHBOUR)", () => {
  const t = lan();
  const size = skbTruesize(20 + 8 + 3);
  t.a.neigh.parms(t.ea).unresQlenBytes = 2 * size;
  for (const text of ["p-1", "p-2", "p-3", "p-4"]) t.send("10.0.0.2", text);
  t.world.sim.run();
  assert.deepEqual(t.got, ["p-3", "p-4"]);
  const drops = t.sink.dropRecords.filter((r) => r.reason === DropReason.NO_NEIGHBOUR);
  assert.equal(drops.length, 2);
  assert.equal(t.a.counters.neigh.unresolvedDiscards, 2);
  assertConserved(t.world);
});

test("REACHABLE for the randomized reachable time, then STALE; a send moves it to DELAY and 5 s later PROBE unicasts", () => {
  const t = lan();
  t.send("10.0.0.2", "warm");
  t.world.sim.runUntil(10 * LATENCY);
  const n = t.a.neigh.lookup(t.ea, ip("10.0.0.2"))!;
  const reachable = n.parms.reachableNs;
  assert.ok(reachable >= 15 * S && reachable < 45 * S, `reachable time ${reachable} in [15 s, 45 s)`);
  assert.equal(reachable % 4_000_000, 0, "whole jiffies");
  const confirmed = n.confirmed;
  t.world.sim.runUntil(confirmed + reachable - 1);
  assert.equal(n.state, Nud.REACHABLE);
  // At exactly confirmed + reachable the kernel's check (now <= confirmed + reachable) still holds and
  // re-arms the timer for HZ/100 (8 ms at HZ=250); then the entry, unused since it was resolved, goes STALE.
  t.world.sim.runUntil(confirmed + reachable + 8_000_000);
  assert.equal(n.state, Nud.STALE);
  const sendAt = confirmed + reachable + 3 * S;
  t.world.sim.runUntil(sendAt);
  const framesBefore = t.cap.of("eth0", "tx").length;
  t.send("10.0.0.2", "again");
  assert.equal(n.state, Nud.DELAY);
  assert.equal(t.cap.of("eth0", "tx").length, framesBefore + 1, "sent at once to the cached address");
  t.world.sim.runUntil(sendAt + 5 * S - 1);
  assert.equal(n.state, Nud.DELAY);
  t.world.sim.runUntil(sendAt + 5 * S);
  assert.equal(n.state, Nud.PROBE);
  const probe = t.cap.of("eth0", "tx").at(-1)!;
  assert.equal(probe.time, sendAt + 5 * S);
  assert.equal(readMac(probe.bytes, 0), t.eb.mac, "unicast probe to the cached address");
  assert.equal(read16(probe.bytes, 20), 1);
  t.world.sim.runUntil(sendAt + 5 * S + 10 * LATENCY);
  assert.equal(n.state, Nud.REACHABLE);
  assert.equal(arpFrames(t.cap.of("eth0", "tx")).length, 2, "the first request and one probe");
  t.world.sim.run();
  assert.deepEqual(t.got, ["warm", "again"]);
  assertConserved(t.world);
});

test("no answer: requests at 0, 1 and 2 s, FAILED at 3 s, ICMP host unreachable for each queued packet; a new packet starts over", () => {
  const t = lan();
  const errors: { type: number; code: number; time: number }[] = [];
  t.a.listenIcmp((skb) => errors.push({ type: skb.data[skb.head]!, code: skb.data[skb.head + 1]!, time: t.world.sim.now }));
  t.send("10.0.0.77", "x");
  t.send("10.0.0.77", "y");
  t.world.sim.runUntil(3 * S + 1_000_000);
  const n = t.a.neigh.lookup(t.ea, ip("10.0.0.77"))!;
  assert.equal(n.state, Nud.FAILED);
  assert.deepEqual(arpFrames(t.cap.of("eth0", "tx")).map((f) => f.time), [0, 1 * S, 2 * S]);
  assert.deepEqual(errors.map((e) => [e.type, e.code, e.time]), [[3, 1, 3 * S], [3, 1, 3 * S]]);
  assert.equal(t.sink.dropRecords.filter((r) => r.reason === DropReason.NO_NEIGHBOUR && r.site === "net/stack/neigh:failed").length, 2);
  t.world.sim.runUntil(4 * S);
  t.send("10.0.0.77", "z");
  assert.equal(n.state, Nud.INCOMPLETE);
  assert.equal(arpFrames(t.cap.of("eth0", "tx")).length, 4);
  t.world.sim.run();
  assertConserved(t.world);
});

test("a permanent entry is used without ARP and never changed by ARP traffic", () => {
  const t = lan();
  const fake = mac("02:00:00:00:00:99");
  t.a.neigh.addStatic(t.ea, ip("10.0.0.2"), fake);
  t.send("10.0.0.2", "direct");
  // B asks for A: A answers and would learn B's real MAC, but the entry is permanent.
  t.b.outputIp(packetSkb(t.world, udp(0, ip("10.0.0.1"), 1, 9, bytesOf("hi"))));
  t.world.sim.run();
  const n = t.a.neigh.lookup(t.ea, ip("10.0.0.2"))!;
  assert.equal(n.state, Nud.PERMANENT);
  assert.equal(n.mac, fake);
  const tx = t.cap.of("eth0", "tx");
  assert.equal(readMac(tx[0]!.bytes, 0), fake, "first frame goes straight to the static address");
  assert.ok(arpFrames(tx).every((f) => read16(f.bytes, 20) === 2), "A only answers, never asks");
  assert.deepEqual(t.got, [], "B drops frames for another MAC");
  // A's datagram and A's port unreachable for B's datagram both went to the static (wrong) address.
  assert.equal(t.sink.dropRecords.filter((r) => r.reason === DropReason.NOT_FOR_HOST).length, 2);
  assertConserved(t.world);
});

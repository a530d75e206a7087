// The bridge as a plain L2 switch between EthernetDevices on links: learning, flooding of unknown
// unicast / broadcast / multicast (never back out the ingress port), aging on simulated time,
// hairpin, per-port flags, reserved group addresses, source checks, MTU and the bridge's own MAC.
// Expected behaviour is Linux's net/bridge (br_input.c, br_forward.c, br_fdb.c).

import { test } from "node:test";
import assert from "node:assert/strict";
import { DropReason } from "../../../datapath/reasons.js";
import { FDB_PORT_BRIDGE, FdbFlag } from "../../../src/net/bridge.js";
import { BROADCAST_MAC } from "../../../src/util/mac.js";
import { assertConserved, makeWorld, mac, packet, rawFrame } from "./helpers.js";
import { buildSwitch } from "./switch-fixture.js";

const S = 1_000_000_000;

test("unknown unicast floods to every other port; learned destinations go to one port", () => {
  const { sim, world } = makeWorld();
  const { sw, hosts, cap } = buildSwitch(world, 3);
  const [h1, h2] = hosts as [typeof hosts[0], typeof hosts[0]];
  h1.transmit(packet(world, rawFrame(mac(2), mac(1))));
  sim.run();
  assert.equal(cap.on("h2", "rx").length, 1);
  assert.equal(cap.on("h3", "rx").length, 1);
  assert.equal(cap.on("h1", "rx").length, 0, "never flooded back out the ingress port");
  cap.clear();
  h2.transmit(packet(world, rawFrame(mac(1), mac(2))));
  sim.run();
  assert.deepEqual(cap.frames.filter((f) => f.dir === "rx").map((f) => f.dev), ["h1"]);
  cap.clear();
  h1.transmit(packet(world, rawFrame(mac(2), mac(1))));
  sim.run();
  assert.deepEqual(cap.frames.filter((f) => f.dir === "rx").map((f) => f.dev), ["h2"]);
  const learned = sw.fdbEntries().filter((e) => (e.flags & FdbFlag.LOCAL) === 0);
  assert.deepEqual(learned.map((e) => [e.mac, e.dev?.name]), [[mac(1), "sw0p1"], [mac(2), "sw0p2"]]);
  assert.equal(sw.bridgeStats.flooded, 1);
  assert.equal(sw.bridgeStats.forwarded, 2);
  assertConserved(world);
});

test("broadcast and multicast reach every other port and the flood copies are counted as entered", () => {
  const { sim, world } = makeWorld();
  const { hosts, cap } = buildSwitch(world, 4);
  hosts[2]!.transmit(packet(world, rawFrame(BROADCAST_MAC, mac(3))));
  hosts[0]!.transmit(packet(world, rawFrame(0x01005e000001, mac(1))));
  sim.run();
  assert.deepEqual(cap.on("h3", "rx").length, 1); // the multicast from h1
  for (const h of ["h1", "h2", "h4"]) assert.ok(cap.on(h, "rx").some((b) => b[0] === 0xff), `${h} got the broadcast`);
  assert.ok(!cap.on("h3", "rx").some((b) => b[0] === 0xff), "h3 sent the broadcast and must not get it back");
  assert.equal(cap.on("h1", "rx").filter((b) => b[0] === 0x01).length, 0);
  assert.equal(world.ledger.entered, 2 + 2 + 2); // two originals, two extra copies each
  assertConserved(world);
});

test("learned entries age out 300 s after they were last refreshed by traffic from that MAC", () => {
  const { sim, world } = makeWorld();
  const { sw, hosts, cap } = buildSwitch(world, 3);
  const [h1, h2] = hosts as [typeof hosts[0], typeof hosts[0]];
  h2.transmit(packet(world, rawFrame(mac(1), mac(2))));
  sim.run();
  const learnedAt = sw.fdbEntries().find((e) => e.mac === mac(2))!.updated;
  const expiresAt = learnedAt + 300 * S;
  sim.runUntil(expiresAt - 10_000);
  cap.clear();
  h1.transmit(packet(world, rawFrame(mac(2), mac(1))));
  sim.runUntil(expiresAt - 1);
  // The frame reached the bridge before expiry, so it went only to h2.
  assert.deepEqual(cap.frames.filter((f) => f.dir === "rx").map((f) => f.dev), ["h2"]);
  assert.ok(sw.fdbEntries().some((e) => e.mac === mac(2)), "alive 1 ns before updated + 300 s");
  sim.runUntil(expiresAt);
  assert.equal(sw.fdbEntries().some((e) => e.mac === mac(2)), false, "aged out at updated + 300 s");
  cap.clear();
  h1.transmit(packet(world, rawFrame(mac(2), mac(1))));
  sim.run();
  assert.deepEqual(cap.frames.filter((f) => f.dir === "rx").map((f) => f.dev).sort(), ["h2", "h3"], "flooded again");
  assertConserved(world);
});

test("traffic from a MAC refreshes its entry; forwarding to it does not", () => {
  const { sim, world } = makeWorld();
  const { sw, hosts } = buildSwitch(world, 2);
  const [h1, h2] = hosts as [typeof hosts[0], typeof hosts[0]];
  h2.transmit(packet(world, rawFrame(mac(1), mac(2))));
  sim.run();
  sim.runUntil(200 * S);
  h1.transmit(packet(world, rawFrame(mac(2), mac(1)))); // uses the entry, does not refresh it
  sim.run();
  sim.runUntil(250 * S);
  h2.transmit(packet(world, rawFrame(mac(1), mac(2)))); // refreshes
  sim.run();
  sim.runUntil(400 * S);
  const e = sw.fdbEntries().find((x) => x.mac === mac(2));
  assert.ok(e !== undefined && e.updated > 250 * S && e.used > 200 * S && e.used < 201 * S);
  sim.runUntil(551 * S);
  assert.equal(sw.fdbEntries().some((x) => x.mac === mac(2)), false);
  assertConserved(world);
});

test("a frame whose destination is behind its ingress port is filtered, unless hairpin is on", () => {
  const { sim, world, drops } = makeWorld();
  const { sw, hosts, ports, cap } = buildSwitch(world, 3);
  const h1 = hosts[0]!;
  h1.transmit(packet(world, rawFrame(mac(2), mac(1))));
  sim.run();
  cap.clear();
  h1.transmit(packet(world, rawFrame(mac(1), mac(0x55)))); // another station behind port 1 talks to h1
  sim.run();
  assert.equal(cap.frames.filter((f) => f.dir === "rx").length, 0);
  assert.equal(drops.dropRecords.at(-1)?.reason, DropReason.BRIDGE_FILTERED);
  assert.equal(drops.dropRecords.at(-1)?.site, "net/bridge:same-port");
  assert.equal(sw.bridgeStats.filtered, 1);
  sw.port(ports[0]!)!.hairpin = true;
  h1.transmit(packet(world, rawFrame(mac(1), mac(0x55))));
  sim.run();
  assert.deepEqual(cap.frames.filter((f) => f.dir === "rx").map((f) => f.dev), ["h1"], "hairpin sends it back out port 1");
  cap.clear();
  h1.transmit(packet(world, rawFrame(BROADCAST_MAC, mac(1))));
  sim.run();
  assert.deepEqual(cap.frames.filter((f) => f.dir === "rx").map((f) => f.dev).sort(), ["h1", "h2", "h3"], "with hairpin, floods include the ingress port");
  assertConserved(world);
});

test("per-port flags: flood, bcast_flood and learning", () => {
  const { sim, world } = makeWorld();
  const { sw, hosts, ports, cap } = buildSwitch(world, 3);
  const p3 = sw.port(ports[2]!)!;
  p3.flood = false;
  hosts[0]!.transmit(packet(world, rawFrame(mac(9), mac(1))));
  sim.run();
  assert.deepEqual(cap.frames.filter((f) => f.dir === "rx").map((f) => f.dev), ["h2"], "no unknown unicast to a flood-off port");
  cap.clear();
  hosts[0]!.transmit(packet(world, rawFrame(BROADCAST_MAC, mac(1))));
  sim.run();
  assert.deepEqual(cap.frames.filter((f) => f.dir === "rx").map((f) => f.dev).sort(), ["h2", "h3"], "broadcast still flooded");
  p3.bcastFlood = false;
  cap.clear();
  hosts[0]!.transmit(packet(world, rawFrame(BROADCAST_MAC, mac(1))));
  sim.run();
  assert.deepEqual(cap.frames.filter((f) => f.dir === "rx").map((f) => f.dev), ["h2"]);
  sw.port(ports[1]!)!.learning = false;
  hosts[1]!.transmit(packet(world, rawFrame(mac(1), mac(2))));
  sim.run();
  assert.equal(sw.fdbEntries().some((e) => e.mac === mac(2)), false, "learning off: not learned");
  assertConserved(world);
});

test("frames with a multicast or zero source MAC are dropped, not learned", () => {
  const { sim, world, drops } = makeWorld();
  const { sw, hosts, cap } = buildSwitch(world, 2);
  hosts[0]!.transmit(packet(world, rawFrame(BROADCAST_MAC, 0x01005e000005)));
  hosts[0]!.transmit(packet(world, rawFrame(BROADCAST_MAC, 0)));
  sim.run();
  assert.equal(cap.frames.filter((f) => f.dir === "rx").length, 0);
  assert.deepEqual(drops.dropRecords.map((d) => [d.reason, d.site]), [
    [DropReason.INVALID_PACKET, "net/bridge:invalid-source"],
    [DropReason.INVALID_PACKET, "net/bridge:invalid-source"],
  ]);
  assert.equal(sw.fdb.size, 2); // the two ports' MACs (the bridge took the lower one as its own)
  assertConserved(world);
});

test("reserved group addresses: STP frames are flooded (STP off), LLDP is learned but not bridged, pause is dropped", () => {
  const { sim, world, drops } = makeWorld();
  const { sw, hosts, cap } = buildSwitch(world, 3);
  hosts[0]!.transmit(packet(world, rawFrame(0x0180c200000e, mac(1), 0x88cc)));
  hosts[0]!.transmit(packet(world, rawFrame(0x0180c2000001, mac(5), 0x8808)));
  sim.run();
  assert.equal(cap.frames.filter((f) => f.dir === "rx").length, 0);
  assert.deepEqual(drops.dropRecords.map((d) => d.site), ["net/bridge:link-local", "net/bridge:pause"]);
  assert.ok(sw.fdbEntries().some((e) => e.mac === mac(1)), "LLDP source learned");
  assert.ok(!sw.fdbEntries().some((e) => e.mac === mac(5)), "pause frames are not learned");
  hosts[0]!.transmit(packet(world, rawFrame(0x0180c2000000, mac(1), 0x0026)));
  sim.run();
  assert.deepEqual(cap.frames.filter((f) => f.dir === "rx").map((f) => f.dev).sort(), ["h2", "h3"]);
  assertConserved(world);
});

test("the bridge MTU follows the smallest port; oversize frames are dropped at that port only", () => {
  const { sim, world, drops } = makeWorld();
  const { sw, hosts, ports, cap } = buildSwitch(world, 3);
  assert.equal(sw.mtu, 1500);
  ports[2]!.mtu = 1000;
  sw.recalcMtu();
  assert.equal(sw.mtu, 1000);
  hosts[0]!.transmit(packet(world, rawFrame(BROADCAST_MAC, mac(1), 0x88b5, 14 + 1100)));
  sim.run();
  assert.deepEqual(cap.frames.filter((f) => f.dir === "rx").map((f) => f.dev), ["h2"]);
  assert.equal(drops.dropRecords.at(-1)?.reason, DropReason.MTU_EXCEEDED);
  // is_skb_forwardable allows MTU + 14 + 4 (one VLAN tag).
  cap.clear();
  hosts[0]!.transmit(packet(world, rawFrame(BROADCAST_MAC, mac(1), 0x8100, 14 + 1004)));
  sim.run();
  assert.deepEqual(cap.frames.filter((f) => f.dir === "rx").map((f) => f.dev).sort(), ["h2", "h3"]);
  assertConserved(world);
});

test("the bridge's MAC follows its lowest port MAC unless set; own MACs are local entries", () => {
  const { world } = makeWorld();
  const { sw, ports } = buildSwitch(world, 3);
  assert.equal(sw.mac, mac(0x101));
  const locals = sw.fdbEntries().filter((e) => (e.flags & FdbFlag.LOCAL) !== 0);
  assert.deepEqual(locals.map((e) => e.mac), [mac(0x101), mac(0x102), mac(0x103)]);
  sw.removePort(ports[0]!);
  assert.equal(sw.mac, mac(0x102));
  assert.equal(ports[0]!.master, null);
  assert.ok(!sw.fdbEntries().some((e) => e.mac === mac(0x101)));
  sw.setAddress(mac(0x900));
  sw.addPort(ports[0]!);
  assert.equal(sw.mac, mac(0x900), "a user-set MAC stays");
  assert.equal(sw.fdbEntries().find((e) => e.mac === mac(0x900))?.port, FDB_PORT_BRIDGE);
  assert.equal(sw.addPort(ports[0]!).ok, false, "already enslaved");
  assert.equal(sw.addPort(sw).ok, false, "no bridge in a bridge");
});

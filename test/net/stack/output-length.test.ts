// ip_local_out with a packet longer than the IPv4 total length can say (65535): refused with a reason
// and counted, never written with a wrapped 16-bit length (which would silently cut its tail off at
// the receiver).
import { test } from "node:test";
import assert from "node:assert/strict";
import { NetNamespace } from "../../../src/net/stack/index.js";
import { DropReason } from "../../../datapath/reasons.js";
import { addr, assertConserved, Capture, ip, mac, newWorld, vethBetween } from "./topology.js";
import { ipv4, packetSkb } from "./packets.js";

function setup() {
  const { world, sink } = newWorld(5);
  const a = new NetNamespace(world, "a", "n");
  const b = new NetNamespace(world, "b", "n");
  const [va, vb] = vethBetween(world, a, "va", mac("02:00:00:00:00:0a"), b, "vb", mac("02:00:00:00:00:0b"), 65535);
  addr(a, va, "10.0.0.1/24");
  addr(b, vb, "10.0.0.2/24");
  return { world, sink, a, va };
}

/** Sends one local IPv4 packet of `length` bytes (protocol 253, DF) from a to b; returns what va transmitted. */
function sendLocal(length: number) {
  const t = setup();
  const cap = Capture.on(t.va);
  t.a.outputIp(packetSkb(t.world, ipv4(ip("10.0.0.1"), ip("10.0.0.2"), 253, new Uint8Array(length - 20), { df: true })));
  t.world.sim.run();
  return { ...t, cap };
}

test("a 70,000-byte local packet is dropped at output as invalid, with its length named", () => {
  const t = sendLocal(70_000);
  const cap = t.cap;
  assert.equal(t.sink.dropRecords.length, 1);
  const d = t.sink.dropRecords[0]!;
  assert.equal(d.reason, DropReason.INVALID_PACKET);
  assert.equal(d.site, "net/stack/output:length");
  assert.match(d.explanation ?? "", /70000-byte local packet/);
  assert.equal(t.a.counters.ip.OutDiscards, 1);
  assert.equal(t.a.counters.ip.OutRequests, 0);
  assert.equal(cap.frames.length, 0, "nothing left the device");
  assertConserved(t.world);
});

test("65,535 bytes, the largest the field can say, still leaves", () => {
  const t = sendLocal(65_535);
  const sent = t.cap.frames.filter((f) => f.bytes.length > 1000);
  assert.equal(sent.length, 1);
  assert.equal(sent[0]!.bytes.length, 14 + 65_535);
  assert.equal(t.a.counters.ip.OutDiscards, 0);
});

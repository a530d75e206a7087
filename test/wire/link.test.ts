// Byte-level tests of the link-layer headers: Ethernet II, stacked 802.1ad/802.1Q tags, ARP, Linux SLL/SLL2.
// Expected values are tshark's decode of the same bytes (external captures and crafted-frames.ts).
import { test } from "node:test";
import assert from "node:assert/strict";
import { parseMac } from "../../src/util/mac.js";
import { parseIPv4 } from "../../src/util/ip.js";
import { emitEthernet, parseEthernet, ethernetType } from "../../src/wire/ethernet.js";
import { emitVlan, parseVlan, vlanId } from "../../src/wire/vlan.js";
import { emitArp, parseArp } from "../../src/wire/arp.js";
import { emitSll, emitSll2, parseSll, parseSll2 } from "../../src/wire/sll.js";
import { CRAFTED } from "./crafted-frames.js";
import { readClassicPcap, sharedPath } from "./fixtures.js";

const arpCapture = readClassicPcap(sharedPath("pcaps/external/zeek-communityid-arp.pcap"));
const dot1qCapture = readClassicPcap(sharedPath("pcaps/external/zeek-icmp_dot1q.pcap"));

test("Ethernet II: tshark's src/dst/type of a real ARP frame; emit rebuilds the 14 bytes", () => {
  const frame = arpCapture.frames[0]!;
  const r = parseEthernet(frame, 0, frame.length);
  assert.ok(r.ok);
  assert.deepEqual(r.value, { dst: parseMac("ff:ff:ff:ff:ff:ff"), src: parseMac("00:b0:4a:2e:1c:38"), etherType: 0x0806 });
  const out = new Uint8Array(14);
  assert.equal(emitEthernet(r.value, out, 0), 14);
  assert.deepEqual(out, frame.subarray(0, 14));
});

test("Ethernet: every length below 14 is a truncation error at offset 0, never an exception", () => {
  const frame = arpCapture.frames[0]!;
  for (let n = 0; n < 14; n++) {
    const r = parseEthernet(frame, 0, n);
    assert.ok(!r.ok);
    assert.deepEqual({ ...r.error, reason: undefined }, { layer: "eth", field: "header", offset: 0, reason: undefined });
    assert.match(r.error.reason, new RegExp(`needs 14 bytes, ${n} available`));
  }
  assert.ok(parseEthernet(frame, 0, 1000).ok, "an end past the buffer is clamped to the buffer");
  assert.ok(!parseEthernet(frame, -1, frame.length).ok, "a negative offset is an error");
});

test("802.1ad + 802.1Q stacked tags: outer TPID 0x88a8 id 100 pcp 3, inner 0x8100 id 200 -> IPv4 (tshark)", () => {
  const f = CRAFTED.qinqIpv4OptUdp;
  assert.equal(ethernetType(f, 0), 0x88a8);
  const outer = parseVlan(f, 14, f.length);
  assert.ok(outer.ok);
  assert.deepEqual(outer.value, { pcp: 3, dei: false, vid: 100, etherType: 0x8100 });
  const inner = parseVlan(f, 18, f.length);
  assert.ok(inner.ok);
  assert.deepEqual(inner.value, { pcp: 0, dei: false, vid: 200, etherType: 0x0800 });
  const out = new Uint8Array(8);
  emitVlan(outer.value, out, 0);
  emitVlan(inner.value, out, 4);
  assert.deepEqual(out, f.subarray(14, 22));
  const r = parseVlan(f, 18, 21);
  assert.ok(!r.ok);
  assert.equal(r.error.offset, 18);
});

test("802.1Q in a real capture: vlan.id 123, vlan.etype 0x0806, and priority 7 on frame 4 (tshark -V)", () => {
  const tags = dot1qCapture.frames.map((f) => parseVlan(f, 14, f.length));
  assert.ok(tags.every((t) => t.ok && t.value.vid === 123));
  assert.equal(vlanId(dot1qCapture.frames[0]!, 14), 123);
  const first = tags[0]!;
  assert.ok(first.ok && first.value.etherType === 0x0806);
  const fourth = tags[3]!;
  assert.ok(fourth.ok && fourth.value.pcp === 7);
});

test("ARP request and reply (tshark arp.opcode / src / dst proto); emit rebuilds the 28 bytes", () => {
  const request = parseArp(arpCapture.frames[0]!, 14, arpCapture.frames[0]!.length);
  assert.ok(request.ok);
  assert.deepEqual(request.value, {
    operation: 1,
    senderMac: parseMac("00:b0:4a:2e:1c:38"),
    senderIp: parseIPv4("192.150.187.1"),
    targetMac: 0,
    targetIp: parseIPv4("192.150.187.20"),
  });
  const reply = parseArp(arpCapture.frames[2]!, 14, arpCapture.frames[2]!.length);
  assert.ok(reply.ok);
  assert.equal(reply.value.operation, 2);
  assert.equal(reply.value.senderIp, parseIPv4("192.150.187.14"));
  const out = new Uint8Array(28);
  emitArp(reply.value, out, 0);
  assert.deepEqual(out, arpCapture.frames[2]!.subarray(14, 42));
});

test("ARP with a non-Ethernet hardware type or a cut packet is a typed error naming the field", () => {
  const bytes = arpCapture.frames[0]!.slice();
  bytes[15] = 6; // hardware type 6 (IEEE 802)
  const r = parseArp(bytes, 14, bytes.length);
  assert.ok(!r.ok);
  assert.deepEqual([r.error.layer, r.error.field, r.error.offset], ["arp", "hardwareType", 14]);
  const cut = parseArp(arpCapture.frames[0]!, 14, 14 + 27);
  assert.ok(!cut.ok);
  assert.deepEqual([cut.error.layer, cut.error.offset], ["arp", 14]);
});

test("Linux SLL (link type 113): outgoing packet (4), ARPHRD_ETHER, 6-byte address, protocol IPv4", () => {
  const f = CRAFTED.sll;
  const r = parseSll(f, 0, f.length);
  assert.ok(r.ok);
  assert.equal(r.value.packetType, 4);
  assert.equal(r.value.arphrdType, 1);
  assert.deepEqual(Array.from(r.value.address), [2, 0, 0, 0, 0, 0x0c]);
  assert.equal(r.value.protocol, 0x0800);
  const out = new Uint8Array(16);
  emitSll(r.value, out, 0);
  assert.deepEqual(out, f.subarray(0, 16));
});

test("Linux SLL2 (link type 276): protocol IPv6, ifindex 7, multicast packet type (2)", () => {
  const f = CRAFTED.sll2;
  const r = parseSll2(f, 0, f.length);
  assert.ok(r.ok);
  assert.deepEqual(
    { ...r.value, address: Array.from(r.value.address) },
    { packetType: 2, arphrdType: 1, address: [2, 0, 0, 0, 0, 0x0d], protocol: 0x86dd, interfaceIndex: 7 },
  );
  const out = new Uint8Array(20);
  emitSll2(r.value, out, 0);
  assert.deepEqual(out, f.subarray(0, 20));
  assert.ok(!parseSll2(f, 0, 19).ok);
});

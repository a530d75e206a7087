// Byte-level tests of the tunnel headers: VXLAN (RFC 7348), Geneve (RFC 8926) with options, IPIP.
// Expected values: tshark's decode of the external captures and crafted-frames.ts.
import { test } from "node:test";
import assert from "node:assert/strict";
import { emitVxlan, parseVxlan, vxlanVni } from "../../src/wire/vxlan.js";
import { emitGeneve, geneveHeaderLength, parseGeneve } from "../../src/wire/geneve.js";
import { IPIP_OVERHEAD, ipipOuterRepr, isIpInIp } from "../../src/wire/ipip.js";
import { emitIpv4, parseIpv4 } from "../../src/wire/ipv4.js";
import { CRAFTED } from "./crafted-frames.js";
import { readClassicPcap, sharedPath } from "./fixtures.js";

const vxlanFrames = readClassicPcap(sharedPath("pcaps/external/tcpdump-vxlan.pcap")).frames;
const geneveFrames = readClassicPcap(sharedPath("pcaps/external/tcpdump-geneve.pcap")).frames;
const ipipFrames = readClassicPcap(sharedPath("pcaps/external/zeek-tunnels-4in4.pcap")).frames;

test("VXLAN: flags 0x08 (I), VNI 100 in every frame of tcpdump's capture (tshark vxlan.vni); emit rebuilds", () => {
  for (const f of vxlanFrames) {
    const r = parseVxlan(f, 42, f.length);
    assert.ok(r.ok);
    assert.deepEqual(r.value, { flags: 0x08, vni: 100 });
    assert.equal(vxlanVni(f, 42), 100);
    const out = new Uint8Array(8);
    emitVxlan(r.value, out, 0);
    assert.deepEqual(out, f.subarray(42, 50));
  }
  const crafted = parseVxlan(CRAFTED.vxlanInnerIcmpv6, 42, CRAFTED.vxlanInnerIcmpv6.length);
  assert.ok(crafted.ok && crafted.value.vni === 11259375); // tshark vxlan.vni 11259375 (0xabcdef): all 24 bits
});

test("VXLAN without the I flag, or cut short, is a typed error", () => {
  const f = vxlanFrames[0]!.slice();
  f[42] = 0x00;
  const r = parseVxlan(f, 42, f.length);
  assert.ok(!r.ok);
  assert.deepEqual([r.error.layer, r.error.field, r.error.offset], ["vxlan", "flags", 42]);
  const cut = parseVxlan(vxlanFrames[0]!, 42, 49);
  assert.ok(!cut.ok && cut.error.field === "header");
});

test("Geneve: critical flag, TEB payload, VNI 0xa, one 8-byte option class 0 type 0x80 data 0000000c (tshark -V)", () => {
  const f = geneveFrames[0]!;
  const r = parseGeneve(f, 42, f.length);
  assert.ok(r.ok);
  assert.deepEqual(r.value, {
    version: 0,
    oam: false,
    critical: true,
    protocolType: 0x6558,
    vni: 10,
    options: [{ optionClass: 0, type: 0x80, data: Uint8Array.of(0, 0, 0, 0x0c) }],
  });
  assert.equal(geneveHeaderLength(r.value), 16);
  const out = new Uint8Array(16);
  emitGeneve(r.value, out, 0);
  assert.deepEqual(out, f.subarray(42, 58));
  const second = parseGeneve(geneveFrames[1]!, 42, geneveFrames[1]!.length);
  assert.ok(second.ok && second.value.vni === 11 && second.value.options.length === 0 && !second.value.critical);
});

test("Geneve carrying IPv4 directly (protocol 0x0800), OVN option class 0x0102 type 0x85, VNI 0x123456 (tshark)", () => {
  const f = CRAFTED.geneveIpv4Option;
  const r = parseGeneve(f, 42, f.length);
  assert.ok(r.ok);
  assert.equal(r.value.protocolType, 0x0800);
  assert.equal(r.value.vni, 0x123456);
  assert.deepEqual(r.value.options, [{ optionClass: 0x0102, type: 0x85, data: Uint8Array.of(0x11, 0x22, 0x33, 0x44) }]);
});

test("Geneve errors: version 1, options length past the end, an option overrunning the options", () => {
  const f = geneveFrames[0]!;
  const version = f.slice();
  version[42] = version[42]! | 0x40;
  const v = parseGeneve(version, 42, version.length);
  assert.ok(!v.ok && v.error.field === "version" && v.error.offset === 42);
  const cut = parseGeneve(f, 42, 42 + 12);
  assert.ok(!cut.ok && cut.error.field === "options");
  const overrun = f.slice();
  overrun[53] = 0x03; // option data length 12 bytes, only 4 left in the 8 bytes of options
  const o = parseGeneve(overrun, 42, overrun.length);
  assert.ok(!o.ok);
  assert.deepEqual([o.error.field, o.error.offset], ["option", 50]);
});

test("IPIP (zeek 4in4): outer 1.2.3.4 -> 5.6.7.8 protocol 4 wraps inner 10.0.0.1 -> 10.0.0.2 UDP (tshark)", () => {
  const f = ipipFrames[0]!;
  const outer = parseIpv4(f, 14, f.length);
  assert.ok(outer.ok && isIpInIp(outer.value.protocol));
  const inner = parseIpv4(f, 14 + IPIP_OVERHEAD, f.length);
  assert.ok(inner.ok);
  assert.deepEqual([inner.value.src, inner.value.dst, inner.value.protocol, inner.value.totalLength], [0x0a000001, 0x0a000002, 17, 32]);
  // The helper's outer header for the same inner datagram is byte-identical to the capture's.
  const built = ipipOuterRepr(outer.value.src, outer.value.dst, 32, 64, 1, false);
  const out = new Uint8Array(20);
  emitIpv4(built, out, 0);
  assert.deepEqual(out, f.subarray(14, 34));
});

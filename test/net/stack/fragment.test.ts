// Fragmentation on output (RFC 791 as ip_do_fragment applies it: 8-byte units, MF on all but the last,
// uncopied options blanked after the first fragment) and reassembly on local delivery (any order,
// duplicates ignored, overlaps discard the datagram, 30 s timeout with ICMP time exceeded code 1).

import { test } from "node:test";
import assert from "node:assert/strict";
import { NetNamespace } from "../../../src/net/stack/index.js";
import { DropReason } from "../../../datapath/reasons.js";
import { read16 } from "../../../src/wire/bytes.js";
import { setIpv4HeaderChecksum } from "../../../src/wire/checksum.js";
import { addr, assertConserved, Capture, injectTx, ip, mac, newWorld, vethBetween } from "./topology.js";
import { frame, ipFields, ipv4, packetSkb, udp } from "./packets.js";

const S = 1_000_000_000;

function setup() {
  const { world, sink } = newWorld(31);
  const a = new NetNamespace(world, "a", "n");
  const b = new NetNamespace(world, "b", "n");
  const [va, vb] = vethBetween(world, a, "va", mac("02:00:00:00:00:0a"), b, "vb", mac("02:00:00:00:00:0b"));
  addr(a, va, "10.0.0.1/24");
  addr(b, vb, "10.0.0.2/24");
  const got: number[] = [];
  b.bindUdp(9000, (skb) => got.push(skb.length));
  const cap = Capture.on(va);
  return { world, sink, a, b, va, vb, got, cap };
}

const payload = (n: number): Uint8Array => Uint8Array.from({ length: n }, (_, i) => i & 0xff);

/** Fragment k of a datagram: the IPv4 header of `whole` with offset/MF set and bytes [from, to) of its payload. */
function piece(whole: Uint8Array, from: number, to: number, more: boolean): Uint8Array {
  const out = ipv4(ipFields(whole, 0).src, ipFields(whole, 0).dst, 17, whole.subarray(20 + from, 20 + to), { id: 0x4242, mf: more, fragOffset: from });
  return out;
}

test("a 3008-byte datagram leaves a 1500-byte MTU as 1480 + 1480 + 48 payload bytes and is reassembled", () => {
  const t = setup();
  t.a.outputIp(packetSkb(t.world, udp(0, ip("10.0.0.2"), 1, 9000, payload(3000), { id: 0x77 })));
  t.world.sim.run();
  const frags = t.cap.of("va", "tx").filter((f) => read16(f.bytes, 12) === 0x0800).map((f) => ipFields(f.bytes));
  assert.deepEqual(frags.map((f) => [f.totalLength, f.frag, f.id]), [[1500, 0x2000, 0x77], [1500, 0x2000 | 185, 0x77], [68, 370, 0x77]]);
  assert.deepEqual(t.got, [3008]);
  assert.equal(t.a.counters.ip.FragOKs, 1);
  assert.equal(t.a.counters.ip.FragCreates, 3);
  assert.equal(t.b.counters.ip.ReasmReqds, 3);
  assert.equal(t.b.counters.ip.ReasmOKs, 1);
  assertConserved(t.world);
});

test("fragments in any order, with a duplicate, make one datagram", () => {
  const t = setup();
  const whole = udp(ip("10.0.0.1"), ip("10.0.0.2"), 1, 9000, payload(100), { id: 0x4242 });
  // The duplicate must come before the datagram completes: a late copy would open a new queue.
  const parts = [piece(whole, 48, 108, false), piece(whole, 0, 24, true), piece(whole, 0, 24, true), piece(whole, 24, 48, true)];
  for (const p of parts) injectTx(t.world, t.va, frame(t.vb.mac, t.va.mac, p));
  t.world.sim.run();
  assert.deepEqual(t.got, [108]);
  assert.equal(t.sink.dropRecords.length, 1);
  assert.match(t.sink.dropRecords[0]!.explanation ?? "", /duplicate/);
  assertConserved(t.world);
});

test("overlapping fragments discard the whole datagram", () => {
  const t = setup();
  const whole = udp(ip("10.0.0.1"), ip("10.0.0.2"), 1, 9000, payload(100), { id: 0x4242 });
  for (const p of [piece(whole, 0, 48, true), piece(whole, 40, 108, false)]) injectTx(t.world, t.va, frame(t.vb.mac, t.va.mac, p));
  t.world.sim.run();
  assert.deepEqual(t.got, []);
  assert.equal(t.b.counters.ipExt.ReasmOverlaps, 1);
  assert.equal(t.b.counters.ip.ReasmFails, 1);
  assert.equal(t.sink.dropRecords.filter((r) => r.reason === DropReason.INVALID_PACKET).length, 2);
  assert.equal(t.b.reassembler.pending, 0);
  assertConserved(t.world);
});

test("reassembly times out after 30 s: ICMP time exceeded (reassembly) quoting the first fragment only if it came", () => {
  for (const first of [true, false]) {
    const t = setup();
    const whole = udp(ip("10.0.0.1"), ip("10.0.0.2"), 1, 9000, payload(100), { id: 0x4242 });
    injectTx(t.world, t.va, frame(t.vb.mac, t.va.mac, first ? piece(whole, 0, 48, true) : piece(whole, 48, 108, false)));
    t.world.sim.runUntil(30 * S - 1);
    assert.equal(t.b.reassembler.pending, 1);
    t.world.sim.run();
    assert.equal(t.b.counters.ip.ReasmTimeout, 1);
    assert.equal(t.b.counters.ip.ReasmFails, 1);
    const icmp = t.cap.of("va", "rx").filter((f) => read16(f.bytes, 12) === 0x0800);
    if (first) {
      assert.equal(icmp.length, 1);
      const f = ipFields(icmp[0]!.bytes);
      assert.deepEqual([icmp[0]!.bytes[f.l4], icmp[0]!.bytes[f.l4 + 1]], [11, 1]);
      assert.equal(f.totalLength, 20 + 8 + 20 + 48, "quotes the whole first fragment");
      assert.equal(icmp[0]!.time, 30 * S);
    } else {
      assert.equal(icmp.length, 0);
    }
    assert.equal(t.sink.dropRecords.filter((r) => r.reason === DropReason.REASSEMBLY_TIMEOUT).length, 1);
    assertConserved(t.world);
  }
});

test("a local DF packet over the MTU is refused with fragmentation needed to ourselves", () => {
  const t = setup();
  const errors: number[] = [];
  t.a.listenIcmp((skb) => errors.push((skb.data[skb.head]! << 8) | skb.data[skb.head + 1]!, read16(skb.data, skb.head + 6)));
  t.a.outputIp(packetSkb(t.world, udp(0, ip("10.0.0.2"), 1, 9000, payload(1600), { df: true })));
  t.world.sim.run();
  assert.deepEqual(errors, [0x0304, 1500]);
  assert.equal(t.a.counters.ip.FragFails, 1);
  assert.equal(t.sink.dropRecords.filter((r) => r.reason === DropReason.FRAG_NEEDED).length, 1);
  assertConserved(t.world);
});

test("options without the copy flag become NOOPs in every fragment after the first", () => {
  const t = setup();
  const body = payload(60);
  const options = [0x94, 4, 0, 0, 0x07, 7, 4, 0, 0, 0, 0, 0];
  const p = new Uint8Array(32 + body.length);
  p.set(ipv4(0, ip("10.0.0.2"), 253, new Uint8Array(0)).subarray(0, 20));
  p[0] = 0x48;
  p.set(options, 20);
  p.set(body, 32);
  setIpv4HeaderChecksum(p, 0, 32);
  t.va.mtu = 32 + 40;
  t.a.outputIp(packetSkb(t.world, p));
  t.world.sim.run();
  const frags = t.cap.of("va", "tx").filter((f) => read16(f.bytes, 12) === 0x0800).map((f) => f.bytes);
  assert.equal(frags.length, 2);
  assert.deepEqual([...frags[0]!.subarray(34, 46)], options);
  assert.deepEqual([...frags[1]!.subarray(34, 46)], [0x94, 4, 0, 0, 1, 1, 1, 1, 1, 1, 1, 0]);
  assert.deepEqual(frags.map((f) => ipFields(f).frag), [0x2000, 5]);
  assertConserved(t.world);
});

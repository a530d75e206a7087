// Encapsulation bytes: VXLAN (RFC 7348 header, Linux vxlan outer defaults: TTL 64, DF clear, UDP checksum
// 0, source port from the inner flow in [32768, 61000)) and IPIP (RFC 2003; Linux ip_tunnel: TTL and DF
// inherited, ID 0 with DF), and decapsulation giving back the inner bytes.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { read16, read32 } from "../../../src/wire/bytes.js";
import { IPPROTO_TCP, verifyIpv4HeaderChecksum } from "../../../src/wire/checksum.js";
import { decapIpip, decapVxlan, encapIpip, encapVxlan, VXLAN_SRC_PORT_MAX, VXLAN_SRC_PORT_MIN } from "../../../datapath/lib/encap.js";
import { parsePacket } from "../../../datapath/lib/parse.js";
import { N1, N2, POD_A, POD_C, assertChecksums, buildFrame, node1, skbOf } from "../programs/fixtures.js";

function parsedCtx(frame: Uint8Array, random = 99) {
  const n = node1();
  const skb = skbOf(frame);
  n.ctx.begin(skb, 1, true, 0, 0, random);
  assert.equal(parsePacket(n.ctx), 0);
  return { ctx: n.ctx, skb };
}

describe("VXLAN encapsulation", () => {
  it("writes the outer IPv4/UDP/VXLAN headers in front of the untouched inner frame", () => {
    const inner = buildFrame({ src: POD_A, dst: POD_C, proto: IPPROTO_TCP, sport: 40000, dport: 8080, payload: 33 });
    const { ctx, skb } = parsedCtx(inner);
    encapVxlan(ctx, N1, N2, 0x123456, 8472);
    const b = skb.bytes();
    assert.equal(b.length, 50 + inner.length);
    assert.equal(read16(b, 12), 0x0800);
    const ip = 14;
    assert.deepEqual([b[ip], b[ip + 1], read16(b, ip + 2), read16(b, ip + 6), b[ip + 8], b[ip + 9]], [0x45, 0, 36 + inner.length, 0x0000, 64, 17]);
    assert.deepEqual([read32(b, ip + 12), read32(b, ip + 16)], [N1, N2]);
    assert.ok(verifyIpv4HeaderChecksum(b, ip, 20));
    const udp = 34;
    const sport = read16(b, udp);
    assert.ok(sport >= VXLAN_SRC_PORT_MIN && sport < VXLAN_SRC_PORT_MAX, `source port ${sport}`);
    assert.deepEqual([read16(b, udp + 2), read16(b, udp + 4), read16(b, udp + 6)], [8472, 16 + inner.length, 0]);
    assert.deepEqual([...b.subarray(42, 50)], [0x08, 0, 0, 0, 0x12, 0x34, 0x56, 0]);
    assert.deepEqual(b.subarray(50), inner);
    assertChecksums(skb.data, skb.head, skb.tail);
  });

  it("derives the source port from the inner flow: stable per flow, spread across flows", () => {
    const portOf = (sport: number, random: number): number => {
      const { ctx, skb } = parsedCtx(buildFrame({ src: POD_A, dst: POD_C, proto: IPPROTO_TCP, sport, dport: 80 }), random);
      encapVxlan(ctx, N1, N2, 1, 4789);
      return read16(skb.bytes(), 34);
    };
    assert.equal(portOf(40000, 1), portOf(40000, 2));
    const ports = new Set<number>();
    for (let s = 0; s < 64; s++) ports.add(portOf(30000 + s, 1));
    assert.ok(ports.size >= 56, `only ${ports.size} distinct ports for 64 flows`);
  });

  it("decapsulation gives back the inner frame and records the outer source and VNI", () => {
    const inner = buildFrame({ src: POD_A, dst: POD_C, proto: IPPROTO_TCP, payload: 7 });
    const { ctx, skb } = parsedCtx(inner);
    encapVxlan(ctx, N1, N2, 77, 4789);
    const n = node1();
    const arrived = skbOf(skb.bytes().slice());
    n.ctx.begin(arrived, 1, true, 0, 0, 0);
    assert.equal(parsePacket(n.ctx), 0);
    decapVxlan(n.ctx);
    assert.deepEqual(arrived.bytes(), inner);
    assert.deepEqual([arrived.tunnelSrc, arrived.tunnelId], [N1, 77]);
  });
});

describe("IPIP encapsulation", () => {
  it("inherits TTL and DF (ID 0 with DF) and carries the inner datagram unchanged", () => {
    const inner = buildFrame({ src: POD_A, dst: POD_C, proto: IPPROTO_TCP, ttl: 37, df: true, payload: 10 });
    const { ctx, skb } = parsedCtx(inner);
    encapIpip(ctx, N1, N2);
    const b = skb.bytes();
    assert.equal(b.length, 14 + 20 + (inner.length - 14));
    assert.deepEqual([b[14], read16(b, 16), read16(b, 18), read16(b, 20), b[22], b[23]], [0x45, 20 + inner.length - 14, 0, 0x4000, 37, 4]);
    assert.deepEqual([read32(b, 26), read32(b, 30)], [N1, N2]);
    assert.deepEqual(b.subarray(34), inner.subarray(14));
    assertChecksums(skb.data, skb.head, skb.tail);
  });

  it("without DF: outer DF clear and a non-zero identification", () => {
    const { ctx, skb } = parsedCtx(buildFrame({ src: POD_A, dst: POD_C, proto: IPPROTO_TCP, df: false }), 5);
    encapIpip(ctx, N1, N2);
    const b = skb.bytes();
    assert.equal(read16(b, 20), 0);
    assert.notEqual(read16(b, 18), 0);
  });

  it("decapsulation moves the Ethernet header onto the inner datagram", () => {
    const inner = buildFrame({ src: POD_A, dst: POD_C, proto: IPPROTO_TCP });
    const { ctx, skb } = parsedCtx(inner);
    encapIpip(ctx, N1, N2);
    skb.data.set(inner.subarray(0, 12), skb.head); // the FIB step would write MACs; reuse the inner ones
    const n = node1();
    const arrived = skbOf(skb.bytes().slice());
    n.ctx.begin(arrived, 1, true, 0, 0, 0);
    assert.equal(parsePacket(n.ctx), 0);
    decapIpip(n.ctx);
    assert.deepEqual(arrived.bytes(), inner);
    assert.equal(arrived.tunnelSrc, N1);
  });
});

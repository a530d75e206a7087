// GSO header lengths (gsoHeaderLength / gsoNetworkLength / mtuCheckLength): the answers follow the
// packet's headers as encapsulation, decapsulation, trimming and reallocation change them, although
// each skb remembers its last header walk.

import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { gsoHeaderLength, gsoNetworkLength, mtuCheckLength } from "../../../src/skb/gso.js";
import { GsoType, SkBuff } from "../../../src/skb/skbuff.js";
import { write16 } from "../../../src/wire/bytes.js";

const GSO_SIZE = 1000;

/** IPv4 (20 bytes) + TCP with 12 bytes of options + payload, head at the IPv4 header. */
function tcpSuperPacket(payload: number, headroom = 128): SkBuff {
  const b = new Uint8Array(20 + 32 + payload);
  b[0] = 0x45;
  write16(b, 2, b.length);
  write16(b, 6, 0x4000);
  b[8] = 64;
  b[9] = 6;
  b[20 + 12] = 8 << 4;
  const skb = SkBuff.fromBytes(1, b, headroom);
  skb.gsoSize = GSO_SIZE;
  skb.gsoSegs = Math.ceil(payload / GSO_SIZE);
  skb.gsoType = GsoType.TCPV4;
  return skb;
}

/** Puts an outer IPv4 header with protocol IPIP in front (what an IPIP tunnel does). */
function encapIpip(skb: SkBuff): void {
  const at = skb.push(20);
  skb.data[at] = 0x45;
  skb.data[at + 9] = 4;
  skb.gsoType |= GsoType.IPXIP4;
}

describe("GSO header lengths", () => {
  it("measure the largest segment through the headers present now", () => {
    const skb = tcpSuperPacket(3 * GSO_SIZE);
    assert.equal(gsoHeaderLength(skb, skb.head), 52);
    assert.equal(gsoNetworkLength(skb, skb.head), 52 + GSO_SIZE);
    assert.equal(mtuCheckLength(skb, skb.head), 52 + GSO_SIZE);
    assert.equal(gsoNetworkLength(skb, skb.head), 52 + GSO_SIZE, "asked again, the same answer");
  });

  it("follow encapsulation and decapsulation of the same packet", () => {
    const skb = tcpSuperPacket(3 * GSO_SIZE);
    const inner = skb.head;
    assert.equal(gsoNetworkLength(skb, inner), 52 + GSO_SIZE);
    encapIpip(skb);
    assert.equal(gsoHeaderLength(skb, skb.head), 72);
    assert.equal(gsoNetworkLength(skb, skb.head), 72 + GSO_SIZE);
    skb.gsoType = GsoType.TCPV4;
    assert.equal(gsoNetworkLength(skb, skb.head), -1, "without IPXIP4 the outer header is no tunnel to walk through");
    skb.gsoType |= GsoType.IPXIP4;
    assert.equal(gsoNetworkLength(skb, inner), 52 + GSO_SIZE, "the inner headers alone");
    skb.pull(20);
    skb.gsoType = GsoType.TCPV4;
    assert.equal(gsoNetworkLength(skb, skb.head), 52 + GSO_SIZE);
  });

  it("notice a packet trimmed short of its headers, and its bytes moving to a larger buffer", () => {
    const skb = tcpSuperPacket(2 * GSO_SIZE, 0);
    const l3 = skb.head;
    const tail = skb.tail;
    assert.equal(gsoNetworkLength(skb, l3), 52 + GSO_SIZE);
    skb.trim(40);
    assert.equal(gsoNetworkLength(skb, l3), -1, "the TCP header is cut");
    skb.tail = tail;
    assert.equal(gsoNetworkLength(skb, l3), 52 + GSO_SIZE);
    // No headroom: push reallocates, and the same offsets now hold other bytes.
    const before = skb.data;
    encapIpip(skb);
    assert.notEqual(skb.data, before);
    assert.equal(gsoNetworkLength(skb, skb.head), 72 + GSO_SIZE);
    assert.equal(gsoHeaderLength(skb, l3), -1, "the old offset is inside the new headroom");
  });
});

// GSO header lengths (gsoHeaderLength / gsoNetworkLength / mtuCheckLength): the answers follow the
// packet's headers as encapsulation, decapsulation, trimming and reallocation change them, although
// each skb remembers its last header walk.

import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { gsoHeaderLength, gsoNetworkLength, mtuCheckLength } from "../../../src/skb/gso.js";
import { GsoType } from "../../../src/skb/skbuff.js";
import { encapIpip, GSO_SIZE, tcpSuperPacket } from "./gso-fixtures.js";

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

// The once-per-skb IPv4 header checksum check: a header verified (or summed by the output path) is
// remembered for exactly its buffer and offset; failures, other offsets and other buffers are summed
// again, and the remembered answer is the one the full check gives after every checksum-keeping write.
import { test } from "node:test";
import assert from "node:assert/strict";
import { SkBuff } from "../../src/skb/skbuff.js";
import { ipHeaderChecksumGood, sumIpHeader } from "../../src/skb/ip-header-checksum.js";
import { verifyIpv4HeaderChecksum } from "../../src/wire/checksum.js";
import { rewriteIpv4Address, IPV4_DST_FIELD } from "../../src/wire/nat-rewrite.js";
import { decreaseTtl } from "../../src/net/stack/ip-packet.js";
import { udpDgram } from "../net/netfilter/helpers.js";
import { parseIPv4 } from "../../src/util/ip.js";

function packet(): SkBuff {
  return SkBuff.fromBytes(1, udpDgram("10.0.0.1", 4000, "10.0.0.2", 53, new Uint8Array([1, 2, 3, 4, 5, 6, 7, 8])));
}

test("a bad header checksum fails every time: a failure is never remembered", () => {
  const skb = packet();
  skb.data[skb.head + 10]! ^= 0xff;
  assert.equal(ipHeaderChecksumGood(skb, skb.head, 20), false);
  assert.equal(ipHeaderChecksumGood(skb, skb.head, 20), false);
  assert.equal(skb.ipVerifiedAt, -1);
});

test("a pass covers exactly its buffer and offset", () => {
  const skb = packet();
  const ip = skb.head;
  assert.equal(ipHeaderChecksumGood(skb, ip, 20), true);
  skb.data[ip + 8]! ^= 0xff; // a write that does not keep the checksum right (no writer in the model does this)
  assert.equal(ipHeaderChecksumGood(skb, ip, 20), true, "the same header again: known good");
  // A clone's copy is another buffer: summed, and the corruption shows.
  const copy = skb.clone(2);
  assert.equal(ipHeaderChecksumGood(copy, ip, 20), false);
  // A header at another offset (after encapsulation) is summed too.
  skb.data.copyWithin(ip - 20, ip, ip + 20);
  assert.equal(ipHeaderChecksumGood(skb, ip - 20, 20), false);
});


test("the remembered answer is the full check's after TTL decrements and NAT rewrites", () => {
  const skb = packet();
  const ip = skb.head;
  const b = skb.data;
  b[ip + 8] = 64;
  sumIpHeader(skb, ip, 20);
  assert.equal(verifyIpv4HeaderChecksum(b, ip, 20), true, "the output path's sum is right");
  for (let hop = 0; hop < 62; hop++) {
    decreaseTtl(b, ip);
    if (hop % 7 === 0) rewriteIpv4Address(b, ip, IPV4_DST_FIELD, (parseIPv4("192.168.0.0")! + hop * 0x01010101) >>> 0, ip + 20, 17);
    assert.equal(ipHeaderChecksumGood(skb, ip, 20), verifyIpv4HeaderChecksum(b, ip, 20));
    assert.equal(verifyIpv4HeaderChecksum(b, ip, 20), true);
  }
});

test("a new buffer behind the skb (push past the headroom) is summed again", () => {
  const skb = packet();
  assert.equal(ipHeaderChecksumGood(skb, skb.head, 20), true);
  const before = skb.data;
  const ipFromEnd = skb.tail - skb.head;
  skb.push(skb.head + 1); // no room: the bytes move to a new buffer
  assert.notEqual(skb.data, before);
  const ip = skb.tail - ipFromEnd;
  skb.data[ip + 8]! ^= 0xff;
  assert.equal(ipHeaderChecksumGood(skb, ip, 20), false);
});

test("the last two headers are remembered (a tunnel's inner and outer); a third evicts the older", () => {
  const skb = packet();
  const inner = skb.head;
  const b = skb.data;
  assert.equal(ipHeaderChecksumGood(skb, inner, 20), true);
  // The outer header of an encapsulation, in front of the inner one (a copy: also a good header).
  const outer = skb.push(20);
  b.copyWithin(outer, inner, inner + 20);
  sumIpHeader(skb, outer, 20);
  b[inner + 8]! ^= 0xff;
  b[outer + 8]! ^= 0xff;
  assert.equal(ipHeaderChecksumGood(skb, inner, 20), true, "the inner header is still known after the outer one");
  assert.equal(ipHeaderChecksumGood(skb, outer, 20), true, "and the outer one");
  const third = skb.push(20);
  b.copyWithin(third, inner, inner + 20);
  b[third + 8]! ^= 0xff; // undo the corruption copied from the inner header
  assert.equal(ipHeaderChecksumGood(skb, third, 20), true);
  assert.equal(ipHeaderChecksumGood(skb, inner, 20), false, "the evicted header is summed again, and the corruption shows");
  assert.equal(ipHeaderChecksumGood(skb, outer, 20), true, "the newer of the two stays");
});

// The once-per-skb L4 checksum check: a pass is remembered for exactly the bytes it covered in the
// skb's own buffer; failures, other ranges, other buffers and clones are summed again.
import { test } from "node:test";
import assert from "node:assert/strict";
import { SkBuff } from "../../src/skb/skbuff.js";
import { l4ChecksumGood } from "../../src/skb/l4-checksum.js";
import { udpDgram } from "../net/netfilter/helpers.js";
import { parseIPv4 } from "../../src/util/ip.js";

const SRC = parseIPv4("10.0.0.1")!;
const DST = parseIPv4("10.0.0.2")!;

function datagram(): { skb: SkBuff; l4: number; len: number } {
  const bytes = udpDgram("10.0.0.1", 4000, "10.0.0.2", 53, new Uint8Array([1, 2, 3, 4, 5, 6, 7, 8]));
  const skb = SkBuff.fromBytes(1, bytes);
  return { skb, l4: skb.head + 20, len: bytes.length - 20 };
}

test("a bad checksum fails every time: a failure is never remembered", () => {
  const { skb, l4, len } = datagram();
  skb.data[l4 + 9]! ^= 0xff; // a payload byte
  assert.equal(l4ChecksumGood(skb, skb.data, l4, len, 17, SRC, DST), false);
  assert.equal(l4ChecksumGood(skb, skb.data, l4, len, 17, SRC, DST), false);
  assert.equal(skb.l4VerifiedAt, -1);
});

test("a pass covers exactly its buffer, offset and length", () => {
  const { skb, l4, len } = datagram();
  assert.equal(l4ChecksumGood(skb, skb.data, l4, len, 17, SRC, DST), true);
  skb.data[l4 + 9]! ^= 0xff;
  // The same bytes again: known good (the kernel's CHECKSUM_UNNECESSARY; writers keep sums right).
  assert.equal(l4ChecksumGood(skb, skb.data, l4, len, 17, SRC, DST), true);
  // Another length or another buffer (a clone's copy) is summed, and the corruption shows.
  assert.equal(l4ChecksumGood(skb, skb.data, l4, len - 1, 17, SRC, DST), false);
  const copy = skb.clone(2);
  assert.equal(l4ChecksumGood(copy, copy.data, l4, len, 17, SRC, DST), false);
});

test("bytes other than the skb's own buffer are checked but not remembered", () => {
  const { skb, l4, len } = datagram();
  const other = skb.data.slice();
  assert.equal(l4ChecksumGood(skb, other, l4, len, 17, SRC, DST), true);
  assert.equal(skb.l4VerifiedAt, -1);
  other[l4 + 9]! ^= 0xff;
  assert.equal(l4ChecksumGood(skb, other, l4, len, 17, SRC, DST), false);
});

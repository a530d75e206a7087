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

test("the last two passes are remembered (a tunnel's inner and outer headers); a third evicts the older", () => {
  const { skb, l4, len } = datagram();
  const b = skb.data;
  // Two more good datagrams in the same buffer at other offsets stand for the outer header and a third range.
  const other = udpDgram("10.0.0.1", 4000, "10.0.0.2", 53, new Uint8Array([9, 9, 9, 9]));
  const at2 = l4 + len + 16;
  const at3 = at2 + other.length + 16;
  const grown = new Uint8Array(at3 + other.length);
  grown.set(b);
  grown.set(other, at2);
  grown.set(other, at3);
  skb.data = grown;
  const l4b = at2 + 20;
  const l4c = at3 + 20;
  const lenb = other.length - 20;
  assert.equal(l4ChecksumGood(skb, grown, l4, len, 17, SRC, DST), true); // inner
  assert.equal(l4ChecksumGood(skb, grown, l4b, lenb, 17, SRC, DST), true); // outer
  grown[l4 + 9]! ^= 0xff;
  grown[l4b + 9]! ^= 0xff;
  assert.equal(l4ChecksumGood(skb, grown, l4, len, 17, SRC, DST), true, "the inner pass is still known after the outer one");
  assert.equal(l4ChecksumGood(skb, grown, l4b, lenb, 17, SRC, DST), true, "and the outer one");
  assert.equal(l4ChecksumGood(skb, grown, l4c, lenb, 17, SRC, DST), true); // a third range: the older pass goes
  assert.equal(l4ChecksumGood(skb, grown, l4, len, 17, SRC, DST), false, "the evicted pass is summed again, and the corruption shows");
});

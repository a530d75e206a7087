// The walk memo's store: two records per hash set (a third key evicts the older), a key's new record
// replaces its old one in place, and a record holds only for the table generation it was made at.

import { test } from "node:test";
import assert from "node:assert/strict";
import { WalkKey, WalkMemo, WalkRecord, WalkRecorder } from "../../../src/net/netfilter/table/walk-memo.js";

function key(src: number): WalkKey {
  const k = new WalkKey();
  k.src = src;
  k.dst = 0x0a000001;
  k.ports = (1000 << 16) | 80;
  k.bits = 2 | (6 << 3);
  return k;
}

const record = (k: WalkKey, generation: number, mark: number): WalkRecord => new WalkRecord(k, generation, true, new WalkRecorder(), 3, 4, mark);

test("a set holds two keys; a third evicts the older one", () => {
  const memo = new WalkMemo();
  const hash = 42;
  const [a, b, c] = [key(1), key(2), key(3)];
  memo.store(a, hash, record(a, 7, 1));
  memo.store(b, hash, record(b, 7, 2));
  assert.equal(memo.find(a, hash, 7)?.markOut, 1);
  assert.equal(memo.find(b, hash, 7)?.markOut, 2);
  memo.store(c, hash, record(c, 7, 3));
  assert.equal(memo.find(c, hash, 7)?.markOut, 3);
  assert.equal(memo.find(b, hash, 7)?.markOut, 2, "the newer of the two stays");
  assert.equal(memo.find(a, hash, 7), null, "the older is evicted");
});

test("a key's new record replaces its own, in either slot, without evicting the other key", () => {
  const memo = new WalkMemo();
  const hash = 9;
  const [a, b] = [key(1), key(2)];
  memo.store(a, hash, record(a, 1, 1));
  memo.store(b, hash, record(b, 1, 2));
  memo.store(a, hash, record(a, 2, 10));
  memo.store(b, hash, record(b, 2, 20));
  assert.equal(memo.find(a, hash, 2)?.markOut, 10);
  assert.equal(memo.find(b, hash, 2)?.markOut, 20);
});

test("a record is found only for its key and its table generation", () => {
  const memo = new WalkMemo();
  const a = key(1);
  memo.store(a, a.hash(), record(a, 5, 1));
  assert.notEqual(memo.find(a, a.hash(), 5), null);
  assert.equal(memo.find(a, a.hash(), 6), null, "the table was edited since");
  const other = key(1);
  other.mark = 0x10000;
  assert.equal(memo.find(other, a.hash(), 5), null, "same hash set, another mark");
  assert.notEqual(key(1).hash(), key(2).hash());
});

test("findAfter answers as find does: through the previous walk's link, and after the table was edited", () => {
  const memo = new WalkMemo();
  const first = new WalkMemo();
  const [a, b] = [key(1), key(2)];
  const prev = record(a, 1, 0);
  first.store(a, a.hash(), prev);
  memo.store(b, b.hash(), record(b, 3, 7));
  const found = memo.findAfter(prev, b, 3);
  assert.equal(found, memo.find(b, b.hash(), 3));
  assert.equal(prev.next, found, "the lookup linked the previous walk to it");
  assert.equal(memo.findAfter(prev, b, 3), found, "the link answers the next time");
  assert.equal(memo.findAfter(prev, b, 4), null, "an edit (new generation) is not answered by the link");
  assert.equal(memo.findAfter(prev, a, 3), null, "another key is not answered by the link");
  assert.equal(first.findAfter(prev, b, 3), null, "a link into another table's memo is not taken");
  assert.equal(memo.findAfter(null, b, 3), found);
});

test("a linked record evicted from its set still answers (same key and generation as any record find could give)", () => {
  const memo = new WalkMemo();
  const hash = 5;
  const [a, b, c] = [key(1), key(2), key(3)];
  const prev = record(key(9), 1, 0);
  const linked = record(a, 2, 1);
  memo.store(a, hash, linked);
  prev.next = linked;
  memo.store(b, hash, record(b, 2, 2));
  memo.store(c, hash, record(c, 2, 3));
  assert.equal(memo.find(a, hash, 2), null, "evicted from the sets");
  assert.equal(memo.findAfter(prev, a, 2), linked);
});

import { test } from "node:test";
import assert from "node:assert/strict";
import { CT_VALUE_WORDS, ConntrackMap, CtTupleFlag, CtValue, readU64 } from "../../../datapath/maps/index.js";
import { parseIPv4 } from "../../../src/util/ip.js";

const ip = (s: string): number => parseIPv4(s)!;
const A = ip("10.244.1.7");
const B = ip("10.96.0.10");
const TCP = 6;

test("create, look up, count traffic and remember the original tuple", () => {
  const ct = new ConntrackMap(16);
  const slot = ct.createV4(A, B, 40000, 53, TCP, CtTupleFlag.OUT, 1_000, 21_600_000_000_000);
  assert.ok(slot >= 0);
  assert.equal(ct.created, true);
  assert.equal(ct.createV4(A, B, 40000, 53, TCP, CtTupleFlag.OUT, 9_999, 1), slot, "existing entry is returned");
  assert.equal(ct.created, false);
  assert.equal(ct.expiresAt(slot), 21_600_000_001_000, "a 6-hour lifetime in ns needs more than 32 bits");
  assert.equal(ct.lookupV4(A, B, 40000, 53, TCP, CtTupleFlag.OUT), slot);
  assert.equal(ct.lookupV4(A, B, 40000, 53, TCP, CtTupleFlag.IN), -1, "tuple flags are part of the key");
  assert.equal(ct.lookupV4(B, A, 53, 40000, TCP, CtTupleFlag.OUT), -1);
  ct.addTx(slot, 60);
  ct.addTx(slot, 1500);
  ct.addRx(slot, 90);
  const v = ct.values;
  const base = slot * CT_VALUE_WORDS;
  assert.equal(readU64(v, base + CtValue.TX_PACKETS), 2);
  assert.equal(readU64(v, base + CtValue.TX_BYTES), 1560);
  assert.equal(readU64(v, base + CtValue.RX_PACKETS), 1);
  assert.equal(readU64(v, base + CtValue.RX_BYTES), 90);
  assert.equal(readU64(v, base + CtValue.CREATED_NS), 1_000);
  assert.equal(v[base + CtValue.ORIG_DADDR], B);
  assert.equal(v[base + CtValue.ORIG_PORTS], 40000 * 65536 + 53);
});

test("gc removes expired entries; a full table evicts the least recently used", () => {
  const ct = new ConntrackMap(3);
  ct.createV4(A, B, 1, 80, TCP, 0, 0, 100);
  ct.createV4(A, B, 2, 80, TCP, 0, 0, 500);
  ct.createV4(A, B, 3, 80, TCP, 0, 0, 500);
  assert.equal(ct.gc(100), 1, "expiry is inclusive");
  assert.equal(ct.lookupV4(A, B, 1, 80, TCP, 0), -1);
  ct.createV4(A, B, 4, 80, TCP, 0, 0, 500);
  ct.lookupV4(A, B, 2, 80, TCP, 0); // 3 is now least recently used
  ct.createV4(A, B, 5, 80, TCP, 0, 0, 500);
  assert.equal(ct.lookupV4(A, B, 3, 80, TCP, 0), -1);
  assert.equal(ct.stats.evictions, 1);
  assert.equal(ct.size, 3);
});

test("noPrealloc storage grows on demand with the same answers, slots and evictions", () => {
  const pre = new ConntrackMap(300);
  const lazy = new ConntrackMap(300, { noPrealloc: true });
  assert.ok(lazy.values.length < pre.values.length, "starts small");
  for (let i = 0; i < 1000; i++) {
    const sport = 1000 + ((i * 7919) % 450);
    if (i % 5 === 4) {
      assert.equal(lazy.lookupV4(A, B, sport, 80, TCP, 0), pre.lookupV4(A, B, sport, 80, TCP, 0));
      continue;
    }
    const a = pre.createV4(A, B, sport, 80, TCP, 0, i, 1000);
    const b = lazy.createV4(A, B, sport, 80, TCP, 0, i, 1000);
    assert.equal(b, a);
    assert.equal(lazy.created, pre.created);
    assert.equal(lazy.expiresAt(b), pre.expiresAt(a));
  }
  assert.equal(lazy.size, 300);
  assert.equal(lazy.stats.evictions, pre.stats.evictions);
  assert.equal(lazy.values.length, pre.values.length, "grown to maxEntries");
});

test("insertV4 leaves the times to the caller; byte counters carry past 2^32", () => {
  const ct = new ConntrackMap(4);
  const slot = ct.insertV4(A, B, 40000, 443, TCP, CtTupleFlag.OUT);
  assert.equal(ct.created, true);
  assert.equal(ct.expiresAt(slot), 0);
  assert.equal(ct.values[slot * CT_VALUE_WORDS + CtValue.ORIG_PORTS], 40000 * 65536 + 443);
  const base = slot * CT_VALUE_WORDS;
  ct.values[base + CtValue.TX_BYTES] = 0xffffff00;
  ct.addTx(slot, 0x200);
  assert.equal(readU64(ct.values, base + CtValue.TX_BYTES), 0x100000100);
  assert.equal(readU64(ct.values, base + CtValue.TX_PACKETS), 1);
});

test("value layout words are distinct and fit in CT_VALUE_WORDS", () => {
  const wide = new Set<number>([CtValue.EXPIRES_NS, CtValue.TX_PACKETS, CtValue.TX_BYTES, CtValue.RX_PACKETS, CtValue.RX_BYTES, CtValue.CREATED_NS]);
  const used = new Set<number>();
  for (const word of Object.values(CtValue)) {
    for (const w of wide.has(word) ? [word, word + 1] : [word]) {
      assert.ok(!used.has(w), `word ${w} used twice`);
      assert.ok(w < CT_VALUE_WORDS);
      used.add(w);
    }
  }
});

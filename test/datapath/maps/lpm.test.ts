import { test } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import { LpmTrieMap, MapError } from "../../../datapath/maps/index.js";
import { ipv4Mask, parseIPv4, parseIPv6 } from "../../../src/util/ip.js";

const ip = (s: string): number => parseIPv4(s)!;

test("longest prefix wins, /0 is the default and /32 is a host", () => {
  const map = new LpmTrieMap({ keyBits: 32, valueWords: 1, maxEntries: 16 });
  const put = (cidr: string, v: number) => {
    const [a, l] = cidr.split("/");
    const slot = map.upsert32(ip(a!), Number(l));
    assert.ok(slot >= 0);
    map.values[slot] = v;
  };
  put("0.0.0.0/0", 2);
  put("10.0.0.0/8", 8);
  put("10.1.0.0/16", 16);
  put("10.1.2.0/23", 23);
  put("10.1.2.3/32", 32);
  const at = (a: string) => {
    const slot = map.lookup32(ip(a));
    return [map.values[slot], map.lastPrefixLen];
  };
  assert.deepEqual(at("10.1.2.3"), [32, 32]);
  assert.deepEqual(at("10.1.3.200"), [23, 23]);
  assert.deepEqual(at("10.1.4.1"), [16, 16]);
  assert.deepEqual(at("10.200.0.1"), [8, 8]);
  assert.deepEqual(at("192.168.0.1"), [2, 0]);
  assert.equal(map.delete32(ip("0.0.0.0"), 0), true);
  assert.equal(map.lookup32(ip("192.168.0.1")), -1);
  assert.equal(map.lastPrefixLen, -1);
  assert.equal(map.delete32(ip("10.1.2.0"), 23), true);
  assert.deepEqual(at("10.1.3.200"), [16, 16], "after deleting /23 its addresses fall back to /16");
});

test("host bits of a prefix are ignored; bad lengths are INVALID; a full map is FULL", () => {
  const map = new LpmTrieMap({ keyBits: 32, valueWords: 1, maxEntries: 2 });
  const a = map.upsert32(ip("10.1.2.3"), 8);
  assert.equal(map.get32(ip("10.0.0.0"), 8), a);
  assert.equal(map.upsert32(ip("10.9.9.9"), 8), a, "same prefix");
  assert.equal(map.addressWordOf(a, 0), ip("10.0.0.0"));
  assert.equal(map.upsert32(0, 33), -MapError.INVALID);
  assert.equal(map.upsert32(0, -1), -MapError.INVALID);
  assert.ok(map.upsert32(ip("11.0.0.0"), 8) >= 0);
  assert.equal(map.upsert32(ip("12.0.0.0"), 8), -MapError.FULL);
  assert.equal(map.stats.full, 1);
});

test("IPv6 keys: longest of /0, /32, /64, /128", () => {
  const map = new LpmTrieMap({ keyBits: 128, valueWords: 1, maxEntries: 8 });
  const load = (s: string) => {
    const b = parseIPv6(s)!;
    for (let i = 0; i < 4; i++) map.key[i] = ((b[4 * i]! << 24) | (b[4 * i + 1]! << 16) | (b[4 * i + 2]! << 8) | b[4 * i + 3]!) >>> 0;
  };
  for (const [s, len] of [["::", 0], ["2001:db8::", 32], ["2001:db8:0:1::", 64], ["2001:db8:0:1::5", 128]] as const) {
    load(s);
    map.values[map.upsert(len)] = len;
  }
  const at = (s: string) => {
    load(s);
    return map.values[map.lookup()];
  };
  assert.equal(at("2001:db8:0:1::5"), 128);
  assert.equal(at("2001:db8:0:1::6"), 64);
  assert.equal(at("2001:db8:ffff::1"), 32);
  assert.equal(at("fe80::1"), 0);
});

/** Brute-force reference: the longest stored prefix containing the address. */
function refLongest(prefixes: Map<string, { addr: number; len: number; value: number }>, addr: number): number {
  let best = -1;
  let value = -1;
  for (const p of prefixes.values()) {
    if (((addr & ipv4Mask(p.len)) >>> 0) === p.addr && p.len > best) {
      best = p.len;
      value = p.value;
    }
  }
  return value;
}

test("IPv4 agrees with a brute-force longest match over random inserts, deletes and lookups", () => {
  // Addresses from a few clusters so that prefixes nest and overlap often.
  const addrArb = fc
    .tuple(fc.constantFrom(0x0a000000, 0x0a010000, 0xc0a80000, 0x00000000, 0xffffff00), fc.integer({ min: 0, max: 0xffff }))
    .map(([base, low]) => (base | low) >>> 0);
  const lenArb = fc.oneof(fc.constantFrom(0, 1, 8, 16, 24, 31, 32), fc.integer({ min: 0, max: 32 }));
  const op = fc.record({ kind: fc.constantFrom("upsert", "upsert", "delete", "lookup", "lookup"), addr: addrArb, len: lenArb });
  fc.assert(
    fc.property(fc.array(op, { minLength: 300, maxLength: 2500 }), (ops) => {
      const map = new LpmTrieMap({ keyBits: 32, valueWords: 1, maxEntries: 4096, noPrealloc: true });
      const ref = new Map<string, { addr: number; len: number; value: number }>();
      let n = 0;
      for (const { kind, addr, len } of ops) {
        const masked = (addr & ipv4Mask(len)) >>> 0;
        const id = `${masked}/${len}`;
        if (kind === "upsert") {
          const slot = map.upsert32(addr, len);
          assert.ok(slot >= 0);
          const value = ref.get(id)?.value ?? ++n;
          map.values[slot] = value;
          ref.set(id, { addr: masked, len, value });
        } else if (kind === "delete") {
          assert.equal(map.delete32(addr, len), ref.delete(id));
        } else {
          const slot = map.lookup32(addr);
          const expected = refLongest(ref, addr);
          assert.equal(slot < 0 ? -1 : map.values[slot], expected, `lookup ${addr.toString(16)}`);
        }
        assert.equal(map.size, ref.size);
      }
      // Deleting everything frees every trie node but the root.
      for (const p of [...ref.values()]) assert.equal(map.delete32(p.addr, p.len), true);
      assert.equal(map.nodeCount, 1);
    }),
    { seed: 777, numRuns: 60 },
  );
});

test("IPv6 agrees with a brute-force longest match (bigint reference)", () => {
  const word = fc.constantFrom(0x20010db8, 0x20010db9, 0, 0xffffffff, 0x12345678);
  const addrArb = fc.tuple(word, word, fc.constantFrom(0, 1, 0x80000000), fc.integer({ min: 0, max: 7 }));
  const lenArb = fc.oneof(fc.constantFrom(0, 32, 48, 64, 96, 127, 128), fc.integer({ min: 0, max: 128 }));
  const op = fc.record({ kind: fc.constantFrom("upsert", "delete", "lookup", "lookup"), addr: addrArb, len: lenArb });
  const big = (w: readonly number[]) => w.reduce((acc, x) => (acc << 32n) | BigInt(x >>> 0), 0n);
  const maskOf = (len: number) => (len === 0 ? 0n : ((1n << BigInt(len)) - 1n) << BigInt(128 - len));
  fc.assert(
    fc.property(fc.array(op, { minLength: 200, maxLength: 1500 }), (ops) => {
      const map = new LpmTrieMap({ keyBits: 128, valueWords: 1, maxEntries: 4096, noPrealloc: true });
      const ref = new Map<string, { addr: bigint; len: number; value: number }>();
      let n = 0;
      for (const { kind, addr, len } of ops) {
        map.key.set(addr.map((x) => x >>> 0));
        const masked = big(addr) & maskOf(len);
        const id = `${masked}/${len}`;
        if (kind === "upsert") {
          const slot = map.upsert(len);
          const value = ref.get(id)?.value ?? ++n;
          map.values[slot] = value;
          ref.set(id, { addr: masked, len, value });
        } else if (kind === "delete") {
          assert.equal(map.delete(len), ref.delete(id));
        } else {
          let best = -1;
          let value = -1;
          for (const p of ref.values()) {
            if ((big(addr) & maskOf(p.len)) === p.addr && p.len > best) {
              best = p.len;
              value = p.value;
            }
          }
          const slot = map.lookup();
          assert.equal(slot < 0 ? -1 : map.values[slot], value);
          assert.equal(map.lastPrefixLen, best);
        }
      }
    }),
    { seed: 9090, numRuns: 40 },
  );
});

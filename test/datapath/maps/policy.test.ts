import { test } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import { Direction, MapError, PolicyMap, PolicyVerdict } from "../../../datapath/maps/index.js";

const { INGRESS, EGRESS } = Direction;
const { MISS, ALLOW, DENY } = PolicyVerdict;
const TCP = 6;
const UDP = 17;

test("exact entries, identity/protocol/port wildcards and ranges", () => {
  const map = new PolicyMap(64);
  assert.equal(map.upsert(INGRESS, 300, TCP, 80, 80, ALLOW, 1), 0);
  assert.equal(map.upsert(INGRESS, 0, UDP, 53, 53, ALLOW, 2), 0); // any peer, UDP 53
  assert.equal(map.upsert(INGRESS, 400, 0, 0, 65535, ALLOW, 3), 0); // peer 400, everything
  assert.equal(map.upsert(EGRESS, 300, TCP, 8000, 8099, ALLOW, 4), 0);
  assert.equal(map.lookup(INGRESS, 300, TCP, 80), ALLOW);
  assert.equal(map.lastRuleRef, 1);
  assert.equal(map.lookup(INGRESS, 300, TCP, 81), MISS);
  assert.equal(map.lastRuleRef, 0);
  assert.equal(map.lookup(INGRESS, 300, UDP, 80), MISS);
  assert.equal(map.lookup(EGRESS, 300, TCP, 80), MISS, "directions are separate");
  assert.equal(map.lookup(INGRESS, 12345, UDP, 53), ALLOW);
  assert.equal(map.lastRuleRef, 2);
  assert.equal(map.lookup(INGRESS, 400, 132, 9), ALLOW);
  assert.equal(map.lastRuleRef, 3);
  for (const port of [7999, 8000, 8050, 8099, 8100]) {
    assert.equal(map.lookup(EGRESS, 300, TCP, port), port >= 8000 && port <= 8099 ? ALLOW : MISS, `port ${port}`);
  }
  assert.equal(map.size, 4);
});

test("DENY wins over ALLOW whatever is more specific", () => {
  const map = new PolicyMap(64);
  map.upsert(INGRESS, 300, TCP, 80, 80, ALLOW, 10);
  map.upsert(INGRESS, 0, 0, 0, 65535, DENY, 20); // deny everything from anyone
  assert.equal(map.lookup(INGRESS, 300, TCP, 80), DENY);
  assert.equal(map.lastRuleRef, 20);
  map.delete(INGRESS, 0, 0, 0, 65535);
  assert.equal(map.lookup(INGRESS, 300, TCP, 80), ALLOW);
  assert.equal(map.lastRuleRef, 10);
});

test("overlapping ranges share port blocks: deleting one keeps the other", () => {
  const map = new PolicyMap(64);
  map.upsert(INGRESS, 300, TCP, 0, 3, ALLOW, 7); // block 0/14
  map.upsert(INGRESS, 300, TCP, 0, 5, ALLOW, 5); // blocks 0/14 + 4/15
  assert.equal(map.blockCount, 2);
  assert.equal(map.lookup(INGRESS, 300, TCP, 2), ALLOW);
  assert.equal(map.lastRuleRef, 5, "smallest ruleRef among entries sharing the block");
  map.delete(INGRESS, 300, TCP, 0, 5);
  assert.equal(map.lookup(INGRESS, 300, TCP, 2), ALLOW);
  assert.equal(map.lastRuleRef, 7);
  assert.equal(map.lookup(INGRESS, 300, TCP, 4), MISS);
  assert.equal(map.blockCount, 1);
  // [0, 7] covers block 0/14 only through its own block 0/13, so it does not own 0/14.
  map.upsert(INGRESS, 300, TCP, 0, 5, ALLOW, 5);
  map.upsert(INGRESS, 300, TCP, 0, 7, ALLOW, 1);
  map.delete(INGRESS, 300, TCP, 0, 5);
  assert.equal(map.lookup(INGRESS, 300, TCP, 2), ALLOW);
  assert.equal(map.lastRuleRef, 7, "the longer block 0/14 is probed first; its only owner is [0, 3]");
  assert.equal(map.lookup(INGRESS, 300, TCP, 6), ALLOW);
  assert.equal(map.lastRuleRef, 1);
});

test("upsert replaces verdict and ruleRef of the same key; bad input is INVALID; full is FULL", () => {
  const map = new PolicyMap(2);
  assert.equal(map.upsert(INGRESS, 300, TCP, 80, 80, ALLOW, 1), 0);
  assert.equal(map.upsert(INGRESS, 300, TCP, 80, 80, DENY, 2), 0);
  assert.equal(map.size, 1);
  assert.equal(map.lookup(INGRESS, 300, TCP, 80), DENY);
  assert.equal(map.lastRuleRef, 2);
  assert.equal(map.upsert(INGRESS, 300, TCP, 81, 80, ALLOW, 1), MapError.INVALID);
  assert.equal(map.upsert(INGRESS, 300, TCP, 80, 65536, ALLOW, 1), MapError.INVALID);
  assert.equal(map.upsert(2, 300, TCP, 80, 80, ALLOW, 1), MapError.INVALID);
  assert.equal(map.upsert(INGRESS, 300, 256, 80, 80, ALLOW, 1), MapError.INVALID);
  assert.equal(map.upsert(INGRESS, 300, TCP, 80, 80, MISS, 1), MapError.INVALID);
  assert.equal(map.upsert(INGRESS, -1, TCP, 80, 80, ALLOW, 1), MapError.INVALID);
  // [1, 6] needs blocks 1/16, 2/15, 4/15, 6/16: more keys than the map holds.
  assert.equal(map.upsert(INGRESS, 300, TCP, 1, 6, ALLOW, 3), MapError.FULL);
  assert.equal(map.stats.full, 1);
  assert.equal(map.size, 1, "a refused upsert changes nothing");
  assert.equal(map.lookup(INGRESS, 300, TCP, 2), MISS);
});

test("lookup cost does not grow with the number of entries", () => {
  const probesPerLookup = (entries: number): number => {
    const map = new PolicyMap(entries * 2 + 8);
    for (let i = 0; i < entries; i++) map.upsert(INGRESS, 256 + i, TCP, 1000 + (i % 50), 1000 + (i % 50), ALLOW, i + 1);
    map.upsert(INGRESS, 0, UDP, 53, 53, ALLOW, 99999);
    map.upsert(INGRESS, 0, 0, 0, 65535, DENY, 99998);
    map.delete(INGRESS, 0, 0, 0, 65535);
    const before = map.probes;
    let lookups = 0;
    for (let q = 0; q < 500; q++) {
      map.lookup(INGRESS, 100000 + q, TCP, q); // an identity with no entries: every present length is probed
      lookups++;
    }
    return (map.probes - before) / lookups;
  };
  const small = probesPerLookup(10);
  assert.equal(probesPerLookup(10000), small);
  assert.ok(small <= 2, `probes per lookup ${small}`);
});

test("an identity with one single-block entry per direction costs one probe; more entries still answer right", () => {
  const map = new PolicyMap(64);
  map.upsert(INGRESS, 300, TCP, 80, 80, ALLOW, 1);
  map.upsert(EGRESS, 300, UDP, 52, 55, DENY, 2); // [52, 55] is one aligned block
  const probes = () => {
    const before = map.probes;
    return (verdict: number) => ({ verdict, probes: map.probes - before });
  };
  let p = probes();
  assert.deepEqual(p(map.lookup(INGRESS, 300, TCP, 80)), { verdict: ALLOW, probes: 1 });
  p = probes();
  assert.deepEqual(p(map.lookup(EGRESS, 300, UDP, 54)), { verdict: DENY, probes: 1 });
  assert.equal(map.lastRuleRef, 2);
  assert.equal(map.lookup(INGRESS, 300, UDP, 80), MISS, "the entry's protocol still counts");
  assert.equal(map.lookup(EGRESS, 300, UDP, 56), MISS);
  // A second entry for the identity and direction: per-length probes from then on, same answers.
  map.upsert(INGRESS, 300, TCP, 8080, 8090, ALLOW, 3);
  assert.equal(map.lookup(INGRESS, 300, TCP, 80), ALLOW);
  assert.equal(map.lastRuleRef, 1);
  assert.equal(map.lookup(INGRESS, 300, TCP, 8085), ALLOW);
  assert.equal(map.lastRuleRef, 3);
  map.delete(INGRESS, 300, TCP, 8080, 8090);
  map.delete(INGRESS, 300, TCP, 80, 80);
  assert.equal(map.lookup(INGRESS, 300, TCP, 80), MISS);
  assert.equal(map.blockCount, 1);
  assert.deepEqual(map.dump(), [{ direction: EGRESS, identity: 300, proto: UDP, portLo: 52, portHi: 55, verdict: DENY, ruleRef: 2 }]);
});

test("reserve() changes capacity only, not answers; identities above 2^31 round-trip", () => {
  const fill = (map: PolicyMap) => {
    for (let i = 0; i < 200; i++) map.upsert(i % 2, 0xfffffff0 - (i % 40), i % 3 === 0 ? 0 : TCP, 1000 + i, 1000 + i + (i % 5), i % 11 === 0 ? DENY : ALLOW, i);
  };
  const plain = new PolicyMap(4096);
  const reserved = new PolicyMap(4096);
  reserved.reserve(200, 600);
  fill(plain);
  fill(reserved);
  for (let q = 0; q < 3000; q++) {
    const args = [q % 2, 0xfffffff0 - (q % 45), q % 4 === 0 ? UDP : TCP, 990 + (q % 230)] as const;
    assert.equal(reserved.lookup(...args), plain.lookup(...args));
    assert.equal(reserved.lastRuleRef, plain.lastRuleRef);
  }
  assert.ok(plain.dump().every((e) => e.identity > 2 ** 31 && e.identity <= 0xfffffff0));
});

// ---- Brute-force evaluator, written from the contract, independent of the block encoding ----

interface RefEntry {
  dir: number;
  identity: number;
  proto: number;
  lo: number;
  hi: number;
  verdict: number;
  ruleRef: number;
}

/** Prefix length of the largest aligned block containing `port` that fits inside [lo, hi]. */
function blockLenAt(e: RefEntry, port: number): number {
  for (let len = 0; len <= 16; len++) {
    const size = 2 ** (16 - len);
    const start = Math.floor(port / size) * size;
    if (start >= e.lo && start + size - 1 <= e.hi) return len;
  }
  throw new Error("port outside range");
}

function refLookup(entries: Iterable<RefEntry>, dir: number, identity: number, proto: number, port: number) {
  const matching = [...entries].filter(
    (e) =>
      e.dir === dir &&
      (e.identity === 0 || e.identity === identity) &&
      (e.proto === 0 || e.proto === proto) &&
      port >= e.lo &&
      port <= e.hi,
  );
  const verdict = matching.some((e) => e.verdict === DENY) ? DENY : matching.length > 0 ? ALLOW : MISS;
  if (verdict === MISS) return { verdict, ruleRef: 0 };
  const rank = (e: RefEntry) => [(e.identity === 0 ? 2 : 0) + (e.proto === 0 ? 1 : 0), -blockLenAt(e, port), e.ruleRef];
  const best = matching
    .filter((e) => e.verdict === verdict)
    .sort((a, b) => {
      const ra = rank(a);
      const rb = rank(b);
      for (let i = 0; i < 3; i++) if (ra[i] !== rb[i]) return ra[i]! - rb[i]!;
      return 0;
    })[0]!;
  return { verdict, ruleRef: best.ruleRef };
}

/** Map keys the entries need: segment-tree descent over [0, 65535] per entry, deduplicated per key class. */
function refBlockKeys(entries: Iterable<RefEntry>): number {
  const keys = new Set<string>();
  for (const e of entries) {
    const visit = (start: number, size: number, len: number) => {
      const end = start + size - 1;
      if (end < e.lo || start > e.hi) return;
      if (start >= e.lo && end <= e.hi) {
        keys.add(`${e.dir}/${e.verdict === DENY}/${e.identity}/${e.proto}/${start}/${len}`);
        return;
      }
      visit(start, size / 2, len + 1);
      visit(start + size / 2, size / 2, len + 1);
    };
    visit(0, 65536, 0);
  }
  return keys.size;
}

test("agrees with a brute-force evaluator: wildcards, ranges, DENY precedence, ruleRef, capacity", () => {
  const portRange = fc.oneof(
    fc.tuple(fc.integer({ min: 0, max: 15 }), fc.integer({ min: 0, max: 15 })).map(([a, b]) => [Math.min(a, b), Math.max(a, b)] as const),
    fc.integer({ min: 75, max: 90 }).map((p) => [p, p] as const),
    fc.tuple(fc.integer({ min: 70, max: 100 }), fc.integer({ min: 0, max: 40 })).map(([a, w]) => [a, Math.min(65535, a + w)] as const),
    fc.tuple(fc.integer({ min: 0, max: 65535 }), fc.integer({ min: 0, max: 65535 })).map(([a, b]) => [Math.min(a, b), Math.max(a, b)] as const),
    fc.constant([0, 65535] as const),
  );
  const entryKey = fc.record({
    dir: fc.constantFrom(INGRESS, EGRESS),
    identity: fc.constantFrom(0, 256, 257, 0x1000001),
    proto: fc.constantFrom(0, TCP, UDP),
    range: portRange,
  });
  const op = fc.oneof(
    { weight: 4, arbitrary: fc.record({ kind: fc.constant("upsert" as const), key: entryKey, verdict: fc.constantFrom(ALLOW, ALLOW, DENY), ruleRef: fc.integer({ min: 1, max: 6 }) }) },
    { weight: 2, arbitrary: fc.record({ kind: fc.constant("delete" as const), key: entryKey }) },
    { weight: 5, arbitrary: fc.record({ kind: fc.constant("lookup" as const), dir: fc.constantFrom(INGRESS, EGRESS), identity: fc.constantFrom(0, 256, 257, 258, 0x1000001), proto: fc.constantFrom(0, 1, TCP, UDP), port: fc.oneof(fc.integer({ min: 0, max: 15 }), fc.integer({ min: 65, max: 105 }), fc.integer({ min: 0, max: 65535 }), fc.constantFrom(0, 65535)) }) },
  );
  fc.assert(
    fc.property(fc.array(op, { minLength: 200, maxLength: 1500 }), fc.constantFrom(24, 64, 4096), (ops, maxEntries) => {
      const map = new PolicyMap(maxEntries);
      const ref = new Map<string, RefEntry>();
      for (const o of ops) {
        if (o.kind === "lookup") {
          const got = map.lookup(o.dir, o.identity, o.proto, o.port);
          const want = refLookup(ref.values(), o.dir, o.identity, o.proto, o.port);
          assert.deepEqual({ verdict: got, ruleRef: map.lastRuleRef }, want);
          continue;
        }
        const { dir, identity, proto, range } = o.key;
        const id = `${dir}/${identity}/${proto}/${range[0]}-${range[1]}`;
        if (o.kind === "delete") {
          assert.equal(map.delete(dir, identity, proto, range[0], range[1]), ref.delete(id));
          continue;
        }
        const entry: RefEntry = { dir, identity, proto, lo: range[0], hi: range[1], verdict: o.verdict, ruleRef: o.ruleRef };
        const next = new Map(ref).set(id, entry);
        const fits = next.size <= maxEntries && refBlockKeys(next.values()) <= maxEntries;
        assert.equal(map.upsert(dir, identity, proto, range[0], range[1], o.verdict, o.ruleRef), fits ? 0 : MapError.FULL);
        if (fits) ref.set(id, entry);
        assert.equal(map.size, ref.size);
        assert.equal(map.blockCount, refBlockKeys(ref.values()));
      }
    }),
    { seed: 5150, numRuns: 60 },
  );
});

// The VXLAN device's per-flow source port table against udp_flow_src_port computed afresh
// (srcPortFromHash(innerFlowHash(...))): many more flows than slots, revisited in random order so that
// slots are hit, missed and taken over, plus non-IPv4 frames and a frame whose flow key differs from
// a cached one only in the port word, all under two seeds and port ranges.

import { test } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import { innerFlowHash, srcPortFromHash } from "../../../src/net/vxlan.js";
import { FlowSourcePortCache } from "../../../src/net/vxlan/flow-port-cache.js";
import { ip, mac, udpFrame } from "./helpers.js";

const flows = Array.from({ length: 64 }, (_, i) =>
  udpFrame({ dstMac: mac(1), srcMac: mac(2), src: ip("10.0.0.1") + (i % 5), dst: ip("10.0.1.1") + (i % 7), sport: 40000 + i, dport: 5201 }),
);
const arp = new Uint8Array(42);
arp[12] = 0x08;
arp[13] = 0x06;
const ipv6 = new Uint8Array(60);
ipv6[12] = 0x86;
ipv6[13] = 0xdd;
const frames = [...flows, arp, ipv6];

test("cached source ports equal udp_flow_src_port of each frame, in any order of flows", () => {
  fc.assert(
    fc.property(fc.array(fc.integer({ min: 0, max: frames.length - 1 }), { minLength: 50, maxLength: 300, size: "max" }), (order) => {
      const ranges: [number, number, number][] = [[0x1234567, 32768, 60999], [0xfedcba98, 1000, 1100]];
      for (const [seed, min, max] of ranges) {
        const cache = new FlowSourcePortCache(seed, min, max);
        for (const i of order) {
          const f = frames[i]!;
          assert.equal(cache.sourcePort(f, 0, f.length), srcPortFromHash(innerFlowHash(f, 0, f.length, seed), min, max));
        }
      }
    }),
    { seed: 5, numRuns: 200 },
  );
});

test("a flow that differs from a cached one only in a port gets its own port", () => {
  const cache = new FlowSourcePortCache(99, 32768, 60999);
  const a = udpFrame({ dstMac: mac(1), srcMac: mac(2), src: ip("10.0.0.1"), dst: ip("10.0.0.2"), sport: 1000, dport: 2000 });
  const b = udpFrame({ dstMac: mac(1), srcMac: mac(2), src: ip("10.0.0.1"), dst: ip("10.0.0.2"), sport: 1000, dport: 2001 });
  const want = (f: Uint8Array): number => srcPortFromHash(innerFlowHash(f, 0, f.length, 99));
  assert.notEqual(want(a), want(b), "the test needs two flows with different ports");
  assert.equal(cache.sourcePort(a, 0, a.length), want(a));
  assert.equal(cache.sourcePort(b, 0, b.length), want(b));
  assert.equal(cache.sourcePort(a, 0, a.length), want(a));
});

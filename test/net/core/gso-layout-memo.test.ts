// The remembered GSO header walks (gso-layout-memo.ts behind gsoHeaderLength / gsoNetworkLength)
// against a fresh parse of the same headers: super-packets whose ledger ids share a memo slot go
// through random IPIP / VXLAN encapsulation, decapsulation, GSO type changes and trimming, and every
// answer must equal parsedPayloadOffset's, including where the nesting passes the walk's limit.

import { test } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import { gsoHeaderLength, gsoNetworkLength, parsedPayloadOffset } from "../../../src/skb/gso.js";
import { GSO_ENCAP_MASK, GsoType, type SkBuff } from "../../../src/skb/skbuff.js";
import { write16 } from "../../../src/wire/bytes.js";
import { encapIpip, GSO_SIZE, tcpSuperPacket } from "./gso-fixtures.js";

/** Outer IPv4 + UDP + VXLAN + inner Ethernet (IPv4) in front of the IPv4 header at head. */
function encapVxlan(skb: SkBuff): void {
  const at = skb.push(50);
  skb.data.fill(0, at, at + 50);
  skb.data[at] = 0x45;
  skb.data[at + 9] = 17;
  write16(skb.data, at + 36 + 12, 0x0800);
  skb.gsoType |= GsoType.UDP_TUNNEL_CSUM;
}

/** Strips the outer header at head (IPIP or VXLAN), clearing the encapsulation bits as decapsulation does. */
function decap(skb: SkBuff): void {
  const proto = skb.data[skb.head + 9];
  if (proto !== 4 && proto !== 17) return;
  skb.pull(proto === 4 ? 20 : 50);
  skb.gsoType &= ~GSO_ENCAP_MASK;
}

type Op =
  | { readonly op: "ipip" | "vxlan" | "decap" | "ask"; readonly skb: number }
  | { readonly op: "type"; readonly skb: number; readonly bits: number }
  | { readonly op: "trim"; readonly skb: number; readonly cut: number }
  | { readonly op: "askInner"; readonly skb: number; readonly depth: number };

const skbArb = fc.integer({ min: 0, max: 2 });
const opArb: fc.Arbitrary<Op> = fc.oneof(
  fc.record({ op: fc.constantFrom("ipip" as const, "vxlan" as const, "decap" as const), skb: skbArb }),
  { arbitrary: fc.record({ op: fc.constant("ask" as const), skb: skbArb }), weight: 4 },
  fc.record({ op: fc.constant("askInner" as const), skb: skbArb, depth: fc.constantFrom(20, 50, 70, 100) }),
  fc.record({ op: fc.constant("type" as const), skb: skbArb, bits: fc.integer({ min: 0, max: 15 }) }),
  fc.record({ op: fc.constant("trim" as const), skb: skbArb, cut: fc.integer({ min: 1, max: 1200 }) }),
);

test("remembered header walks answer as a fresh parse does, through encapsulation, decapsulation and trims", () => {
  fc.assert(
    fc.property(fc.array(opArb, { minLength: 20, maxLength: 80, size: "max" }), (ops) => {
      // Ledger ids 7, 71 and 135 share one slot of the 64-slot table; each run has its own packets.
      const skbs = [tcpSuperPacket(3 * GSO_SIZE, 256, 7), tcpSuperPacket(3 * GSO_SIZE, 256, 71), tcpSuperPacket(2 * GSO_SIZE + 5, 256, 135)];
      for (const o of ops) {
        const skb = skbs[o.skb]!;
        if (o.op === "ipip") encapIpip(skb);
        else if (o.op === "vxlan") encapVxlan(skb);
        else if (o.op === "decap") decap(skb);
        else if (o.op === "type") skb.gsoType = GsoType.TCPV4 | (o.bits & GSO_ENCAP_MASK);
        else if (o.op === "trim") skb.trim(Math.max(60, skb.length - o.cut));
        const at = o.op === "askInner" ? skb.head + o.depth : skb.head;
        if (at + 20 > skb.tail) continue;
        const fresh = parsedPayloadOffset(skb, at);
        assert.equal(gsoHeaderLength(skb, at), fresh < 0 ? -1 : fresh - skb.head);
        assert.equal(gsoNetworkLength(skb, at), fresh < 0 ? -1 : fresh - at + GSO_SIZE);
      }
    }),
    { seed: 3, numRuns: 400 },
  );
});

test("a walk past the nesting limit fails even when it reaches a remembered inner header", () => {
  const skb = tcpSuperPacket(2 * GSO_SIZE, 256, 9);
  const inner = skb.head;
  assert.equal(gsoHeaderLength(skb, inner), 52);
  encapIpip(skb);
  encapIpip(skb);
  assert.equal(gsoHeaderLength(skb, skb.head), 92, "two outer headers: within the limit of three levels");
  encapIpip(skb);
  assert.equal(parsedPayloadOffset(skb, skb.head), -1);
  assert.equal(gsoHeaderLength(skb, skb.head), -1, "three outer headers: the inner one is a fourth level");
  assert.equal(gsoHeaderLength(skb, inner), 60 + 52, "asked at the inner header: its own headers, counted from the new head");
});

// SNAT port allocation (after Cilium's lib/nat.h): keep the source port when it is inside the NAT range and
// free, otherwise draw from the range; two flows never share a (node address, port) towards one peer; the
// reverse entry restores each flow; a protocol without ports or echo ids is refused.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { IPPROTO_TCP } from "../../../src/wire/checksum.js";
import { revSnatV4, snatV4 } from "../../../datapath/lib/nat.js";
import { parsePacket } from "../../../datapath/lib/parse.js";
import { DropReason } from "../../../datapath/reasons.js";
import { N1, POD_A, POD_B, assertSkbValid, buildFrame, ip, node1, skbOf, view, type Node } from "../programs/fixtures.js";

const PEER = ip("93.184.216.34");

function snat(n: Node, src: number, sport: number, random: number): { port: number; result: number } {
  const skb = skbOf(buildFrame({ src, dst: PEER, proto: IPPROTO_TCP, sport, dport: 443 }));
  n.ctx.begin(skb, 1, true, 0, 0, random);
  assert.equal(parsePacket(n.ctx), 0);
  const result = snatV4(n.ctx, N1);
  if (result === 0) assertSkbValid(skb);
  return { port: result === 0 ? view(skb).sport : -1, result };
}

function reply(n: Node, port: number): { dst: number; dport: number } | null {
  const skb = skbOf(buildFrame({ src: PEER, dst: N1, proto: IPPROTO_TCP, sport: 443, dport: port }));
  n.ctx.begin(skb, 1, true, 0, 0, 0);
  assert.equal(parsePacket(n.ctx), 0);
  if (!revSnatV4(n.ctx)) return null;
  assertSkbValid(skb);
  return { dst: view(skb).dst, dport: view(skb).dport };
}

describe("SNAT", () => {
  it("keeps an in-range free port, re-uses a flow's mapping, and draws in-range ports for the rest", () => {
    const n = node1();
    assert.deepEqual(snat(n, POD_A, 40000, 1), { port: 40000, result: 0 });
    assert.deepEqual(snat(n, POD_A, 40000, 2), { port: 40000, result: 0 }, "same flow, same mapping");
    const low = snat(n, POD_A, 1000, 3);
    assert.equal(low.result, 0);
    assert.ok(low.port >= 32768 && low.port <= 65535, `port ${low.port}`);
    assert.deepEqual(reply(n, low.port), { dst: POD_A, dport: 1000 });
  });

  it("a second pod with the same source port gets another port; replies reach each pod", () => {
    const n = node1();
    assert.equal(snat(n, POD_A, 40000, 1).port, 40000);
    const b = snat(n, POD_B, 40000, 1);
    assert.equal(b.result, 0);
    assert.notEqual(b.port, 40000);
    assert.deepEqual(reply(n, 40000), { dst: POD_A, dport: 40000 });
    assert.deepEqual(reply(n, b.port), { dst: POD_B, dport: 40000 });
    assert.equal(reply(n, 40001), null, "no mapping, no translation");
  });

  it("gives up with NAT_NO_MAPPING when the range is exhausted, and refuses protocols without ports", () => {
    const n = node1({ snatPortMin: 50000, snatPortMax: 50000 });
    assert.equal(snat(n, POD_A, 50000, 1).port, 50000);
    assert.equal(snat(n, POD_B, 50000, 1).result, DropReason.NAT_NO_MAPPING);
    const gre = skbOf(buildFrame({ src: POD_A, dst: PEER, proto: 47, payload: 8 }));
    n.ctx.begin(gre, 1, true, 0, 0, 0);
    assert.equal(parsePacket(n.ctx), 0);
    assert.equal(snatV4(n.ctx, N1), DropReason.NAT_UNSUPPORTED_PROTO);
  });
});

// Reference counting of policy map entries per endpoint: overlapping contributions, ruleRef
// handover when the installed contributor leaves, and counts beyond the packed form.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { Direction, PolicyVerdict } from "../../datapath/maps/policy.js";
import { EndpointState, PortRangeIds } from "../../src/policy/endpoint.js";
import type { PodInfo } from "../../src/policy/types.js";

const pod: PodInfo = { key: "a/p", namespace: "a", name: "p", labels: {}, ip: 1, node: "n", ports: [] };

function endpoint() {
  const counters = { upserts: 0, deletes: 0, mapErrors: 0 };
  const touched: string[] = [];
  const ep = new EndpointState(pod, 256, 64, counters, (e) => touched.push(e.key), new PortRangeIds());
  return { ep, counters, touched };
}

describe("endpoint entry reference counts", () => {
  it("an entry stays while any contribution remains and names a remaining rule", () => {
    const { ep, counters } = endpoint();
    ep.add(Direction.INGRESS, 300, 6, 80, 80, 7);
    ep.add(Direction.INGRESS, 300, 6, 80, 80, 9);
    ep.add(Direction.INGRESS, 300, 6, 80, 80, 7);
    assert.equal(ep.map.size, 1);
    assert.equal(counters.upserts, 1);
    ep.remove(Direction.INGRESS, 300, 6, 80, 80, 7);
    ep.remove(Direction.INGRESS, 300, 6, 80, 80, 7);
    assert.equal(ep.map.lookup(Direction.INGRESS, 300, 6, 80), PolicyVerdict.ALLOW);
    assert.equal(ep.map.lastRuleRef, 9, "the installed ruleRef moves to the remaining contributor");
    ep.remove(Direction.INGRESS, 300, 6, 80, 80, 9);
    assert.equal(ep.map.size, 0);
    assert.equal(counters.deletes, 1);
    assert.equal(ep.map.lookup(Direction.INGRESS, 300, 6, 80), PolicyVerdict.MISS);
  });

  it("removing what was never added changes nothing", () => {
    const { ep, touched } = endpoint();
    ep.add(Direction.EGRESS, 0, 0, 0, 65535, 1);
    ep.remove(Direction.EGRESS, 0, 0, 0, 65535, 5);
    ep.remove(Direction.EGRESS, 42, 0, 0, 65535, 1);
    assert.equal(ep.map.size, 1);
    assert.deepEqual(touched, ["a/p"]);
  });

  it("counts beyond the packed form and local (CIDR) identities keep working", () => {
    const { ep } = endpoint();
    const cidr = (1 << 24) | 5;
    for (let i = 0; i < 1500; i++) ep.add(Direction.INGRESS, cidr, 17, 53, 53, 700_000);
    for (let i = 0; i < 1499; i++) ep.remove(Direction.INGRESS, cidr, 17, 53, 53, 700_000);
    assert.equal(ep.map.lookup(Direction.INGRESS, cidr, 17, 53), PolicyVerdict.ALLOW);
    ep.remove(Direction.INGRESS, cidr, 17, 53, 53, 700_000);
    assert.equal(ep.map.size, 0);
  });

  it("deferred writes (full compile) flush to the same map as immediate writes", () => {
    const ranges = new PortRangeIds();
    const make = () => new EndpointState(pod, 256, 1 << 14, { upserts: 0, deletes: 0, mapErrors: 0 }, () => {}, ranges);
    const now = make();
    const later = make();
    later.defer();
    const cidr = (1 << 24) | 9;
    const ops: [number, number, number, number, number, number, 1 | -1][] = [];
    // More than 1,024 distinct ranges: the later ones use the string form of the entry key.
    for (let i = 0; i < 1200; i++) ops.push([i % 2, i % 3 === 0 ? cidr : 300 + (i % 5), [0, 6, 17, 132][i % 4]!, 1000 + i, 1000 + i + (i % 4), 7 + (i % 3), 1]);
    ops.push([0, 0, 0, 0, 65535, 1, 1], [0, 0, 0, 0, 65535, 1, -1], [1, 300, 6, 80, 80, 5, 1], [1, 300, 6, 80, 80, 4, 1], [1, 300, 6, 80, 80, 5, -1]);
    for (let i = 0; i < 1200; i += 7) ops.push([i % 2, i % 3 === 0 ? cidr : 300 + (i % 5), [0, 6, 17, 132][i % 4]!, 1000 + i, 1000 + i + (i % 4), 7 + (i % 3), -1]);
    for (const [d, id, proto, lo, hi, ref, sign] of ops) {
      for (const ep of [now, later]) {
        if (sign === 1) ep.add(d, id, proto, lo, hi, ref);
        else ep.remove(d, id, proto, lo, hi, ref);
      }
    }
    assert.equal(later.map.size, 0, "nothing written while deferred");
    later.flush();
    const sorted = (ep: EndpointState) => ep.map.dump().map((e) => JSON.stringify(e)).sort();
    assert.ok(now.map.size > 1000);
    assert.deepEqual(sorted(later), sorted(now));
  });
});

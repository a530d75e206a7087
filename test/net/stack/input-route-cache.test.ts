// routeInput's per-flow decision cache against the full decision: after every change a decision depends
// on (routes, link state, addresses, ip_forward, rp_filter), a cached answer equals the uncached one.
import { test } from "node:test";
import assert from "node:assert/strict";
import { NetNamespace } from "../../../src/net/stack/index.js";
import { InputDecision, InputRouteResult, routeInput } from "../../../src/net/stack/route-input.js";
import { addr, ip, mac, newWorld, vethBetween } from "./topology.js";

function setup() {
  const { world } = newWorld(5);
  const r = new NetNamespace(world, "r", "n");
  const a = new NetNamespace(world, "a", "n");
  const b = new NetNamespace(world, "b", "n");
  const [ra] = vethBetween(world, r, "ra", mac("02:00:00:00:01:01"), a, "ar", mac("02:00:00:00:01:02"));
  const [rb] = vethBetween(world, r, "rb", mac("02:00:00:00:02:01"), b, "br", mac("02:00:00:00:02:02"));
  addr(r, ra, "10.0.1.1/24");
  addr(r, rb, "10.0.2.1/24");
  r.sysctl.ipForward = true;
  return { r, ra, rb };
}

/** The full decision and route: an rp_filter entry set and deleted again (no device's value changes) makes the cache forget everything first. */
function uncached(ns: NetNamespace, dst: number, src: number, dev: Parameters<typeof routeInput>[3]): [number, unknown] {
  ns.sysctl.rpFilter.set(-1, 0);
  ns.sysctl.rpFilter.delete(-1);
  const out = new InputRouteResult();
  const d = routeInput(ns, dst, src, dev, out);
  return [d, out.route];
}

function cached(ns: NetNamespace, dst: number, src: number, dev: Parameters<typeof routeInput>[3]): [number, unknown] {
  const out = new InputRouteResult();
  const d = routeInput(ns, dst, src, dev, out);
  return [d, out.route];
}

test("cached decisions equal the full decision after every change they depend on", () => {
  const { r, ra, rb } = setup();
  const flows: [number, number, typeof ra][] = [
    [ip("10.0.2.7"), ip("10.0.1.7"), ra], // forwarded
    [ip("10.0.1.1"), ip("10.0.1.7"), ra], // local
    [ip("10.0.2.7"), ip("10.0.2.9"), ra], // source on the other side (rp_filter's concern)
    [ip("10.0.9.9"), ip("10.0.1.7"), ra], // no route
    [ip("10.0.1.1"), ip("10.0.2.1"), ra], // a local address as source
  ];
  // Each flow is decided (and stored) before the change, then asked again after it: a stale answer shows.
  for (const [dst, src, dev] of flows) cached(r, dst, src, dev);
  const check = (step: string): void => {
    const first = flows.map(([dst, src, dev]) => cached(r, dst, src, dev));
    const again = flows.map(([dst, src, dev]) => cached(r, dst, src, dev)); // hits where the first calls stored
    const full = flows.map(([dst, src, dev]) => uncached(r, dst, src, dev));
    assert.deepEqual(first, full, `${step}: first calls`);
    assert.deepEqual(again, full, `${step}: cached calls`);
    for (const [dst, src, dev] of flows) cached(r, dst, src, dev); // stored again for the next step
  };
  check("initial");
  assert.equal(cached(r, ip("10.0.2.7"), ip("10.0.1.7"), ra)[0], InputDecision.FORWARD);
  r.routes.add({ dst: ip("10.0.9.0"), prefixLen: 24, dev: rb });
  check("route added");
  r.routes.remove({ dst: ip("10.0.2.0"), prefixLen: 24 });
  check("route removed");
  r.routes.add({ dst: ip("10.0.2.0"), prefixLen: 24, dev: rb });
  rb.up = false;
  check("link down");
  rb.up = true;
  check("link up");
  r.sysctl.ipForward = false;
  check("ip_forward off");
  r.sysctl.ipForward = true;
  r.sysctl.rpFilterAll = 1;
  check("rp_filter strict");
  r.sysctl.rpFilterAll = 2;
  check("rp_filter loose");
  r.sysctl.rpFilterAll = 0;
  addr(r, ra, "10.0.1.7/24"); // the flows' source becomes a local address (martian source)
  check("address added");
  assert.equal(cached(r, ip("10.0.2.7"), ip("10.0.1.7"), ra)[0], InputDecision.MARTIAN_SOURCE);
  r.removeAddress(ra, ip("10.0.1.7"), 24);
  check("address removed");
  r.addresses.add(rb, ip("10.0.1.7"), 32, 0); // the address alone, without the routes ip addr adds
  check("address added without routes");
  assert.equal(cached(r, ip("10.0.2.7"), ip("10.0.1.7"), ra)[0], InputDecision.MARTIAN_SOURCE);
  r.addresses.remove(rb, ip("10.0.1.7"), 32);
  check("address removed without routes");
  r.sysctl.rpFilter.set(ra.ifindex, 1);
  check("per-device rp_filter");
  assert.equal(cached(r, ip("10.0.2.7"), ip("10.0.2.9"), ra)[0], InputDecision.REVERSE_PATH);
  r.sysctl.rpFilter.clear();
  check("per-device rp_filter cleared");
});

test("the same pair on another interface is decided for that interface", () => {
  const { r, ra, rb } = setup();
  r.sysctl.rpFilterAll = 1;
  const viaA = cached(r, ip("10.0.2.7"), ip("10.0.1.7"), ra);
  const viaB = cached(r, ip("10.0.2.7"), ip("10.0.1.7"), rb);
  assert.equal(viaA[0], InputDecision.FORWARD);
  assert.equal(viaB[0], InputDecision.REVERSE_PATH);
  assert.deepEqual(cached(r, ip("10.0.2.7"), ip("10.0.1.7"), ra), uncached(r, ip("10.0.2.7"), ip("10.0.1.7"), ra));
});

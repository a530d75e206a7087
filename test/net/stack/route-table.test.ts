// Routing tables: longest-prefix match against a brute-force oracle (property test), metric and
// local-table precedence, down devices, the routes `ip addr add` creates (as `ip route show table
// local` printed them on Linux 6.18) and the kernel's answers to invalid `ip route add` requests.

import { test } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import { EthernetDevice } from "../../../src/net/ethernet.js";
import { IpipDevice } from "../../../src/net/ipip.js";
import { NetNamespace, RouteType, formatRoute, type Route } from "../../../src/net/stack/index.js";
import { ipv4Mask } from "../../../src/util/ip.js";
import { unwrap } from "../../../src/util/result.js";
import { addr, ip, newWorld } from "./topology.js";

function namespaceWith(devices: number) {
  const { world } = newWorld();
  const ns = new NetNamespace(world, "ns", "node");
  const devs = Array.from({ length: devices }, (_, i) => {
    const d = new EthernetDevice(world, `eth${i}`, 0x020000000100 + i, 1500);
    unwrap(ns.addDevice(d));
    return d;
  });
  return { ns, devs };
}

test("longest-prefix match agrees with a brute-force scan (lowest metric wins within a prefix)", () => {
  const route = fc.record({ dst: fc.integer({ min: 0, max: 0xffffffff }), len: fc.integer({ min: 0, max: 32 }), metric: fc.integer({ min: 0, max: 3 }), dev: fc.integer({ min: 0, max: 3 }) });
  fc.assert(
    fc.property(fc.array(route, { maxLength: 60 }), fc.array(fc.integer({ min: 0, max: 0xffffffff }), { minLength: 1, maxLength: 40 }), (specs, probes) => {
      const { ns, devs } = namespaceWith(4);
      const added: Route[] = [];
      for (const s of specs) {
        const dst = (s.dst & ipv4Mask(s.len)) >>> 0;
        const r = ns.routes.add({ dst, prefixLen: s.len, dev: devs[s.dev]!, metric: s.metric });
        if (r.ok) added.push(r.value);
        else assert.match(r.error.reason, /File exists/);
      }
      for (const p of [...probes, ...added.map((r) => r.dst)]) {
        let best: Route | null = null;
        for (const r of added) {
          if (((p & ipv4Mask(r.prefixLen)) >>> 0) !== r.dst) continue;
          if (best === null || r.prefixLen > best.prefixLen || (r.prefixLen === best.prefixLen && r.metric < best.metric)) best = r;
        }
        assert.equal(ns.routes.lookupIn("main", p), best, `lookup ${p}`);
      }
    }),
    { numRuns: 150 },
  );
});

test("a route through a device that is down is skipped for the next candidate", () => {
  const { ns, devs } = namespaceWith(2);
  const a = unwrap(ns.routes.add({ dst: ip("10.0.0.0"), prefixLen: 8, dev: devs[0]!, metric: 1 }));
  const b = unwrap(ns.routes.add({ dst: ip("10.0.0.0"), prefixLen: 8, dev: devs[1]!, metric: 5 }));
  const def = unwrap(ns.routes.add({ dst: 0, prefixLen: 0, dev: devs[1]! }));
  assert.equal(ns.routes.lookup(ip("10.1.2.3")), a);
  devs[0]!.up = false;
  assert.equal(ns.routes.lookup(ip("10.1.2.3")), b);
  devs[1]!.up = false;
  assert.equal(ns.routes.lookup(ip("10.1.2.3")), null);
  devs[1]!.up = true;
  assert.equal(ns.routes.lookup(ip("192.168.1.1")), def);
});

test("ip addr add creates the kernel's routes (local table searched before main)", () => {
  const { ns, devs } = namespaceWith(1);
  addr(ns, devs[0]!, "10.1.0.1/24");
  // `ip route show table local` / `ip route` in a fresh namespace after `ip addr add 10.1.0.1/24 dev eth0`
  // and `ip link set lo up` (Linux 6.18).
  assert.deepEqual(ns.routes.list("local").map(formatRoute).sort(), [
    "broadcast 10.1.0.255 dev eth0 proto kernel scope link src 10.1.0.1",
    "broadcast 127.255.255.255 dev lo proto kernel scope link src 127.0.0.1",
    "local 10.1.0.1 dev eth0 proto kernel scope host src 10.1.0.1",
    "local 127.0.0.0/8 dev lo proto kernel scope host src 127.0.0.1",
    "local 127.0.0.1 dev lo proto kernel scope host src 127.0.0.1",
  ]);
  assert.deepEqual(ns.routes.list("main").map(formatRoute), ["10.1.0.0/24 dev eth0 proto kernel scope link src 10.1.0.1"]);
  unwrap(ns.routes.add({ dst: ip("10.1.0.1"), prefixLen: 32, dev: devs[0]! }));
  assert.equal(ns.routes.lookup(ip("10.1.0.1"))?.type, RouteType.LOCAL, "the local table wins over a main /32");
  assert.equal(ns.isLocalAddress(ip("127.3.4.5")), true);
  ns.removeAddress(devs[0]!, ip("10.1.0.1"), 24);
  assert.equal(ns.isLocalAddress(ip("10.1.0.1")), false);
  assert.deepEqual(ns.routes.list("main").map(formatRoute), ["10.1.0.1 dev eth0 scope link"]);
});

test("invalid routes are refused with the kernel's messages (ip route add on Linux 6.18)", () => {
  const { ns, devs } = namespaceWith(1);
  const eth0 = devs[0]!;
  addr(ns, eth0, "10.1.0.2/24");
  unwrap(ns.routes.add({ dst: ip("10.52.0.0"), prefixLen: 16, via: ip("10.7.0.1"), dev: eth0, onlink: true }));
  unwrap(ns.routes.add({ dst: ip("10.55.0.0"), prefixLen: 16, via: ip("10.1.0.1"), metric: 5 }));
  const reason = (r: ReturnType<typeof ns.routes.add>): string => (r.ok ? "accepted" : r.error.reason);
  assert.equal(reason(ns.routes.add({ dst: ip("10.50.0.0"), prefixLen: 16, via: ip("10.1.0.2") })), "accepted", "via our own address is accepted");
  assert.equal(reason(ns.routes.add({ dst: ip("10.51.0.0"), prefixLen: 16, via: ip("10.7.0.1") })), "Nexthop has invalid gateway");
  assert.equal(reason(ns.routes.add({ dst: ip("10.53.0.1"), prefixLen: 16, dev: eth0 })), "Invalid prefix for given prefix length");
  assert.equal(reason(ns.routes.add({ dst: ip("10.54.0.0"), prefixLen: 16, via: ip("10.1.0.1"), src: ip("10.1.0.9") })), "Invalid prefsrc address");
  assert.match(reason(ns.routes.add({ dst: ip("10.55.0.0"), prefixLen: 16, via: ip("10.1.0.1"), metric: 5 })), /File exists/);
  assert.equal(reason(ns.routes.add({ dst: ip("10.55.0.0"), prefixLen: 16, via: ip("10.1.0.1"), metric: 6 })), "accepted");
  assert.equal(reason(ns.routes.add({ dst: ip("10.56.0.0"), prefixLen: 16, via: ip("10.55.0.1") })), "Nexthop has invalid gateway", "gateway behind another gateway");
  assert.equal(reason(ns.routes.add({ dst: ip("10.57.0.0"), prefixLen: 16, via: ip("10.1.0.255") })), "Nexthop has invalid gateway", "broadcast gateway");
  assert.equal(reason(ns.routes.add({ dst: ip("10.58.0.0"), prefixLen: 16, via: ip("10.52.0.1") })), "Nexthop has invalid gateway", "gateway behind an onlink route");
  assert.equal(reason(ns.routes.add({ dst: ip("10.59.0.0"), prefixLen: 16, type: RouteType.BLACKHOLE, dev: eth0 })), "Gateway, device and multipath can not be specified for this route type");
  const replaced = unwrap(ns.routes.replace({ dst: ip("10.55.0.0"), prefixLen: 16, via: ip("10.1.0.3"), metric: 5 }));
  assert.equal(ns.routes.lookup(ip("10.55.1.1")), replaced);
});

test("source address: route hint, else the device's address for the gateway's subnet, else another device's", () => {
  const { ns, devs } = namespaceWith(2);
  const [eth0, eth1] = devs as [EthernetDevice, EthernetDevice];
  addr(ns, eth0, "192.168.1.10/24");
  addr(ns, eth0, "10.1.0.2/24");
  const viaSecondSubnet = unwrap(ns.routes.add({ dst: ip("10.9.0.0"), prefixLen: 16, via: ip("10.1.0.1") }));
  assert.equal(ns.routeSource(viaSecondSubnet, ip("10.9.1.1")), ip("10.1.0.2"), "address in the gateway's subnet");
  const hinted = unwrap(ns.routes.add({ dst: ip("10.8.0.0"), prefixLen: 16, via: ip("10.1.0.1"), src: ip("192.168.1.10") }));
  assert.equal(ns.routeSource(hinted, ip("10.8.1.1")), ip("192.168.1.10"), "src hint");
  // Calico: a pod route through an address-less veth takes the first global address of another device.
  const pod = unwrap(ns.routes.add({ dst: ip("10.244.1.5"), prefixLen: 32, dev: eth1 }));
  assert.equal(ns.routeSource(pod, ip("10.244.1.5")), ip("192.168.1.10"));
  assert.equal(ns.selectSourceAddress(ip("10.9.1.1"), null), ip("10.1.0.2"));
});

test("the route table's version stamp changes with every route edit and link state change, and only then", () => {
  const { ns, devs } = namespaceWith(2);
  const seen = new Set<number>();
  const stamp = (): number => {
    const v = ns.routes.version();
    assert.equal(ns.routes.version(), v, "lookups and repeated reads leave it alone");
    return v;
  };
  seen.add(stamp());
  const r = unwrap(ns.routes.add({ dst: ip("10.0.0.0"), prefixLen: 8, dev: devs[0]! }));
  ns.routes.lookup(ip("10.1.2.3"));
  for (const change of [
    () => void ns.routes.add({ dst: ip("10.1.0.0"), prefixLen: 16, dev: devs[1]! }),
    () => (devs[0]!.up = false),
    () => (devs[0]!.up = true),
    () => void ns.routes.remove({ dst: r.dst, prefixLen: 8 }),
  ]) {
    const before = stamp();
    change();
    const after = stamp();
    assert.notEqual(after, before);
    assert.ok(!seen.has(after), "a stamp is never seen again after a change");
    seen.add(after);
  }
});

test("a route's device facts (index, loopback, link type) are its device's, for every kind of device and none", () => {
  const { ns, devs } = namespaceWith(1);
  const eth0 = devs[0]!;
  const tunl0 = new IpipDevice(ns.world);
  unwrap(ns.addDevice(tunl0));
  addr(ns, eth0, "10.1.0.1/24");
  unwrap(ns.routes.add({ dst: ip("10.9.0.0"), prefixLen: 16, dev: tunl0 }));
  unwrap(ns.routes.add({ dst: ip("10.8.0.0"), prefixLen: 16, type: RouteType.BLACKHOLE }));
  const routes = ns.routes.list();
  assert.ok(routes.some((r) => r.dev === ns.loopback) && routes.some((r) => r.dev === tunl0) && routes.some((r) => r.dev === null));
  for (const r of routes) {
    const dev = r.dev;
    assert.equal(r.devIfindex, dev?.ifindex ?? 0, formatRoute(r));
    assert.equal(r.devIsLoopback, dev !== null && dev.kind === "loopback", formatRoute(r));
    assert.equal(r.devIsL2, dev !== null && dev.l2, formatRoute(r));
  }
});

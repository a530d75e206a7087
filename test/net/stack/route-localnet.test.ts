// net.ipv4.conf.{all,<dev>}.route_localnet as ip_route_input_slow applies it: a 127.0.0.0/8
// destination (or, failing that test, source) arriving on a non-loopback interface is martian
// unless route_localnet is set on conf/all or on that interface; with it the packet is routed
// (a 127/8 destination hits the local route on lo) and source validation still runs, so the
// namespace's own 127.0.0.1 stays a martian source (fib_validate_source's own-address check).

import { test } from "node:test";
import assert from "node:assert/strict";
import { NetNamespace } from "../../../src/net/stack/index.js";
import { DropReason } from "../../../datapath/reasons.js";
import { addr, assertConserved, injectTx, ip, mac, newWorld, vethBetween } from "./topology.js";
import { bytesOf, frame, udp } from "./packets.js";

function setup() {
  const { world, sink } = newWorld(21);
  const a = new NetNamespace(world, "a", "n");
  const b = new NetNamespace(world, "b", "n");
  const [va, vb] = vethBetween(world, a, "va", mac("02:00:00:00:00:0a"), b, "vb", mac("02:00:00:00:00:0b"));
  addr(a, va, "10.0.0.1/24");
  addr(b, vb, "10.0.0.2/24");
  const got: string[] = [];
  b.bindUdp(30080, (_skb, info) => got.push(`${info.src >>> 24}.${(info.src >>> 16) & 255}.${(info.src >>> 8) & 255}.${info.src & 255} -> ${info.dst >>> 24}.${(info.dst >>> 16) & 255}.${(info.dst >>> 8) & 255}.${info.dst & 255}`));
  const send = (src: string, dst: string): void => {
    injectTx(world, va, frame(vb.mac, va.mac, udp(ip(src), ip(dst), 1000, 30080, bytesOf("x"))));
    world.sim.run();
  };
  return { world, sink, b, vb, got, send };
}

test("route_localnet off (the default): 127/8 destination and source from the wire are martian", () => {
  const t = setup();
  assert.equal(t.b.sysctl.routeLocalnetAll, false);
  t.send("10.0.0.1", "127.0.0.1");
  t.send("127.0.0.5", "10.0.0.2");
  assert.deepEqual(
    t.sink.dropRecords.map((r) => [r.reason, r.site]),
    [
      [DropReason.MARTIAN_DESTINATION, "net/stack/route:martian-destination"],
      [DropReason.INVALID_SOURCE_IP, "net/stack/route:martian-source"],
    ],
  );
  assert.deepEqual(t.got, []);
  assertConserved(t.world);
});

test("route_localnet on the interface: 127/8 destinations are delivered through the local route, 127/8 sources accepted", () => {
  const t = setup();
  t.b.sysctl.routeLocalnet.add(t.vb.ifindex);
  t.send("10.0.0.1", "127.0.0.1");
  t.send("10.0.0.1", "127.9.9.9");
  t.send("127.0.0.5", "10.0.0.2");
  assert.deepEqual(t.sink.dropRecords.map((r) => r.site), []);
  assert.deepEqual(t.got, ["10.0.0.1 -> 127.0.0.1", "10.0.0.1 -> 127.9.9.9", "127.0.0.5 -> 10.0.0.2"]);
  assertConserved(t.world);
});

test("route_localnet on conf/all applies to every interface; the namespace's own 127.0.0.1 as source stays martian", () => {
  const t = setup();
  t.b.sysctl.routeLocalnetAll = true;
  t.send("10.0.0.1", "127.0.0.1");
  t.send("127.0.0.1", "10.0.0.2");
  assert.deepEqual(t.got, ["10.0.0.1 -> 127.0.0.1"]);
  assert.deepEqual(
    t.sink.dropRecords.map((r) => [r.reason, r.site]),
    [[DropReason.INVALID_SOURCE_IP, "net/stack/route:martian-source"]],
  );
  assertConserved(t.world);
});

import { test } from "node:test";
import assert from "node:assert/strict";
import { Simulator } from "../../../src/engine/simulator.js";
import { NetWorld } from "../../../src/net/world.js";
import { EthernetDevice } from "../../../src/net/ethernet.js";
import { DEFAULT_LINK, ETHERNET_WIRE_OVERHEAD, Link, type LinkParams } from "../../../src/net/link.js";
import { RingSink } from "../../../src/trace/tracer.js";
import { DropReason } from "../../../datapath/reasons.js";
import { RecordingStack, udpFrame } from "./fixtures.js";

function wire(params: Partial<LinkParams> = {}, seed = 1) {
  const world = new NetWorld(new Simulator({ seed }));
  const sink = new RingSink();
  world.tracer.addSink(sink);
  const a = new EthernetDevice(world, "eth0", 0x020000000001, 1500);
  const b = new EthernetDevice(world, "eth1", 0x020000000002, 1500);
  const stackA = new RecordingStack(world, "a");
  const stackB = new RecordingStack(world, "b");
  stackA.attach(a);
  stackB.attach(b);
  const link = new Link(world, a, b, { ...DEFAULT_LINK, ...params });
  a.link = link;
  b.link = link;
  return { world, sink, a, b, stackB, link };
}

function conserved(world: NetWorld): void {
  const l = world.ledger;
  assert.equal(l.entered, l.delivered + l.dropped + l.inFlight);
}

test("a frame arrives after serialization (incl. preamble, FCS, gap) plus propagation", () => {
  const { world, a, stackB } = wire({ bandwidthBps: 1e9, latencyNs: 1000 });
  const skb = udpFrame(world, 58); // 100-byte frame
  a.transmit(skb);
  world.sim.run();
  const expected = Math.ceil(((100 + ETHERNET_WIRE_OVERHEAD) * 8e9) / 1e9) + 1000;
  assert.equal(stackB.received.length, 1);
  assert.equal(stackB.received[0]!.time, expected); // 992 ns serialization + 1 us
  conserved(world);
});

test("back-to-back frames queue behind each other; a full queue tail-drops with QUEUE_FULL", () => {
  const frameWire = 1514 + ETHERNET_WIRE_OVERHEAD;
  const { world, a, stackB, sink, link } = wire({ bandwidthBps: 1e9, latencyNs: 0, queueBytes: 3 * frameWire });
  for (let i = 0; i < 5; i++) a.transmit(udpFrame(world, 1472));
  world.sim.run();
  const ser = Math.ceil((frameWire * 8e9) / 1e9);
  assert.deepEqual(
    stackB.received.map((r) => r.time),
    [ser, 2 * ser, 3 * ser],
  );
  assert.equal(link.stats(a).queueDrops, 2);
  assert.deepEqual(
    sink.dropRecords.map((d) => [d.reason, d.site, d.device]),
    [
      [DropReason.QUEUE_FULL, "net/link:queue", "eth0"],
      [DropReason.QUEUE_FULL, "net/link:queue", "eth0"],
    ],
  );
  conserved(world);
});

test("frames larger than the link MTU are dropped at the sender; a down link drops too", () => {
  const { world, a, sink, link, stackB } = wire({ mtu: 1000 });
  a.transmit(udpFrame(world, 1000 - 28 + 1));
  link.up = false;
  a.transmit(udpFrame(world, 10));
  world.sim.run();
  assert.equal(stackB.received.length, 0);
  assert.deepEqual(
    sink.dropRecords.map((d) => d.reason),
    [DropReason.MTU_EXCEEDED, DropReason.LINK_DOWN],
  );
  assert.equal(sink.dropRecords[0]!.after.dstPort, 2000);
  conserved(world);
});

test("a link that goes down while a frame is in flight drops it on arrival; in-flight counts meanwhile", () => {
  const { world, a, sink, link } = wire({ latencyNs: 10_000 });
  a.transmit(udpFrame(world, 10));
  world.sim.runUntil(5_000);
  assert.equal(world.ledger.inFlight, 1);
  link.up = false;
  world.sim.run();
  assert.equal(world.ledger.inFlight, 0);
  assert.equal(sink.dropRecords[0]!.site, "net/link:down-in-flight");
  conserved(world);
});

test("loss follows the seeded RNG: same seed, same losses; rate close to the setting", () => {
  const run = (seed: number) => {
    const { world, a, stackB } = wire({ lossRate: 0.2, bandwidthBps: 100e9 }, seed);
    for (let i = 0; i < 2000; i++) a.transmit(udpFrame(world, 10));
    world.sim.run();
    conserved(world);
    return stackB.received.map((r) => r.id);
  };
  const first = run(5);
  assert.deepEqual(run(5), first);
  assert.notDeepEqual(run(6), first);
  const lossRate = 1 - first.length / 2000;
  assert.ok(lossRate > 0.17 && lossRate < 0.23, `loss ${lossRate}`);
});

test("invalid link parameters are rejected with the devices named", () => {
  const world = new NetWorld(new Simulator());
  const a = new EthernetDevice(world, "x", 1, 1500);
  const b = new EthernetDevice(world, "y", 2, 1500);
  assert.throws(() => new Link(world, a, b, { ...DEFAULT_LINK, bandwidthBps: 0 }), /between x and y/);
});

test("an Ethernet device sends on the link it is attached to now (re-attached, detached, no end of it)", () => {
  // The device resolves its link's outgoing direction when the link is set, not per frame.
  const { world, sink, a, stackB, link } = wire();
  const c = new EthernetDevice(world, "eth2", 0x020000000003, 1500);
  const stackC = new RecordingStack(world, "c");
  stackC.attach(c);
  const ca = new Link(world, c, a, DEFAULT_LINK); // a is this link's second end
  c.link = ca;
  a.transmit(udpFrame(world, 50));
  world.sim.run();
  assert.equal(stackB.received.length, 1);
  a.link = ca;
  a.transmit(udpFrame(world, 50));
  world.sim.run();
  assert.equal(stackC.received.length, 1, "re-attached: the new link's far end gets it");
  assert.equal(ca.stats(a).sent, 1);
  assert.equal(link.stats(a).sent, 1);
  a.link = null;
  a.transmit(udpFrame(world, 50));
  world.sim.run();
  assert.equal(sink.dropRecords.at(-1)?.site, "net/ethernet:no-carrier", "detached: no carrier");
  a.link = new Link(world, c, new EthernetDevice(world, "eth3", 0x020000000004, 1500), DEFAULT_LINK);
  assert.throws(() => a.transmit(udpFrame(world, 50)), /not an end of this link/);
});

// An Ethernet device holds its link's outgoing direction, resolved when the link is set: frames
// follow the link it is attached to now (re-attached, detached), and a link the device is no end
// of is still refused at send time, as Link.send always did.

import { test } from "node:test";
import assert from "node:assert/strict";
import { Simulator } from "../../../src/engine/simulator.js";
import { NetWorld } from "../../../src/net/world.js";
import { EthernetDevice } from "../../../src/net/ethernet.js";
import { DEFAULT_LINK, Link } from "../../../src/net/link.js";
import { RingSink } from "../../../src/trace/tracer.js";
import { RecordingStack, udpFrame } from "./fixtures.js";

test("frames leave on the link the device is attached to now", () => {
  const world = new NetWorld(new Simulator({ seed: 1 }));
  const sink = new RingSink();
  world.tracer.addSink(sink);
  const a = new EthernetDevice(world, "eth0", 0x020000000001, 1500);
  const b = new EthernetDevice(world, "eth1", 0x020000000002, 1500);
  const c = new EthernetDevice(world, "eth2", 0x020000000003, 1500);
  const stackB = new RecordingStack(world, "b");
  const stackC = new RecordingStack(world, "c");
  stackB.attach(b);
  stackC.attach(c);
  const ab = new Link(world, a, b, DEFAULT_LINK);
  const ca = new Link(world, c, a, DEFAULT_LINK); // a is this link's second end
  b.link = ab;
  c.link = ca;

  a.link = ab;
  a.transmit(udpFrame(world, 50));
  world.sim.run();
  assert.equal(stackB.received.length, 1);
  assert.equal(ab.stats(a).sent, 1);

  a.link = ca;
  a.transmit(udpFrame(world, 50));
  world.sim.run();
  assert.equal(stackC.received.length, 1, "re-attached: the new link's far end gets it");
  assert.equal(ca.stats(a).sent, 1);
  assert.equal(stackB.received.length, 1);

  a.link = null;
  a.transmit(udpFrame(world, 50));
  world.sim.run();
  assert.equal(sink.dropRecords.at(-1)?.site, "net/ethernet:no-carrier", "detached: no carrier");

  const bc = new Link(world, b, c, DEFAULT_LINK);
  a.link = bc;
  assert.throws(() => a.transmit(udpFrame(world, 50)), /not an end of this link/);
});

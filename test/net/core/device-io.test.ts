// NetDevice keeps its per-frame state (up, stack, master, hooks) in one inner object that receive
// and transmit read; the public properties are views of it. A write through any of them must steer
// the very next frame, in both directions.
import { test } from "node:test";
import assert from "node:assert/strict";
import { Simulator } from "../../../src/engine/simulator.js";
import { NetWorld } from "../../../src/net/world.js";
import { VethDevice } from "../../../src/net/veth.js";
import type { MasterPort, NetDevice } from "../../../src/net/device.js";
import { TcVerdict, type AttachedProgram } from "../../../src/net/hook.js";
import type { SkBuff } from "../../../src/skb/skbuff.js";
import { DeliveryKind } from "../../../src/trace/ledger.js";
import { RecordingStack, udpFrame } from "./fixtures.js";

class RecordingMaster implements MasterPort {
  readonly frames: string[] = [];
  constructor(private readonly world: NetWorld) {}
  handleFrame(port: NetDevice, _skb: SkBuff): void {
    this.frames.push(port.name);
    this.world.ledger.deliver(DeliveryKind.SOCKET);
  }
}

function dropProgram(): AttachedProgram {
  return { name: "drop-all", redirectIfindex: 0, redirectIngress: false, dropReason: 1, dropSite: "test:drop", run: () => TcVerdict.SHOT };
}

test("writes to stack, master, up and the hooks steer the next frame", () => {
  const world = new NetWorld(new Simulator());
  const [a, b] = VethDevice.pair(world, "a", 0x020000000001, "b", 0x020000000002);
  const ns = new RecordingStack(world, "ns");
  ns.attach(b);
  assert.equal(b.stack, ns);
  a.transmit(udpFrame(world, 10));
  assert.equal(ns.received.length, 1, "to the stack");

  const master = new RecordingMaster(world);
  b.master = master;
  assert.equal(b.master, master);
  a.transmit(udpFrame(world, 10));
  assert.deepEqual([ns.received.length, master.frames], [1, ["b"]], "to the master, not the stack");

  b.master = null;
  a.transmit(udpFrame(world, 10));
  assert.equal(ns.received.length, 2, "back to the stack");

  b.tcIngress = dropProgram();
  a.transmit(udpFrame(world, 10));
  assert.equal(ns.received.length, 2, "the ingress hook dropped it");
  b.tcIngress = null;

  a.tcEgress = dropProgram();
  a.transmit(udpFrame(world, 10));
  assert.equal(ns.received.length, 2, "the egress hook dropped it");
  a.tcEgress = null;

  b.up = false;
  a.transmit(udpFrame(world, 10));
  assert.deepEqual([ns.received.length, b.stats.rxDropped], [2, 1], "a down device drops on receive");
  b.up = true;
  a.transmit(udpFrame(world, 10));
  assert.equal(ns.received.length, 3);

  b.stack = null;
  assert.equal(b.stack, null);
  a.transmit(udpFrame(world, 10));
  assert.equal(ns.received.length, 3, "no stack: dropped");
});

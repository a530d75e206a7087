import { test } from "node:test";
import assert from "node:assert/strict";
import { Simulator } from "../../../src/engine/simulator.js";
import { NetWorld } from "../../../src/net/world.js";
import { VethDevice } from "../../../src/net/veth.js";
import { RingSink } from "../../../src/trace/tracer.js";
import { DropReason } from "../../../datapath/reasons.js";
import { TcVerdict, type AttachedProgram } from "../../../src/net/hook.js";
import { RecordingStack, udpFrame } from "./fixtures.js";

function pair() {
  const world = new NetWorld(new Simulator());
  const sink = new RingSink();
  world.tracer.addSink(sink);
  const [host, pod] = VethDevice.pair(world, "cali1", 0xeeeeeeeeeeee, "eth0", 0x020000000001);
  const hostNs = new RecordingStack(world, "host", "node1");
  const podNs = new RecordingStack(world, "pod", "node1");
  hostNs.attach(host);
  podNs.attach(pod);
  return { world, sink, host, pod, hostNs, podNs };
}

test("veth delivers to the peer in the same event and scrubs the mark across namespaces", () => {
  const { world, pod, hostNs } = pair();
  const skb = udpFrame(world, 20);
  skb.mark = 0x4000;
  pod.transmit(skb);
  assert.equal(hostNs.received.length, 1, "delivered synchronously, no event needed");
  assert.equal(hostNs.received[0]!.mark, 0);
  assert.equal(world.sim.pending, 0);
  assert.equal(pod.stats.txPackets, 1);
  assert.equal(pod.peer.stats.rxPackets, 1);
});

test("a tc ingress program that drops produces exactly one drop record with its reason and site", () => {
  const { world, sink, pod, host, hostNs } = pair();
  const prog: AttachedProgram = {
    name: "test-deny",
    run: () => TcVerdict.SHOT,
    dropReason: DropReason.POLICY_DENIED,
    dropSite: "test:deny",
    dropExplanation: "no policy allows it",
    redirectIfindex: 0,
    redirectIngress: false,
  };
  host.tcIngress = prog;
  pod.transmit(udpFrame(world, 20));
  assert.equal(hostNs.received.length, 0);
  assert.equal(sink.dropRecords.length, 1);
  const rec = sink.dropRecords[0]!;
  assert.equal(rec.reason, DropReason.POLICY_DENIED);
  assert.equal(rec.device, "cali1");
  assert.equal(rec.hook, "tc-ingress");
  assert.equal(rec.node, "node1");
  assert.equal(rec.explanation, "no policy allows it");
  assert.equal(world.ledger.dropped, 1);
});

test("a redirect to an unknown ifindex is a drop, not a lost packet; a down device drops", () => {
  const { world, sink, pod, host } = pair();
  host.tcIngress = {
    name: "redir",
    run: () => TcVerdict.REDIRECT,
    dropReason: 0,
    dropSite: "",
    redirectIfindex: 999,
    redirectIngress: false,
  };
  pod.transmit(udpFrame(world, 20));
  pod.up = false;
  pod.transmit(udpFrame(world, 20));
  assert.deepEqual(
    sink.dropRecords.map((d) => d.reason),
    [DropReason.NO_REDIRECT_TARGET, DropReason.LINK_DOWN],
  );
  const l = world.ledger;
  assert.equal(l.entered, l.dropped + l.delivered + l.inFlight);
  assert.equal(l.inFlight, 0);
});

test("removing the only hop sink switches hop tracing off again", () => {
  const world = new NetWorld(new Simulator());
  const sink = { hop: () => undefined };
  world.tracer.addSink(sink);
  assert.equal(world.tracer.hops, true);
  world.tracer.removeSink(sink);
  assert.equal(world.tracer.hops, false);
});

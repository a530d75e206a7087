// ExternalPort without real interfaces: frames "captured" from a fake real side enter the model at
// the scheduler's time, what the model sends reaches the sink, in both the standalone and the bridge
// (TapBridge) arrangement. Expected answers follow RFC 826 (ARP) and RFC 792/1071 (echo, checksums).

import { test } from "node:test";
import assert from "node:assert/strict";
import { Simulator } from "../../src/engine/simulator.js";
import { DropReason } from "../../datapath/reasons.js";
import { ExternalPort, type FrameSink, type InputScheduler } from "../../src/net/external-port.js";
import { NetNamespace } from "../../src/net/stack/index.js";
import { VethDevice } from "../../src/net/veth.js";
import { NetWorld } from "../../src/net/world.js";
import { DeliveryKind } from "../../src/trace/ledger.js";
import { RingSink } from "../../src/trace/tracer.js";

const REAL_MAC = [0x02, 0, 0, 0, 1, 1];
const REAL_IP = [192, 0, 2, 1];
const EMU_MAC = 0x02005e000002;
const EMU_MAC_BYTES = [0x02, 0x00, 0x5e, 0x00, 0x00, 0x02];
const EMU_IP = [192, 0, 2, 2];

/** RFC 1071 Internet checksum. */
function inetChecksum(bytes: Uint8Array, start: number, end: number): number {
  let sum = 0;
  for (let i = start; i < end; i += 2) sum += (bytes[i]! << 8) | (i + 1 < end ? bytes[i + 1]! : 0);
  while (sum > 0xffff) sum = (sum & 0xffff) + (sum >>> 16);
  return ~sum & 0xffff;
}

/** RFC 826 request: who has EMU_IP, tell REAL_IP. */
function arpRequest(): Uint8Array {
  return Uint8Array.from([
    ...[0xff, 0xff, 0xff, 0xff, 0xff, 0xff], ...REAL_MAC, 0x08, 0x06,
    0x00, 0x01, 0x08, 0x00, 6, 4, 0x00, 0x01, ...REAL_MAC, ...REAL_IP, 0, 0, 0, 0, 0, 0, ...EMU_IP,
  ]);
}

/** Ethernet + IPv4 (TTL 64, ID 0x1234, DF) + ICMP echo request id 0x4242 seq 1 with 8 payload bytes. */
function echoRequest(): Uint8Array {
  const f = Uint8Array.from([
    ...EMU_MAC_BYTES, ...REAL_MAC, 0x08, 0x00,
    0x45, 0x00, 0x00, 36, 0x12, 0x34, 0x40, 0x00, 64, 1, 0, 0, ...REAL_IP, ...EMU_IP,
    8, 0, 0, 0, 0x42, 0x42, 0x00, 0x01, 1, 2, 3, 4, 5, 6, 7, 8,
  ]);
  const ip = inetChecksum(f, 14, 34);
  f[24] = ip >> 8;
  f[25] = ip & 0xff;
  const icmp = inetChecksum(f, 34, f.length);
  f[36] = icmp >> 8;
  f[37] = icmp & 0xff;
  return f;
}

class RecordingSink implements FrameSink {
  readonly frames: Uint8Array[] = [];
  accept = true;
  lastSendError = "";

  send(frame: Uint8Array): boolean {
    if (!this.accept) {
      this.lastSendError = "Network is down";
      return false;
    }
    this.frames.push(frame.slice());
    return true;
  }
}

function setup(): { sim: Simulator; world: NetWorld; ns: NetNamespace; sink: RecordingSink; input: InputScheduler; trace: RingSink } {
  const sim = new Simulator();
  const world = new NetWorld(sim);
  const trace = new RingSink();
  world.tracer.addSink(trace);
  const ns = new NetNamespace(world, "emu-host", "emu-host");
  const input: InputScheduler = { inject: (fn, arg) => sim.schedule(0, fn, arg) };
  return { sim, world, ns, sink: new RecordingSink(), input, trace };
}

function checkArpReply(frame: Uint8Array | undefined): void {
  assert.ok(frame !== undefined, "an ARP reply left on the real side");
  assert.deepEqual([...frame.subarray(0, 14)], [...REAL_MAC, ...EMU_MAC_BYTES, 0x08, 0x06]);
  // htype 1, ptype IPv4, hlen 6, plen 4, op 2 (reply); sender = the emulated host, target = the asker.
  assert.deepEqual([...frame.subarray(14, 42)], [0, 1, 8, 0, 6, 4, 0, 2, ...EMU_MAC_BYTES, ...EMU_IP, ...REAL_MAC, ...REAL_IP]);
}

function checkEchoReply(frame: Uint8Array | undefined): void {
  assert.ok(frame !== undefined, "an echo reply left on the real side");
  assert.deepEqual([...frame.subarray(0, 14)], [...REAL_MAC, ...EMU_MAC_BYTES, 0x08, 0x00]);
  assert.equal(inetChecksum(frame, 14, 34), 0, "IPv4 header checksum verifies");
  assert.deepEqual([...frame.subarray(26, 34)], [...EMU_IP, ...REAL_IP]);
  assert.equal(frame[23], 1, "ICMP");
  const icmpEnd = 14 + ((frame[16]! << 8) | frame[17]!);
  assert.equal(inetChecksum(frame, 34, icmpEnd), 0, "ICMP checksum verifies");
  assert.deepEqual([...frame.subarray(34, 36)], [0, 0], "type 0 code 0 (echo reply)");
  assert.deepEqual([...frame.subarray(38, icmpEnd)], [0x42, 0x42, 0, 1, 1, 2, 3, 4, 5, 6, 7, 8], "identifier, sequence and data echoed");
}

test("standalone: an emulated host with an address on the port answers ARP and ping from the real side", () => {
  const { sim, world, ns, sink, input } = setup();
  const port = new ExternalPort(world, "ext0", EMU_MAC, 1500, sink, input);
  ns.addDevice(port);
  ns.addAddress(port, 0xc0000202, 24);
  port.inject(arpRequest(), 42);
  port.inject(echoRequest(), 50);
  sim.runUntil(1_000_000);
  assert.equal(sink.frames.length, 2);
  checkArpReply(sink.frames[0]);
  checkEchoReply(sink.frames[1]);
  assert.equal(port.live.injected, 2);
  assert.equal(port.live.emitted, 2);
  assert.equal(world.ledger.deliveredByKind[DeliveryKind.EXTERNAL], 2);
  assert.equal(world.ledger.inFlight, 0);
});

test("the capture buffer is copied at injection: reusing it does not change a frame waiting for its event", () => {
  const { sim, world, ns, sink, input } = setup();
  const port = new ExternalPort(world, "ext0", EMU_MAC, 1500, sink, input);
  ns.addDevice(port);
  ns.addAddress(port, 0xc0000202, 24);
  const buffer = new Uint8Array(100);
  buffer.set(arpRequest());
  port.inject(buffer, 42);
  buffer.fill(0);
  sim.runUntil(1_000_000);
  checkArpReply(sink.frames[0]);
});

test("bridge mode: the real side replaces the host side of an emulated device on its wire", () => {
  const { sim, world, ns, sink, input } = setup();
  const [eth0, wire] = VethDevice.pair(world, "eth0", EMU_MAC, "wire0", 0x02005e0000fe);
  ns.addDevice(eth0);
  ns.addAddress(eth0, 0xc0000202, 24);
  const port = ExternalPort.bridge(wire, sink, input);
  assert.equal(wire.master, port);
  assert.equal(port.bridged, wire);
  const seen: string[] = [];
  wire.taps.push({ onFrame: (_d, dir, skb) => seen.push(`${dir}:${skb.length}`) });
  port.inject(arpRequest(), 42);
  port.inject(echoRequest(), 50);
  sim.runUntil(1_000_000);
  checkArpReply(sink.frames[0]);
  checkEchoReply(sink.frames[1]);
  // The wire end sends what came from the real side and receives the host's answers.
  assert.deepEqual(seen, ["tx:42", "rx:42", "tx:50", "rx:50"]);
});

test("bridge mode takes the device out of its namespace: the emulated host no longer speaks there", () => {
  const { world, ns, sink, input } = setup();
  const [eth0] = VethDevice.pair(world, "eth0", EMU_MAC, "peer0", 0x02005e0000fe);
  ns.addDevice(eth0);
  ns.addAddress(eth0, 0xc0000202, 24);
  ExternalPort.bridge(eth0, sink, input);
  assert.equal(ns.deviceByName("eth0"), undefined);
  assert.equal(eth0.stack, null);
  assert.equal(ns.primaryAddress(eth0), 0);
});

test("frames the model cannot take are refused with a drop record: beyond the MTU, runts, truncated", () => {
  const { sim, world, ns, sink, input, trace } = setup();
  const port = new ExternalPort(world, "ext0", EMU_MAC, 1500, sink, input);
  ns.addDevice(port);
  port.inject(new Uint8Array(1600), 1600);
  port.inject(new Uint8Array(10), 10);
  port.inject(arpRequest(), 42, true);
  sim.runUntil(1_000_000);
  assert.equal(port.live.refused, 3);
  assert.equal(port.live.injected, 0);
  assert.equal(world.ledger.dropsByReason.get(DropReason.MTU_EXCEEDED), 1);
  assert.equal(world.ledger.dropsByReason.get(DropReason.INVALID_PACKET), 2);
  const drops = trace.dropRecords;
  assert.match(drops[0]!.explanation ?? "", /1600-byte frame from the real interface beyond the MTU/);
  assert.equal(drops[0]!.device, "ext0");
  assert.equal(world.ledger.inFlight, 0);
});

test("a frame the real interface refuses is dropped with the interface's reason", () => {
  const { sim, world, ns, sink, input, trace } = setup();
  const port = new ExternalPort(world, "ext0", EMU_MAC, 1500, sink, input);
  ns.addDevice(port);
  ns.addAddress(port, 0xc0000202, 24);
  sink.accept = false;
  port.inject(arpRequest(), 42);
  sim.runUntil(1_000_000);
  assert.equal(port.live.sendFailures, 1);
  assert.equal(world.ledger.dropsByReason.get(DropReason.LINK_DOWN), 1);
  assert.match(trace.dropRecords[0]!.explanation ?? "", /refused the frame: Network is down/);
  assert.equal(world.ledger.inFlight, 0);
});

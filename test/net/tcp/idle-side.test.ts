// The shortcuts for a side with nothing to send (the receiver of a bulk transfer) against the
// general code they stand in for, on copies of a live receiving socket: ackWithNothingInFlight
// against processAck (same window, same, older and newer window edges), and pushPending's idle
// check against writeXmit. Once that side has sent data of its own, the ACK shortcut declines and
// changes nothing, and its data flows (the idle check lets writeXmit run).

import { test } from "node:test";
import assert from "node:assert/strict";
import { ackWithNothingInFlight, processAck } from "../../../src/net/tcp/ack.js";
import { TcpStack, type TcpSocket } from "../../../src/net/tcp/index.js";
import { Segment } from "../../../src/net/tcp/segment.js";
import { pushPending, TcpFlags, writeXmit } from "../../../src/net/tcp/tx.js";
import { unwrap } from "../../../src/util/result.js";
import { ip, linked } from "./topology.js";

/** A shallow copy (same prototype): its own scalar fields can change without touching the socket's. */
function copyOf(sock: TcpSocket): TcpSocket {
  return Object.assign(Object.create(Object.getPrototypeOf(sock) as object) as TcpSocket, sock);
}

/** The socket's own scalar fields (sequence numbers, windows, timers, counters of the connection). */
function scalars(sock: TcpSocket): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(sock)) if (typeof v !== "object" || v === null) out[k] = v;
  return out;
}

/** An arriving data segment at the socket's rcv_nxt that acknowledges `ack`, offering `window`. */
function dataSegment(sock: TcpSocket, ack: number, window: number, seqBack = 0): Segment {
  const seg = new Segment();
  seg.seq = (sock.rcvNxt - seqBack) >>> 0;
  seg.ack = ack;
  seg.flags = TcpFlags.ACK;
  seg.window = window;
  seg.payloadLen = 1000;
  return seg;
}

/** Compares the shortcut with processAck on copies; returns whether the shortcut took the segment. */
function compareAck(sock: TcpSocket, seg: Segment): boolean {
  const slow = copyOf(sock);
  const fast = copyOf(sock);
  const before = scalars(fast);
  const slowOk = processAck(slow, seg);
  const took = ackWithNothingInFlight(fast, seg);
  if (took) {
    assert.equal(slowOk, true);
    assert.deepEqual(scalars(fast), scalars(slow));
  } else {
    assert.deepEqual(scalars(fast), before, "a declined segment changes nothing");
  }
  return took;
}

test("a receiver's ACK shortcut and idle check leave the socket as processAck and writeXmit do", () => {
  const t = linked({ bandwidthBps: 10e9, latencyNs: 20_000 });
  let server: TcpSocket | null = null;
  let fromServer = 0;
  unwrap(TcpStack.of(t.b).listen(5201, (sock) => {
    server = sock;
    sock.events = { onReceive: () => undefined, onEnd: (s) => s.close() };
  }));
  const data = new Uint8Array(4_000_000);
  let sent = 0;
  const write = (s: TcpSocket): void => {
    sent += s.send(data, sent);
    if (sent === data.length) s.end();
  };
  unwrap(TcpStack.of(t.a).connect(ip("10.9.0.2"), 5201, {
    onConnect: write,
    onWritable: write,
    onData: (_s, bytes) => (fromServer += bytes.length),
  }));
  let taken = 0;
  let declined = 0;
  const probeIdle = (): void => {
    const sock = server!;
    const window = sock.sndWnd >>> sock.sndWscale;
    for (const seg of [
      dataSegment(sock, sock.sndUna, window),
      dataSegment(sock, sock.sndUna, window + 7),
      dataSegment(sock, sock.sndUna, window + 7, 1_000_000),
      dataSegment(sock, sock.sndUna, 0),
      dataSegment(sock, (sock.sndUna + 1) >>> 0, window),
    ]) {
      if (compareAck(sock, seg)) taken++;
    }
    const slow = copyOf(sock);
    const fast = copyOf(sock);
    const segsOut = sock.stats.segsOut;
    writeXmit(slow);
    pushPending(fast);
    assert.deepEqual(scalars(fast), scalars(slow));
    assert.equal(sock.stats.segsOut, segsOut, "nothing was sent");
  };
  for (let at = 1_000_000; at <= 2_000_000; at += 250_000) t.world.sim.schedule(at, probeIdle);
  // The invalidating event: the receiver sends data of its own.
  const reply = new Uint8Array(60_000);
  t.world.sim.schedule(2_100_000, () => assert.equal(server!.send(reply), reply.length));
  t.world.sim.schedule(2_100_100, () => {
    const sock = server!;
    assert.ok(sock.packetsOut > 0);
    if (!compareAck(sock, dataSegment(sock, sock.sndUna, sock.sndWnd >>> sock.sndWscale))) declined++;
  });
  t.world.sim.run();
  assert.ok(taken >= 5 * 4, `the shortcut applied while idle (${taken})`);
  assert.equal(declined, 1);
  assert.equal(sent, data.length);
  assert.equal(fromServer, reply.length, "the receiver's own data went out");
});

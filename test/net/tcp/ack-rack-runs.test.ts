// The cumulative ACK advances RACK once per run of plain retransmission-queue entries (by the run's
// last): checked against rackAdvance called for every acknowledged entry in queue order, with runs
// sent at one instant (equal send times, the end decides) and at several, broken by a retransmitted
// entry (sent later), a SACKed one and a FIN, and a partly acknowledged head left behind.

import { test } from "node:test";
import assert from "node:assert/strict";
import { processAck } from "../../../src/net/tcp/ack.js";
import { TcpStack, type TcpSocket } from "../../../src/net/tcp/index.js";
import { rackAdvance } from "../../../src/net/tcp/rack.js";
import { RtxQueue, Sacked } from "../../../src/net/tcp/rtx-queue.js";
import { Segment } from "../../../src/net/tcp/segment.js";
import { TcpFlags } from "../../../src/net/tcp/tx.js";
import { unwrap } from "../../../src/util/result.js";
import { ip, linked } from "./topology.js";

/** An established connection's socket, idle (nothing in flight). */
function idleSocket(): TcpSocket {
  const t = linked();
  unwrap(TcpStack.of(t.b).listen(5201, () => undefined));
  let client: TcpSocket | null = null;
  unwrap(TcpStack.of(t.a).connect(ip("10.9.0.2"), 5201, { onConnect: (s) => (client = s) }));
  t.world.sim.run();
  assert.ok(client !== null);
  return client;
}

interface Entry {
  readonly len: number;
  readonly flags: number;
  readonly sentAt: number;
}

/** A copy of sock whose retransmission queue holds `entries` from snd_una on (snd_nxt after them). */
function withQueue(sock: TcpSocket, entries: readonly Entry[]): TcpSocket {
  const copy = Object.assign(Object.create(Object.getPrototypeOf(sock) as object) as TcpSocket, sock);
  const q = new RtxQueue(4);
  let seq = sock.sndUna;
  for (const e of entries) {
    q.push(seq, (seq + e.len) >>> 0, e.flags, e.sentAt);
    seq = (seq + e.len) >>> 0;
  }
  // Its own queue and RTT estimator (the ACK takes an RTT sample; RACK reads min_rtt).
  const rtt = Object.assign(Object.create(Object.getPrototypeOf(sock.rtt) as object) as TcpSocket["rtt"], sock.rtt);
  Object.assign(copy, { rtx: q, rtt, sndNxt: seq, packetsOut: entries.length, sackedOut: entries.filter((e) => (e.flags & Sacked.SACKED) !== 0).length });
  copy.retransOut = 0;
  copy.lostOut = 0;
  copy.rackXmit = -1;
  copy.rackEndSeq = 0;
  copy.rackRtt = 0;
  copy.rackAdvanced = false;
  return copy;
}

/** RACK's clock (rack_advanced is consumed by the loss detection that follows in processAck). */
function rackState(sock: TcpSocket): [number, number, number] {
  return [sock.rackXmit, sock.rackEndSeq, sock.rackRtt];
}

test("the cumulative ACK leaves RACK as advancing it by every acknowledged entry does", () => {
  const sock = idleSocket();
  const now = sock.now;
  const at = (back: number): number => now - back;
  const mss = 1448;
  const cases: Entry[][] = [
    // One run sent at one instant: equal send times, the highest end wins.
    Array.from({ length: 9 }, () => ({ len: mss, flags: 0, sentAt: at(50_000) })),
    // Runs at several instants, a retransmitted entry (sent later than everything) between them.
    [
      ...Array.from({ length: 4 }, (_, i) => ({ len: mss, flags: 0, sentAt: at(90_000 - i) })),
      { len: mss, flags: Sacked.EVER_RETRANS | Sacked.RETRANS, sentAt: at(1_000) },
      ...Array.from({ length: 4 }, () => ({ len: mss, flags: 0, sentAt: at(80_000) })),
      { len: mss, flags: Sacked.SACKED, sentAt: at(79_000) },
      ...Array.from({ length: 3 }, (_, i) => ({ len: mss, flags: 0, sentAt: at(78_000 - 10 * i) })),
      { len: 1, flags: Sacked.FIN, sentAt: at(77_000) },
    ],
  ];
  for (const entries of cases) {
    let end = sock.sndUna;
    for (const e of entries) end = (end + e.len) >>> 0;
    // Everything, all but the last entry, and a cut through the middle of an entry (partly acknowledged).
    for (const ack of [end, (end - entries.at(-1)!.len) >>> 0, (sock.sndUna + 5 * mss + 100) >>> 0]) {
      const viaAck = withQueue(sock, entries);
      const reference = withQueue(sock, entries);
      const seg = new Segment();
      seg.seq = viaAck.rcvNxt;
      seg.ack = ack;
      seg.flags = TcpFlags.ACK;
      seg.window = viaAck.sndWnd >>> viaAck.sndWscale;
      assert.equal(processAck(viaAck, seg), true);
      let seq = sock.sndUna;
      for (const e of entries) {
        const entryEnd = (seq + e.len) >>> 0;
        if (((ack - entryEnd) | 0) < 0) break;
        if ((e.flags & Sacked.SACKED) === 0) rackAdvance(reference, e.flags, entryEnd, e.sentAt, now);
        seq = entryEnd;
      }
      assert.deepEqual(rackState(viaAck), rackState(reference), `ack ${ack - sock.sndUna} of ${end - sock.sndUna}`);
    }
  }
});

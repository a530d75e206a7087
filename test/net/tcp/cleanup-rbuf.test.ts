// tcp_cleanup_rbuf after a read: when the read frees a window at least twice the one still open, the
// ACK goes at once, also while a delayed ACK is scheduled (Linux checks the window after the
// scheduled-ACK test, not instead of it). With segments near the window's size (MTU 30000, MSS
// 29948, a first window of two segments) the sender otherwise waits out the 40 ms delayed-ACK timer
// with one segment unacknowledged; the kernel here moves 21.6 Gbit/s over a veth of that MTU.
import { test } from "node:test";
import assert from "node:assert/strict";
import { TcpStack, type TcpSocket } from "../../../src/net/tcp/index.js";
import { unwrap } from "../../../src/util/result.js";
import { bulkWriter, ip, linked } from "./topology.js";

function transferAt(mtu: number, bytes: number): { doneAt: number; sender: TcpSocket } {
  const t = linked({ mtu, queueBytes: 1000 * (mtu + 14) });
  let doneAt = -1;
  unwrap(TcpStack.of(t.b).listen(5201, (s) => {
    s.events = {
      onEnd: (r) => {
        doneAt = t.world.sim.now;
        r.close();
      },
    };
  }));
  const pump = bulkWriter(new Uint8Array(bytes));
  const sender = unwrap(TcpStack.of(t.a).connect(ip("10.9.0.2"), 5201, { onConnect: pump, onWritable: pump }));
  t.world.sim.run();
  return { doneAt, sender };
}

test("a read that doubles the window ACKs at once while a delayed ACK waits: 1 MB at MTU 30000 never waits out the delayed-ACK timer", () => {
  const { doneAt, sender } = transferAt(30000, 1_000_000);
  assert.ok(doneAt > 0, "the transfer ended");
  assert.equal(sender.stats.retransmits, 0);
  // 1 MB at 10 Gbit/s is 0.8 ms on the wire; one wait for the delayed ACK would add 40 ms.
  assert.ok(doneAt < 20_000_000, `done at ${doneAt / 1e6} ms`);
});

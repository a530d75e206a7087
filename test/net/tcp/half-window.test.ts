// tcp_bound_to_half_wnd: a segment (tcp_sync_mss) or a super-packet (tcp_xmit_size_goal) stays within
// half the largest window the peer has offered, all of it while that is 536 bytes or less, and never
// below 68 bytes of IP datagram; before any window is seen nothing is cut.
import { test } from "node:test";
import assert from "node:assert/strict";
import { boundToHalfWindow } from "../../../src/net/tcp/half-window.js";
import { TcpStack } from "../../../src/net/tcp/index.js";
import { unwrap } from "../../../src/util/result.js";
import { bulkWriter, ip, linked } from "./topology.js";

const HEADER = 32; // TCP header with the timestamps option

test("the cut-off: half the window, the whole of a small one, a 68-byte floor", () => {
  assert.equal(boundToHalfWindow(0, 65483, HEADER), 65483, "no window seen yet");
  assert.equal(boundToHalfWindow(65483, 65483, HEADER), 32741);
  assert.equal(boundToHalfWindow(65483, 1448, HEADER), 1448, "already within half");
  assert.equal(boundToHalfWindow(131072, 65215, HEADER), 65215, "a 64 KB super-packet under a 128 KB window");
  assert.equal(boundToHalfWindow(65536, 65215, HEADER), 32768, "a super-packet under a 64 KB window");
  assert.equal(boundToHalfWindow(537, 1448, HEADER), 268, "above 536: halved");
  assert.equal(boundToHalfWindow(536, 1448, HEADER), 536, "at most 536: the whole window");
  assert.equal(boundToHalfWindow(20, 1448, HEADER), 36, "68 bytes of datagram at least: 68 - 32");
});

test("the MSS follows the largest window offered: half of the SYN-ACK's 65,483 bytes, the full MSS once the window passes twice it", () => {
  const mtu = 65535;
  const t = linked({ mtu, queueBytes: 1000 * (mtu + 14) });
  unwrap(TcpStack.of(t.b).listen(5201, (s) => {
    s.events = { onEnd: (r) => r.close() };
  }));
  const pump = bulkWriter(new Uint8Array(4_000_000));
  const s = unwrap(TcpStack.of(t.a).connect(ip("10.9.0.2"), 5201, { onConnect: pump, onWritable: pump }));
  const seen: [number, number][] = [];
  let last = -1;
  for (let i = 0; i < 400; i++) {
    t.world.sim.runUntil(t.world.sim.now + 50_000);
    if (s.maxWindow > 0 && s.mss !== last) seen.push([(last = s.mss), s.maxWindow]);
  }
  assert.deepEqual(seen[0], [32741, 65483], "after the handshake");
  const full = seen.find(([mss]) => mss === 65483);
  assert.ok(full !== undefined && full[1] >= 2 * 65483, `the full MSS once the window passed 130,966: ${JSON.stringify(seen)}`);
  for (const [mss, w] of seen) assert.ok(mss <= Math.floor(w / 2) || (mss === 65483 && w >= 2 * 65483), `MSS ${mss} within half of the window ${w}`);
});

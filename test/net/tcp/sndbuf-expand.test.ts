// tcp_sndbuf_expand: the send buffer is two windows of segments at Linux's per-segment memory charge,
// roundup_pow_of_two(max(mss_clamp, mss_cache) + MAX_TCP_HEADER + shinfo) + sk_buff, with the
// x86-64 distribution kernel's sizes (MAX_TCP_HEADER 320, skb_shared_info 320, sk_buff 256). The
// charge grows with the MSS: a fixed 1500-MTU charge left jumbo-frame senders short of send buffer
// (3.2-3.8 Gbit/s at MTU 16000-30000 on a 10G link, where MTU 9000 reached 9.76).
import { test } from "node:test";
import assert from "node:assert/strict";
import { sndbufPerMss } from "../../../src/net/tcp/constants.js";
import { TcpStack, type TcpSocket } from "../../../src/net/tcp/index.js";
import { unwrap } from "../../../src/util/result.js";
import { ip, linked } from "./topology.js";

test("per-segment charge: the power of two above MSS + 640 bytes, plus 256", () => {
  // 1460 + 640 = 2100 -> 4096; 1410 (a VXLAN pod's announced MSS) + 640 = 2050 -> 4096.
  assert.equal(sndbufPerMss(1460), 4096 + 256);
  assert.equal(sndbufPerMss(1410), 4096 + 256);
  // 1408 + 640 = 2048 exactly: already a power of two.
  assert.equal(sndbufPerMss(1408), 2048 + 256);
  assert.equal(sndbufPerMss(1409), 4096 + 256);
  // MTU 9000 announces 8960: 9600 -> 16384. MTU 65535 announces 65495: 66135 -> 131072.
  assert.equal(sndbufPerMss(8960), 16384 + 256);
  assert.equal(sndbufPerMss(65495), 131072 + 256);
});

function connected(mtu: number): TcpSocket {
  const t = linked({ mtu });
  unwrap(TcpStack.of(t.b).listen(5201, () => undefined));
  const s = unwrap(TcpStack.of(t.a).connect(ip("10.9.0.2"), 5201, {}));
  t.world.sim.runUntil(1_000_000);
  return s;
}

test("after the handshake the send buffer is 2 x 10 initial segments at the charge of the peer's announced MSS", () => {
  const cases: [number, number][] = [
    [1500, 2 * 10 * 4352],
    [9000, 2 * 10 * 16640],
    [65535, 2 * 10 * 131328], // 2,626,560: under tcp_wmem[2] (4 MB)
  ];
  for (const [mtu, sndbuf] of cases) {
    const s = connected(mtu);
    assert.equal(s.peerMss, mtu - 40, `MTU ${mtu}: announced MSS`);
    assert.equal(s.sndbuf, sndbuf, `MTU ${mtu}`);
  }
});

// Jumbo MSS. tcp_xmit_size_goal sizes write-queue skbs to whole segments under sk_gso_max_size (64 KB
// minus MAX_TCP_HEADER minus 1), at least one; tcp_tso_autosize's two-segment minimum only splits
// such skbs, never joins them. An MSS above 32 KB therefore leaves in one-segment packets: a
// two-segment super-packet would be longer than the 16-bit IP total length can say (it was built,
// its length field wrapped to 65482, and the receiver lost 53 bytes of every one, retransmitted
// after SACK: 0.48 Gbit/s at MTU 65535). The kernel here moves 27.8 Gbit/s over a veth of MTU 65535.
import { test } from "node:test";
import assert from "node:assert/strict";
import { TcpStack } from "../../../src/net/tcp/index.js";
import { read16 } from "../../../src/wire/bytes.js";
import { unwrap } from "../../../src/util/result.js";
import { bulkWriter, Capture, ip, linked } from "./topology.js";

function bulk(mtu: number, bytes: number) {
  const t = linked({ mtu, queueBytes: 1000 * (mtu + 14) });
  // What the sender's device transmits: super-packets whole, as the stack built them.
  const sent = Capture.on(t.ea);
  let got = 0;
  let doneAt = -1;
  let corrupt = 0;
  unwrap(TcpStack.of(t.b).listen(5201, (s) => {
    s.events = {
      onData: (_s, d) => {
        for (let i = 0; i < d.length; i++) if (d[i] !== ((got + i) & 0xff)) corrupt++;
        got += d.length;
      },
      onEnd: (r) => {
        doneAt = t.world.sim.now;
        r.close();
      },
    };
  }));
  const pump = bulkWriter(Uint8Array.from({ length: bytes }, (_, i) => i & 0xff));
  const sender = unwrap(TcpStack.of(t.a).connect(ip("10.9.0.2"), 5201, { onConnect: pump, onWritable: pump }));
  t.world.sim.run();
  return { got, doneAt, corrupt, sender, sent, world: t.world };
}

test("MTU 65535: one segment per packet, every IP length true to its frame, no retransmission, near line rate", () => {
  const r = bulk(65535, 8_000_000);
  assert.equal(r.got, 8_000_000);
  assert.equal(r.corrupt, 0);
  assert.equal(r.sender.mss, 65535 - 40 - 12);
  assert.equal(r.sender.stats.retransmits, 0);
  let data = 0;
  for (const f of r.sent.frames) {
    if (read16(f.bytes, 12) !== 0x0800) continue;
    assert.equal(read16(f.bytes, 14 + 2), f.bytes.length - 14, `IP total length of a ${f.bytes.length}-byte frame`);
    assert.ok(f.bytes.length <= 65535 + 14);
    if (f.bytes.length > 1000) data++;
  }
  assert.ok(data >= Math.ceil(8_000_000 / r.sender.mss), `${data} data frames`);
  assert.equal(r.world.ledger.dropped, 0);
  // 8 MB on a 10 Gbit/s link is 6.4 ms of wire time, plus the handshake.
  const gbps = (8_000_000 * 8) / (r.doneAt - r.sender.stats.establishedAt);
  assert.ok(gbps > 9, `${gbps.toFixed(2)} Gbit/s`);
});

test("MTU 16000 and 30000: the send buffer keeps pace with the link (it was 3.2-3.8 Gbit/s with a 1500-MTU charge)", () => {
  for (const mtu of [16000, 30000]) {
    const r = bulk(mtu, 8_000_000);
    assert.equal(r.got, 8_000_000);
    assert.equal(r.sender.stats.retransmits, 0);
    const gbps = (8_000_000 * 8) / (r.doneAt - r.sender.stats.establishedAt);
    assert.ok(gbps > 9, `MTU ${mtu}: ${gbps.toFixed(2)} Gbit/s`);
  }
});

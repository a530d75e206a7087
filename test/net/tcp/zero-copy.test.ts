// Zero-copy sending and recycled packet buffers change nothing observable: with every recycled
// buffer poisoned on release, a transfer over a lossy link (retransmissions, out-of-order queue,
// NIC GRO on and off, socket GRO batches) delivers exactly the bytes sent, send() and sendZeroCopy() put the same
// frames on the wire, and every wire frame carries valid IPv4 and TCP checksums (RFC 791 / 793).

import { after, test } from "node:test";
import assert from "node:assert/strict";
import { packetBuffers } from "../../../src/skb/buffer-pool.js";
import { GRO_TYPICAL_FLUSH_NS, TcpStack, type TcpSocket } from "../../../src/net/tcp/index.js";
import { unwrap } from "../../../src/util/result.js";
import { verifyIpv4HeaderChecksum, verifyL4ChecksumV4 } from "../../../src/wire/checksum.js";
import { read16, read32 } from "../../../src/wire/bytes.js";
import { WireCapture, assertConserved, ip, linked } from "./topology.js";

packetBuffers.poison = 0xa5;
after(() => {
  packetBuffers.poison = -1;
});

/** One immutable block the application hands over again and again, as iperf does. */
const BLOCK = Uint8Array.from({ length: 131_072 + 17 }, (_, i) => (i * 13 + (i >>> 10)) & 0xff);
const TOTAL = 3_000_000;

function run(zeroCopy: boolean, mtu: number, gro: boolean, socketGro: boolean) {
  const t = linked({ mtu, lossRate: 0.01, bandwidthBps: 10e9, latencyNs: 20_000 }, 5);
  if (!gro) t.eb.features.gro = false;
  // Socket-level GRO holds in-order payload views until its flush timer.
  if (socketGro) TcpStack.of(t.b).sysctl.groFlushNs = GRO_TYPICAL_FLUSH_NS;
  const wire = WireCapture.on(t.link);
  const expected = new Uint8Array(TOTAL);
  const received = new Uint8Array(TOTAL);
  let got = 0;
  unwrap(TcpStack.of(t.b).listen(5201, (sock) => {
    sock.events = {
      onData: (_s, d) => {
        received.set(d, got);
        got += d.length;
      },
      onEnd: (s) => s.close(),
    };
  }));
  let sent = 0;
  const pump = (s: TcpSocket): void => {
    while (sent < TOTAL) {
      const len = Math.min(BLOCK.length, TOTAL - sent);
      const n = zeroCopy ? s.sendZeroCopy(BLOCK, 0, len) : s.send(BLOCK, 0, len);
      expected.set(BLOCK.subarray(0, n), sent);
      sent += n;
      if (n < len) return;
    }
    s.end();
  };
  const client = TcpStack.of(t.a);
  unwrap(client.connect(ip("10.9.0.2"), 5201, { onConnect: pump, onWritable: pump }));
  t.world.sim.run();
  assertConserved(t.world);
  return { expected, received, got, wire: wire.frames, retransmits: client.counters.retransSegments };
}

for (const [mtu, gro, socketGro] of [[1500, true, false], [9000, true, false], [9000, false, false], [9000, false, true]] as const) {
  test(`MTU ${mtu}, NIC GRO ${gro ? "on" : "off"}, socket GRO ${socketGro ? "on" : "off"}, 1% loss: exact delivery, same wire frames with send() and sendZeroCopy()`, () => {
    const copied = run(false, mtu, gro, socketGro);
    const shared = run(true, mtu, gro, socketGro);
    assert.ok(copied.retransmits > 0, "the loss made TCP retransmit (the out-of-order path ran)");
    for (const r of [copied, shared]) {
      assert.equal(r.got, TOTAL);
      assert.ok(Buffer.from(r.received).equals(Buffer.from(r.expected)), "received bytes equal the bytes sent");
    }
    assert.equal(shared.wire.length, copied.wire.length);
    let tcpFrames = 0;
    for (let i = 0; i < copied.wire.length; i++) {
      const f = copied.wire[i]!;
      assert.ok(Buffer.from(f.bytes).equals(Buffer.from(shared.wire[i]!.bytes)), `wire frame ${i} differs`);
      assert.equal(f.time, shared.wire[i]!.time);
      if (f.bytes[23] !== 6) continue;
      tcpFrames++;
      const ihl = (f.bytes[14]! & 0x0f) * 4;
      assert.ok(verifyIpv4HeaderChecksum(f.bytes, 14, ihl), `frame ${i}: IPv4 header checksum`);
      assert.ok(verifyL4ChecksumV4(f.bytes, 14 + ihl, read16(f.bytes, 16) - ihl, 6, read32(f.bytes, 26), read32(f.bytes, 30)), `frame ${i}: TCP checksum`);
    }
    assert.ok(tcpFrames > TOTAL / mtu, "the wire carried the transfer as MTU-sized segments");
  });
}

// The IPv4 header of a TCP segment (or GSO super-packet) is summed once, by ip_local_out: emit leaves it unsummed unless
// hops are traced (then the socket's hop sees it summed, as before). Either way every frame on the
// wire must carry a good header checksum, and the frames must be the same bytes with tracing on or
// off (the invalidating case: a hop sink added).

import { test } from "node:test";
import assert from "node:assert/strict";
import { TcpStack } from "../../../src/net/tcp/index.js";
import { RingSink } from "../../../src/trace/tracer.js";
import { verifyIpv4HeaderChecksum } from "../../../src/wire/checksum.js";
import { unwrap } from "../../../src/util/result.js";
import { Capture, ip, linked, sendAll } from "./topology.js";

/** A short transfer a -> b (data, ACKs, FIN); the TCP frames both devices sent, in order. */
function transfer(traceHops: boolean): Uint8Array[] {
  const t = linked({ bandwidthBps: 10e9, latencyNs: 20_000 });
  const sink = new RingSink();
  if (traceHops) t.world.tracer.addSink(sink);
  const capture = Capture.on([t.ea, t.eb]);
  unwrap(TcpStack.of(t.b).listen(5201, (sock) => {
    sock.events = { onReceive: () => undefined, onEnd: (s) => s.close() };
  }));
  const data = new Uint8Array(300_000).map((_, i) => i * 7);
  const sent = sendAll(t.a, ip("10.9.0.2"), 5201, data);
  t.world.sim.run();
  assert.equal(sent(), data.length);
  if (traceHops) assert.ok(sink.hopRecords.length > 0, "hops were traced");
  return capture.tcp().map((f) => f.bytes);
}

test("TCP segments leave with a good IPv4 header checksum, the same bytes with hop tracing on or off", () => {
  const plain = transfer(false);
  const traced = transfer(true);
  assert.ok(plain.length > 10, `frames captured (${plain.length})`);
  for (const frame of plain) assert.ok(verifyIpv4HeaderChecksum(frame, 14, 20), "header checksum good");
  assert.deepEqual(traced, plain);
});

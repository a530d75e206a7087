// The bulk transfer workload: -P parallel streams share a bottleneck (aggregate near its payload
// rate, every stream gets a fair part), and a run for a duration stops on time.

import { test } from "node:test";
import assert from "node:assert/strict";
import { BulkSink, runBulk, type BulkResult } from "../../../src/cluster/workloads/index.js";
import { unwrap } from "../../../src/util/result.js";
import { assertConserved, ip, routed } from "../../net/tcp/topology.js";

function run(options: Parameters<typeof runBulk>[2]) {
  const t = routed({ bandwidthBps: 1e9, latencyNs: 250_000, queueBytes: 300 * 1514 }, { bandwidthBps: 10e9, latencyNs: 10_000 });
  const sink = new BulkSink(t.s);
  unwrap(sink.start());
  let result: BulkResult | null = null;
  runBulk(t.c, ip("10.2.0.2"), options, (r) => (result = r));
  t.world.sim.run();
  assert.ok(result !== null);
  assertConserved(t.world);
  return { result: result as BulkResult, sink };
}

test("four parallel streams fill a 1 Gbit/s bottleneck and share it", () => {
  const { result, sink } = run({ streams: 4, bytes: 1_500_000 });
  assert.equal(result.streams.length, 4);
  assert.equal(result.bytes, 6_000_000);
  assert.equal(sink.bytes, 6_000_000);
  const ceiling = 1e9 * (1448 / 1538);
  assert.ok(result.bitsPerSecond > 0.8 * ceiling && result.bitsPerSecond <= ceiling, `${(result.bitsPerSecond / 1e6).toFixed(0)} Mbit/s`);
  const ends = result.streams.map((s) => s.endNs);
  assert.ok(Math.max(...ends) < 1.6 * Math.min(...ends), `stream end times ${ends.map((e) => (e / 1e6).toFixed(1)).join(", ")} ms`);
});

test("a timed run stops writing after its duration; the send buffer then drains", () => {
  const { result } = run({ streams: 1, durationNs: 50e6 });
  const s = result.streams[0]!;
  // What was still in the (autotuned, up to 4 MB) send buffer takes at most ~35 ms more at 1 Gbit/s.
  assert.ok(s.endNs - s.startNs >= 50e6 && s.endNs - s.startNs < 90e6, `ran ${(s.endNs - s.startNs) / 1e6} ms`);
  assert.ok(result.bytes > 3_000_000, `${result.bytes} bytes in 50 ms`);
});

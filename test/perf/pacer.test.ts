// The Pacer's rate: each budget's cores over its work per byte its own side has handled. A receiver's
// cost is per byte read, not per byte written: data still in the sender's buffer or in flight has
// cost the receiver nothing yet, and counting it made a saturated receiver's core 108% busy once the
// send buffer held several windows (bare metal, 40 GbE, MTU 9000, one stream).
import { test } from "node:test";
import assert from "node:assert/strict";
import type { CoreBudget } from "../../src/perf/core-budget.js";
import { Pacer } from "../../src/perf/pacer.js";
import { costModelFor, DEFAULT_BENCH_OPTIONS } from "../../src/perf/runner.js";
import { FLAVOURS } from "../../src/perf/flavours.js";
import { runCell } from "../../src/perf/cell.js";

/** A budget with fixed figures (the Pacer reads only these two). */
const budget = (used: number, cores: number): CoreBudget => ({ used, cores }) as unknown as CoreBudget;

test("the rate is the lowest side's cores per ns over its work per byte handled", () => {
  let read = 0;
  const p = new Pacer([{ budget: budget(2_000, 1), handled: null }, { budget: budget(3_000, 2), handled: () => read }], 0);
  p.consume(4_000);
  read = 1_000;
  p.tick(100);
  // Sender: 2,000 ns for 4,000 bytes written -> 2 bytes/ns. Receiver: 3,000 ns for 1,000 bytes read on 2 cores -> 0.667.
  assert.equal(p.rate, (2 * 1_000) / 3_000);
  read = 3_000;
  p.tick(200);
  // Receiver: 3,000 ns for 3,000 bytes on 2 cores -> 2 bytes/ns; the sender's 2 bytes/ns ties it.
  assert.equal(p.rate, 2);
});

test("a side that has handled nothing yet does not bound the rate", () => {
  const p = new Pacer([{ budget: budget(2_000, 1), handled: null }, { budget: budget(5_000, 1), handled: () => 0 }], 0);
  p.consume(1_000);
  p.tick(100);
  assert.equal(p.rate, 0.5);
});

test("a CPU-bound single stream keeps its saturated receiver's core at 100% busy, not above", () => {
  const options = { ...DEFAULT_BENCH_OPTIONS, linkGbps: 40, cpus: 32 };
  const cell = runCell({
    flavour: FLAVOURS["bare-metal"],
    path: "pod-to-pod",
    protocol: "TCP",
    streams: 1,
    linkGbps: 40,
    hostMtu: 9000,
    podMtu: 9000,
    durationNs: 30_000_000,
    cpus: 32,
    model: costModelFor(options),
    seed: 1,
    offload: true,
  });
  assert.ok(cell.ok, cell.ok ? "" : cell.error);
  const r = cell.value;
  assert.ok(r.gbps < 38, `CPU-bound below the 40G link: ${r.gbps}`);
  assert.ok(r.server.coreBusy > 0.99, `receiver saturated: ${r.server.coreBusy}`);
  assert.ok(r.server.coreBusy <= 1.005, `receiver core at most 100% busy: ${r.server.coreBusy}`);
  assert.ok(r.client.coreBusy <= 1.005, `sender core at most 100% busy: ${r.client.coreBusy}`);
});

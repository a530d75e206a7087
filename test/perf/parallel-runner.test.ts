// The comparison run in worker threads gives the serial runner's results to the byte (every cell's
// figures and both sides' work counts, in plan order), whatever the number of threads, and its
// progress adds up to every cell done.
import { test } from "node:test";
import assert from "node:assert/strict";
import { MessageChannel } from "node:worker_threads";
import { Work } from "../../src/metrics/index.js";
import { runCellTask } from "../../src/perf/cell-worker.js";
import { autoJobs, comparisonJson, DEFAULT_BENCH_OPTIONS, formatComparison, runComparison, runComparisonInWorkers, type BenchOptions, type ProgressReport } from "../../src/perf/index.js";

const options: BenchOptions = {
  ...DEFAULT_BENCH_OPTIONS,
  flavours: ["bare-metal", "calico-vxlan", "flannel-host-gw"],
  linkGbps: 10,
  hostMtus: [1500],
  streams: [1, 2],
  protocols: ["TCP", "UDP"],
  paths: ["pod-to-pod"],
  durationNs: 8_000_000,
};

test("cells run in 2 or 3 worker threads give the serial run's results, in plan order", async () => {
  const serial = runComparison(options);
  assert.ok(serial.ok);
  assert.equal(serial.value.results.length, 12);
  for (const jobs of [2, 3]) {
    const reports: ProgressReport[] = [];
    const parallel = await runComparisonInWorkers(options, jobs, (p) => reports.push(p));
    assert.ok(parallel.ok);
    assert.equal(comparisonJson(parallel.value), comparisonJson(serial.value), `jobs ${jobs}: JSON`);
    assert.equal(formatComparison(parallel.value), formatComparison(serial.value), `jobs ${jobs}: table`);
    assert.deepEqual(parallel.value.failures, []);
    parallel.value.results.forEach((r, i) => {
      const s = serial.value.results[i]!;
      assert.deepEqual(r.spec, s.spec, `cell ${i}: spec`);
      assert.equal(r.spec.flavour, s.spec.flavour, `cell ${i}: the main thread's own flavour object`);
      assert.ok(r.client.work instanceof Work && r.server.work instanceof Work);
      assert.deepEqual([...r.client.work.counts], [...s.client.work.counts], `cell ${i}: client work`);
      assert.deepEqual([...r.server.work.counts], [...s.server.work.counts], `cell ${i}: server work`);
      assert.deepEqual({ ...r, spec: null, client: null, server: null }, { ...s, spec: null, client: null, server: null }, `cell ${i}`);
    });
    const last = reports.at(-1)!;
    assert.deepEqual(last, { done: 12, total: 12, label: "done" });
    assert.ok(reports.every((p) => p.done >= 0 && p.done <= 12 && p.total === 12));
  }
});

test("the parallel runner rejects what the serial one rejects, before starting a thread", async () => {
  const bad = await runComparisonInWorkers({ ...options, streams: [0] }, 2);
  assert.ok(!bad.ok);
  assert.match(bad.error, /--streams: 0/);
});

test("--jobs auto: one thread per CPU (at most one per cell) for cells of 1 s or more, else the serial runner", () => {
  const long = { ...options, durationNs: 1_000_000_000 };
  assert.equal(autoJobs(long, 8), 8);
  assert.equal(autoJobs(long, 32), 12, "no more threads than cells");
  assert.equal(autoJobs(long, 1), 1);
  assert.equal(autoJobs({ ...options, durationNs: 999_999_999 }, 8), 1, "short cells do not repay a worker's start-up");
});

test("a worker asked for a cell its plan does not have answers with a failure and closes its progress port", async () => {
  const { port1, port2 } = new MessageChannel();
  const messages: unknown[] = [];
  port1.on("message", (m) => messages.push(m));
  const closed = new Promise<void>((resolve) => port1.once("close", () => resolve()));
  const outcome = runCellTask({ options, index: 12, progress: port2 });
  assert.deepEqual(outcome, { ok: false, error: "the comparison has no cell 12" });
  await closed;
  assert.deepEqual(messages, [], "no progress for a cell that did not run");
});

// The comparison run on several cores: each cell in a worker thread (a tinypool of `jobs` threads,
// reused across cells), at most `jobs` at once. Cells share nothing and each is seeded alone, so the
// results, put back in plan order, are the serial runner's to the byte; only the wall time differs.
import { MessageChannel } from "node:worker_threads";
import { Tinypool } from "tinypool";
import { ok, type Result } from "../util/result.js";
import { cellFromWire, type CellOutcome } from "./cell-wire.js";
import type { CellTask } from "./cell-worker.js";
import { assembleComparison, cellLabel, checkOptions, planCells, type BenchOptions, type Comparison, type ProgressReport } from "./runner.js";

const WORKER_FILE = new URL("./cell-worker.js", import.meta.url).href;
/**
 * A worker first loads the emulator and warms its JIT again (~0.5 s and ~1 s of CPU here), which the
 * cells of a serial run share: measured on a 2-core VM, four 40G 8-stream cells ran 0.7-0.8x as fast
 * on two threads at 0.1 s simulated each, and 1.25-1.45x as fast at 1 s.
 */
const WORKERS_PAY_OFF_NS = 1_000_000_000;

/** --jobs auto: a thread per available CPU (at most one per cell) once cells are long enough to repay a worker's start-up, else 1. */
export function autoJobs(o: BenchOptions, cpus: number): number {
  if (o.durationNs < WORKERS_PAY_OFF_NS) return 1;
  return Math.max(1, Math.min(cpus, planCells(o).length));
}

export async function runComparisonInWorkers(
  o: BenchOptions,
  jobs: number,
  onProgress: (p: ProgressReport) => void = () => {},
): Promise<Result<Comparison, string>> {
  const checked = checkOptions(o);
  if (!checked.ok) return checked;
  const cells = planCells(o);
  const threads = Math.max(1, Math.min(jobs, cells.length));
  const pool = new Tinypool({ filename: WORKER_FILE, minThreads: threads, maxThreads: threads });
  const progress = new ProgressSum(cells.map(cellLabel), onProgress);
  try {
    const outcomes = await Promise.all(
      cells.map(async (cell, index) => {
        const channel = new MessageChannel();
        channel.port1.on("message", (fraction: number) => progress.set(index, fraction));
        const task: CellTask = { options: o, index, progress: channel.port2 };
        try {
          const outcome = (await pool.run(task, { name: "runCellTask", transferList: [channel.port2] })) as CellOutcome;
          return outcome.ok ? ok(cellFromWire(outcome.value, cell)) : outcome;
        } catch (e) {
          return { ok: false as const, error: `worker thread failed: ${e instanceof Error ? e.message : String(e)}` };
        } finally {
          channel.port1.close();
          progress.set(index, 1);
        }
      }),
    );
    progress.finish();
    return ok(assembleComparison(o, cells, outcomes));
  } finally {
    await pool.destroy();
  }
}

/** The comparison's progress as the sum of its cells' finished fractions, labelled by the first cell still running. */
class ProgressSum {
  private readonly fractions: Float64Array;

  constructor(
    private readonly labels: readonly string[],
    private readonly report: (p: ProgressReport) => void,
  ) {
    this.fractions = new Float64Array(labels.length);
  }

  set(index: number, fraction: number): void {
    this.fractions[index] = fraction;
    let done = 0;
    let running = -1;
    for (let i = 0; i < this.fractions.length; i++) {
      const f = this.fractions[i]!;
      done += f;
      if (running < 0 && f > 0 && f < 1) running = i;
    }
    if (done < this.labels.length) this.report({ done, total: this.labels.length, label: running < 0 ? "" : this.labels[running]! });
  }

  finish(): void {
    this.report({ done: this.labels.length, total: this.labels.length, label: "done" });
  }
}

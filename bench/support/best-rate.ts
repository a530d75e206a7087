// Best-of-rounds throughput for a set of tinybench tasks: several short alternating runs, keeping
// each task's best rate, which is robust on a shared, noisy CPU. Rates are operations per second
// where one task iteration performs `batch` operations.
import { Bench } from "tinybench";

export type RateTask = { name: string; run: () => void };

export interface BestRateOptions {
  /** Operations one call of a task's `run` performs. */
  readonly batch: number;
  readonly rounds: number;
  /** tinybench time per task per round, ms. */
  readonly timeMs: number;
  /** Warm-up of the first round, ms (later rounds run warm). */
  readonly warmupMs: number;
}

export async function bestRates(tasks: readonly RateTask[], o: BestRateOptions): Promise<Map<string, number>> {
  const best = new Map<string, number>(tasks.map((t) => [t.name, 0]));
  for (let round = 0; round < o.rounds; round++) {
    const bench = new Bench({ time: o.timeMs, warmupTime: round === 0 ? o.warmupMs : 0 });
    for (const t of tasks) bench.add(t.name, t.run);
    await bench.run();
    for (const t of tasks) {
      const result = bench.tasks.find((x) => x.name === t.name)?.result;
      if (result === undefined || !("period" in result)) throw new Error(`bench task ${t.name} has no result`);
      best.set(t.name, Math.max(best.get(t.name)!, (o.batch * 1000) / result.period));
    }
  }
  return best;
}

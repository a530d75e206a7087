// Engine throughput in the hold model (pop one event, schedule one with an exponential delay from the
// seeded RNG) at 10^3, 10^5 and 10^6 pending events: the typed-array Simulator against a plain
// object-per-event binary heap measured in the same run. Reports events/s and the ratio.

import { Bench } from "tinybench";
import { Simulator } from "../src/engine/simulator.js";
import { SeededRng } from "../src/util/rng.js";

const SIZES = [1_000, 100_000, 1_000_000] as const;
const EVENTS_PER_ITERATION = 2_000;
const MEAN_DELAY_NS = 1_000_000;
const SEED = 12345;

function exponentialDelay(rng: SeededRng): number {
  return Math.floor(-Math.log(1 - rng.nextFloat()) * MEAN_DELAY_NS);
}

// ---- Baseline: one object per event in a binary heap with a comparator ----

interface ObjectEvent {
  time: number;
  seq: number;
  fn: (arg: unknown) => void;
  arg: unknown;
}

const compareEvents = (a: ObjectEvent, b: ObjectEvent): number => a.time - b.time || a.seq - b.seq;

class ObjectHeapSimulator {
  readonly rng: SeededRng;
  now = 0;
  private seq = 0;
  private readonly heap: ObjectEvent[] = [];

  constructor(seed: number) {
    this.rng = new SeededRng(seed);
  }

  schedule(delayNs: number, fn: (arg: unknown) => void, arg?: unknown): void {
    const heap = this.heap;
    const ev: ObjectEvent = { time: this.now + delayNs, seq: this.seq++, fn, arg };
    let i = heap.length;
    heap.push(ev);
    while (i > 0) {
      const p = (i - 1) >> 1;
      const parent = heap[p]!;
      if (compareEvents(parent, ev) <= 0) break;
      heap[i] = parent;
      i = p;
    }
    heap[i] = ev;
  }

  step(count: number): void {
    const heap = this.heap;
    for (let k = 0; k < count && heap.length > 0; k++) {
      const top = heap[0]!;
      const last = heap.pop()!;
      const n = heap.length;
      if (n > 0) {
        let i = 0;
        for (;;) {
          const l = 2 * i + 1;
          if (l >= n) break;
          const r = l + 1;
          const c = r < n && compareEvents(heap[r]!, heap[l]!) < 0 ? r : l;
          if (compareEvents(last, heap[c]!) <= 0) break;
          heap[i] = heap[c]!;
          i = c;
        }
        heap[i] = last;
      }
      this.now = top.time;
      top.fn(top.arg);
    }
  }
}

// ---- Hold-model set-ups ----

interface HoldModel {
  step(count: number): void;
}

function typedHold(pending: number): HoldModel {
  const sim = new Simulator({ seed: SEED });
  const hold = (): void => {
    sim.schedule(exponentialDelay(sim.rng), hold);
  };
  for (let i = 0; i < pending; i++) sim.schedule(exponentialDelay(sim.rng), hold);
  return sim;
}

function objectHold(pending: number): HoldModel {
  const sim = new ObjectHeapSimulator(SEED);
  const hold = (): void => {
    sim.schedule(exponentialDelay(sim.rng), hold);
  };
  for (let i = 0; i < pending; i++) sim.schedule(exponentialDelay(sim.rng), hold);
  return sim;
}

const collectGarbage = (globalThis as { gc?: () => void }).gc;
const ROUNDS = 5;

/** Best events/s of each model over ROUNDS short alternating runs (robust to a shared, noisy CPU). */
async function measure(pending: number): Promise<{ typed: number; object: number }> {
  collectGarbage?.();
  const typed = typedHold(pending);
  const object = objectHold(pending);
  typed.step(pending); // reach the hold model's steady state before measuring
  object.step(pending);
  const best = { typed: 0, object: 0 };
  for (let round = 0; round < ROUNDS; round++) {
    const bench = new Bench({ time: 200, warmupTime: round === 0 ? 100 : 0 });
    bench.add("typed", () => typed.step(EVENTS_PER_ITERATION));
    bench.add("object", () => object.step(EVENTS_PER_ITERATION));
    await bench.run();
    best.typed = Math.max(best.typed, eventsPerSecond(bench, "typed"));
    best.object = Math.max(best.object, eventsPerSecond(bench, "object"));
  }
  return best;
}

function eventsPerSecond(bench: Bench, name: string): number {
  const result = bench.tasks.find((t) => t.name === name)?.result;
  if (result === undefined || !("period" in result)) throw new Error(`bench task ${name} has no result`);
  return (EVENTS_PER_ITERATION * 1000) / result.period;
}

const fmt = (x: number): string => `${(x / 1e6).toFixed(2)} M/s`;
const rows = [];
for (const pending of SIZES) {
  const { typed, object } = await measure(pending);
  rows.push({ pending, "typed heap": fmt(typed), "object heap": fmt(object), ratio: `${(typed / object).toFixed(2)}x` });
}
console.log(`engine hold model: events/s, best of ${ROUNDS} rounds; ratio = typed / object (target >= 3x at 10^6)`);
console.table(rows);

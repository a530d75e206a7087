// The discrete-event simulator: integer-nanosecond clock, events ordered by (time, seq), cancellable
// numeric ids, run until idle / until a time / for n events / until stop(), and the model's seeded RNG.

import { SeededRng } from "../util/rng.js";
import { InstantQueue } from "./instant-queue.js";
import { KeyHeap } from "./key-heap.js";
import { EventSlots, SLOT_MASK } from "./event-slots.js";
import type { EventFn } from "./event-slots.js";

export type { EventFn } from "./event-slots.js";
export { MAX_PENDING_EVENTS } from "./event-slots.js";

export interface SimulatorOptions {
  /** Seed of `rng` (default 1). */
  readonly seed?: number;
}

/** Cancelled entries stay in the heap until popped; compact once they exceed this and the live count. */
const COMPACT_MIN_DEAD = 1024;

/**
 * Pending events live in a (time, seq) heap, except those scheduled for the current instant, which
 * wait in an InstantQueue. A heap entry at `now` was scheduled before the clock reached `now`, and so
 * before every queued one: it runs first; the queue's entries run (in order) before any later time.
 *
 * Real-time seam (issue 9, not built here): a driver maps the wall clock to sim time, calls
 * runUntil(t), sleeps until the wall clock reaches nextEventTime, and schedules external input with
 * scheduleAt(arrival time). The run loop itself never looks at a clock.
 */
export class Simulator {
  readonly rng: SeededRng;
  private readonly heap = new KeyHeap();
  private readonly instant = new InstantQueue();
  private readonly slots = new EventSlots();
  private nowNs = 0;
  private nextSeq = 0;
  private executedCount = 0;
  private stopRequested = false;
  private running = false;

  constructor(options: SimulatorOptions = {}) {
    this.rng = new SeededRng(options.seed ?? 1);
  }

  /** Current simulated time in integer nanoseconds. */
  get now(): number {
    return this.nowNs;
  }

  /** Events scheduled and neither run nor cancelled yet (exact). */
  get pending(): number {
    return this.slots.liveCount;
  }

  /** Events run since construction. */
  get executed(): number {
    return this.executedCount;
  }

  /** Queued entries incl. cancelled ones not yet discarded (diagnostic; <= max(2 x pending, pending + 1024) + 1). */
  get heapEntries(): number {
    return this.heap.size + this.instant.size;
  }

  /** Time of the next pending event, or Infinity when idle. */
  get nextEventTime(): number {
    if (this.discardCancelledInstant()) return this.nowNs;
    return this.discardCancelledTop() ? this.heap.topTime() : Number.POSITIVE_INFINITY;
  }

  /**
   * Runs `fn(arg)` after `delayNs` (a non-negative integer) nanoseconds; returns the event id
   * (never 0). Events at equal times run in the order they were scheduled.
   */
  schedule(delayNs: number, fn: (arg: undefined) => void): number;
  schedule<A>(delayNs: number, fn: (arg: A) => void, arg: A): number;
  schedule<A>(delayNs: number, fn: (arg: A) => void, arg?: A): number {
    if (!Number.isInteger(delayNs) || delayNs < 0) {
      throw new RangeError(`engine.schedule: delayNs must be a non-negative integer, got ${delayNs}`);
    }
    if (delayNs === 0) return this.insertNow(fn as EventFn, arg);
    return this.insert(this.nowNs + delayNs, fn as EventFn, arg, "schedule");
  }

  /** Runs `fn(arg)` at absolute time `timeNs` (an integer, not before `now`); returns the event id. */
  scheduleAt(timeNs: number, fn: (arg: undefined) => void): number;
  scheduleAt<A>(timeNs: number, fn: (arg: A) => void, arg: A): number;
  scheduleAt<A>(timeNs: number, fn: (arg: A) => void, arg?: A): number {
    if (!Number.isInteger(timeNs) || timeNs < this.nowNs) {
      throw new RangeError(`engine.scheduleAt: timeNs must be an integer >= now (${this.nowNs}), got ${timeNs}`);
    }
    if (timeNs === this.nowNs) return this.insertNow(fn as EventFn, arg);
    return this.insert(timeNs, fn as EventFn, arg, "scheduleAt");
  }

  /** Cancels a pending event. False if the id is stale (already run or cancelled) or unknown. */
  cancel(id: number): boolean {
    const slots = this.slots;
    if (!slots.isLive(id)) return false;
    slots.release(id & SLOT_MASK);
    const dead = this.heap.size + this.instant.size - slots.liveCount;
    if (dead > COMPACT_MIN_DEAD && dead > slots.liveCount) {
      const live = (v: number): boolean => slots.isLive(v);
      this.heap.retain(live);
      this.instant.retain(live);
    }
    return true;
  }

  /** Runs until no events remain or stop() is called; returns the number of events run. */
  run(): number {
    return this.loop(Number.POSITIVE_INFINITY, Number.POSITIVE_INFINITY);
  }

  /**
   * Runs every event with time <= timeNs, then sets now = timeNs (unless stop() ended the run early,
   * which leaves now at the last event run). Returns the number of events run.
   */
  runUntil(timeNs: number): number {
    if (!Number.isInteger(timeNs) || timeNs < this.nowNs) {
      throw new RangeError(`engine.runUntil: timeNs must be an integer >= now (${this.nowNs}), got ${timeNs}`);
    }
    const ran = this.loop(timeNs, Number.POSITIVE_INFINITY);
    if (!this.stopRequested) this.nowNs = timeNs;
    return ran;
  }

  /** Runs at most `count` events (default 1); returns how many ran. */
  step(count = 1): number {
    if (!Number.isInteger(count) || count < 0) {
      throw new RangeError(`engine.step: count must be a non-negative integer, got ${count}`);
    }
    return this.loop(Number.POSITIVE_INFINITY, count);
  }

  /** Ends the current run/runUntil/step after the running handler returns; a later call resumes. */
  stop(): void {
    this.stopRequested = true;
  }

  private insert(time: number, fn: EventFn, arg: unknown, where: string): number {
    if (time > Number.MAX_SAFE_INTEGER) {
      throw new RangeError(`engine.${where}: event time ${time} ns is beyond 2^53 - 1`);
    }
    const id = this.slots.allocate(fn, arg);
    this.heap.push(time, this.nextSeq++, id);
    return id;
  }

  private insertNow(fn: EventFn, arg: unknown): number {
    const id = this.slots.allocate(fn, arg);
    this.instant.push(id);
    return id;
  }

  /** Drops cancelled entries at the instant queue's head; true if a live event is then at its head. */
  private discardCancelledInstant(): boolean {
    const instant = this.instant;
    while (instant.size > 0) {
      if (this.slots.isLive(instant.peek())) return true;
      instant.shift();
    }
    return false;
  }

  /** Pops cancelled entries off the top; true if a live event is then at the top. */
  private discardCancelledTop(): boolean {
    const heap = this.heap;
    while (heap.size > 0) {
      if (this.slots.isLive(heap.topValue())) return true;
      heap.removeTop();
    }
    return false;
  }

  private loop(limitTime: number, maxEvents: number): number {
    if (this.running) throw new Error("engine: run/runUntil/step called from inside an event handler");
    this.running = true;
    this.stopRequested = false;
    const heap = this.heap;
    const instant = this.instant;
    const slots = this.slots;
    let ran = 0;
    try {
      while (ran < maxEvents) {
        let id: number;
        let time: number;
        if (instant.size > 0 && (heap.size === 0 || heap.topTime() > this.nowNs)) {
          // This instant's queue: its time is now, never beyond limitTime (which is >= now).
          id = instant.shift();
          if (!slots.isLive(id)) continue;
          time = this.nowNs;
        } else {
          if (heap.size === 0) break;
          id = heap.topValue();
          if (!slots.isLive(id)) {
            heap.removeTop();
            continue;
          }
          time = heap.topTime();
          if (time > limitTime) break;
          heap.removeTop();
        }
        const slot = id & SLOT_MASK;
        const fn = slots.fnAt(slot);
        const arg = slots.argAt(slot);
        slots.release(slot);
        this.nowNs = time;
        ran++;
        this.executedCount++;
        fn(arg);
        if (this.stopRequested) break;
      }
    } finally {
      this.running = false;
    }
    return ran;
  }
}

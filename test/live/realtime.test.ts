// RealtimeDriver on a hand-driven clock: events run when the wall clock (times the rate) reaches
// their time and not before, external input lands at the wall clock's simulated time, a slow
// handler is measured and reported as lag past the bound (and its recovery), and a throwing
// handler stops the driver with the error.

import { test } from "node:test";
import assert from "node:assert/strict";
import { Simulator } from "../../src/engine/simulator.js";
import { RealtimeDriver, type LagEvent, type RealtimeHost } from "../../src/engine/realtime.js";

const MS = 1_000_000;

/** A wall clock that moves only when the test says; a 0 ms timer (a spin) costs 0.1 ms. */
class ManualHost implements RealtimeHost {
  now = 0;
  readonly originEpochMs = 1_700_000_000_000;
  private timers: { at: number; fn: () => void }[] = [];

  nowMs(): number {
    return this.now;
  }

  setTimer(fn: () => void, ms: number): unknown {
    const t = { at: this.now + (ms <= 0 ? 0.1 : ms), fn };
    this.timers.push(t);
    return t;
  }

  clearTimer(handle: unknown): void {
    this.timers = this.timers.filter((t) => t !== handle);
  }

  get pendingTimers(): number {
    return this.timers.length;
  }

  /** Fires the timers due up to `until`, in time order, moving the clock to each; then sets now = until. */
  advanceTo(until: number): void {
    for (let guard = 0; guard < 100_000; guard++) {
      let next: { at: number; fn: () => void } | undefined;
      for (const t of this.timers) if (t.at <= until && (next === undefined || t.at < next.at)) next = t;
      if (next === undefined) break;
      this.timers = this.timers.filter((t) => t !== next);
      if (next.at > this.now) this.now = next.at;
      next.fn();
    }
    if (until > this.now) this.now = until;
  }
}

test("events run when the wall clock reaches their simulated time, not before", () => {
  const host = new ManualHost();
  const sim = new Simulator();
  const ran: { sim: number; wall: number }[] = [];
  sim.schedule(10 * MS, () => ran.push({ sim: sim.now, wall: host.now }));
  const driver = new RealtimeDriver(sim, { host });
  driver.start();
  host.advanceTo(9.5);
  assert.equal(ran.length, 0);
  assert.ok(host.pendingTimers > 0, "the driver keeps a wake-up armed for the pending event");
  host.advanceTo(11);
  assert.equal(ran.length, 1);
  assert.equal(ran[0]!.sim, 10 * MS);
  assert.ok(ran[0]!.wall >= 10 && ran[0]!.wall < 10.2, `ran at wall ${ran[0]!.wall} ms`);
  assert.equal(driver.stats.events, 1);
  assert.equal(driver.stats.episodes, 0);
});

test("the rate scales simulated time against the wall clock", () => {
  const host = new ManualHost();
  const sim = new Simulator();
  let wall = -1;
  sim.schedule(10 * MS, () => (wall = host.now));
  const driver = new RealtimeDriver(sim, { host, rate: 0.5 });
  driver.start();
  host.advanceTo(19.8);
  assert.equal(wall, -1, "at rate 0.5, 10 ms of simulated time take 20 ms of wall time");
  host.advanceTo(21);
  assert.ok(wall >= 20 && wall < 20.2, `ran at wall ${wall} ms`);
  assert.equal(driver.epochNsAt(10 * MS), BigInt((host.originEpochMs + 20) * 1e6));
});

test("injected input lands at the simulated time the wall clock has reached, and wakes an idle driver", () => {
  const host = new ManualHost();
  const sim = new Simulator();
  const driver = new RealtimeDriver(sim, { host });
  driver.start();
  host.advanceTo(7);
  assert.equal(host.pendingTimers, 0, "nothing pending: the driver sleeps without a timer");
  let at = -1;
  driver.inject((t: number) => (at = t + sim.now), 0);
  assert.equal(host.pendingTimers, 1, "inject armed an immediate wake-up");
  host.advanceTo(7.5);
  assert.equal(at, 7 * MS);
  assert.equal(driver.stats.injected, 1);
});

test("a slow handler is reported as lag past the bound, then as recovered", () => {
  const host = new ManualHost();
  const sim = new Simulator();
  const events: LagEvent[] = [];
  for (let i = 1; i <= 10; i++) sim.schedule(i * 10 * MS, () => (host.now += i === 2 ? 50 : 0.01));
  const driver = new RealtimeDriver(sim, { host, maxLagNs: 20 * MS, onLag: (e) => events.push(e) });
  driver.start();
  host.advanceTo(200);
  assert.equal(events.length, 2, JSON.stringify(events));
  const [behind, recovered] = events;
  assert.equal(behind!.kind, "behind");
  assert.ok(behind!.lagNs >= 50 * MS, `lag ${behind!.lagNs}`);
  assert.equal(behind!.boundNs, 20 * MS);
  assert.equal(recovered!.kind, "recovered");
  assert.ok(recovered!.kind === "recovered" && recovered!.worstNs >= 50 * MS);
  assert.equal(driver.stats.episodes, 1);
  assert.ok(driver.stats.maxLagNs >= 50 * MS);
  assert.equal(driver.isBehind, false);
});

test("a slice runs at most maxEventsPerSlice events before letting I/O in", () => {
  const host = new ManualHost();
  const sim = new Simulator();
  let count = 0;
  for (let i = 0; i < 10; i++) sim.schedule(1 * MS, () => count++);
  const driver = new RealtimeDriver(sim, { host, maxEventsPerSlice: 3 });
  driver.start();
  host.advanceTo(1.1); // the first wake-up at or after 1 ms runs one slice
  assert.ok(count >= 3 && count < 10, `count ${count}`);
  assert.equal(count % 3, 0, "whole slices of 3");
  host.advanceTo(5);
  assert.equal(count, 10);
});

test("a throwing handler stops the driver and reports the error", () => {
  const host = new ManualHost();
  const sim = new Simulator();
  const errors: unknown[] = [];
  sim.schedule(MS, () => {
    throw new Error("boom");
  });
  sim.schedule(2 * MS, () => assert.fail("must not run after the error"));
  const driver = new RealtimeDriver(sim, { host, onError: (e) => errors.push(e) });
  driver.start();
  host.advanceTo(10);
  assert.equal(errors.length, 1);
  assert.match(String(errors[0]), /boom/);
  assert.equal(driver.running, false);
  assert.equal(host.pendingTimers, 0);
});

test("bad rates and bounds are refused", () => {
  const sim = new Simulator();
  assert.throws(() => new RealtimeDriver(sim, { rate: 0 }), /rate must be a positive number/);
  assert.throws(() => new RealtimeDriver(sim, { maxLagNs: 0 }), /maxLagNs must be positive/);
});

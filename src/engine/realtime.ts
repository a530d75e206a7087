// RealtimeDriver: runs a Simulator so that simulated time follows the wall clock (times a rate), for
// live mode (issue 9). This is the ONE module outside src/cli that reads a clock or sets timers
// (performance.now, setTimeout, setImmediate, via RealtimeHost); the model itself never does: it
// only sees events at simulated times. External input (captured frames) enters with inject(), at the
// simulated time the wall clock has reached when it arrives. The lag (how late events run, in
// simulated ns) is measured on every slice; going past the bound is reported through onLag, and
// its end too, so falling behind real time is never silent.

import type { Simulator } from "./simulator.js";

/** Clock and timers the driver uses; tests pass a hand-driven one. */
export interface RealtimeHost {
  /** Monotonic wall time in milliseconds (fractional). */
  nowMs(): number;
  /** Epoch milliseconds at nowMs() === 0 (for timestamps in captures). */
  readonly originEpochMs: number;
  /** Calls fn after ms milliseconds (0: after pending I/O callbacks, i.e. setImmediate). */
  setTimer(fn: () => void, ms: number): unknown;
  clearTimer(handle: unknown): void;
}

/** performance.now() and Node's timers. */
export const systemRealtimeHost: RealtimeHost = {
  nowMs: () => performance.now(),
  originEpochMs: performance.timeOrigin,
  setTimer: (fn, ms) => (ms <= 0 ? { immediate: setImmediate(fn) } : { timeout: setTimeout(fn, ms) }),
  clearTimer: (handle) => {
    const h = handle as { immediate?: NodeJS.Immediate; timeout?: NodeJS.Timeout };
    if (h.immediate !== undefined) clearImmediate(h.immediate);
    if (h.timeout !== undefined) clearTimeout(h.timeout);
  },
};

export type LagEvent =
  /** Events started running more than boundNs late. */
  | { readonly kind: "behind"; readonly lagNs: number; readonly boundNs: number; readonly simNs: number }
  /** Lag is back under half the bound; worstNs is the episode's maximum. */
  | { readonly kind: "recovered"; readonly lagNs: number; readonly worstNs: number; readonly boundNs: number; readonly simNs: number };

export interface RealtimeOptions {
  /** Largest acceptable lag in simulated ns before onLag reports it (default 20 ms). */
  readonly maxLagNs?: number;
  /** Simulated seconds per wall second (default 1; 0.1 = ten times slower than real time). */
  readonly rate?: number;
  /** Events run before the driver lets I/O callbacks (captured frames) in (default 1024). */
  readonly maxEventsPerSlice?: number;
  /** Wall-clock waits shorter than this are spun with setImmediate instead of a timer (default 1.5 ms). */
  readonly spinBelowMs?: number;
  readonly host?: RealtimeHost;
  readonly onLag?: (event: LagEvent) => void;
  /** An event handler threw: the driver has stopped. */
  readonly onError?: (error: unknown) => void;
}

export interface RealtimeStats {
  /** Lag of the last slice that ran events (simulated ns). */
  lastLagNs: number;
  /** Largest lag seen. */
  maxLagNs: number;
  /** Times the lag went past the bound. */
  episodes: number;
  /** Events run by the driver. */
  events: number;
  /** Slices that ran at least one event. */
  slices: number;
  /** External inputs scheduled with inject(). */
  injected: number;
}

const DEFAULT_MAX_LAG_NS = 20_000_000;
const DEFAULT_EVENTS_PER_SLICE = 1024;
const DEFAULT_SPIN_BELOW_MS = 1.5;

export class RealtimeDriver {
  readonly stats: RealtimeStats = { lastLagNs: 0, maxLagNs: 0, episodes: 0, events: 0, slices: 0, injected: 0 };
  readonly boundNs: number;
  readonly rate: number;
  private readonly host: RealtimeHost;
  private readonly maxEvents: number;
  private readonly spinBelowMs: number;
  private wallBaseMs = 0;
  private simBaseNs = 0;
  private timer: unknown = null;
  private active = false;
  private behind = false;
  private episodeWorstNs = 0;
  private readonly tickFn = (): void => this.tick();

  constructor(
    readonly sim: Simulator,
    private readonly options: RealtimeOptions = {},
  ) {
    this.boundNs = options.maxLagNs ?? DEFAULT_MAX_LAG_NS;
    this.rate = options.rate ?? 1;
    if (!(this.rate > 0) || !Number.isFinite(this.rate)) throw new RangeError(`realtime: rate must be a positive number, got ${this.rate}`);
    if (!(this.boundNs > 0)) throw new RangeError(`realtime: maxLagNs must be positive, got ${this.boundNs}`);
    this.host = options.host ?? systemRealtimeHost;
    this.maxEvents = options.maxEventsPerSlice ?? DEFAULT_EVENTS_PER_SLICE;
    this.spinBelowMs = options.spinBelowMs ?? DEFAULT_SPIN_BELOW_MS;
  }

  get running(): boolean {
    return this.active;
  }

  /** Whether the lag is past the bound right now. */
  get isBehind(): boolean {
    return this.behind;
  }

  /** Ties the simulator's current time to the wall clock's now and starts following it. */
  start(): void {
    if (this.active) return;
    this.active = true;
    this.wallBaseMs = this.host.nowMs();
    this.simBaseNs = this.sim.now;
    this.arm(0);
  }

  /** Stops after the current slice; simulated time stays where it is. */
  stop(): void {
    this.active = false;
    if (this.timer !== null) this.host.clearTimer(this.timer);
    this.timer = null;
  }

  /** The simulated time the wall clock has reached (never before the simulator's now). */
  simNow(): number {
    const mapped = this.simAtWall(this.host.nowMs());
    return mapped > this.sim.now ? mapped : this.sim.now;
  }

  /** Schedules external input (a captured frame) at simNow() and wakes the driver. Returns the event id. */
  inject<A>(fn: (arg: A) => void, arg: A): number {
    this.stats.injected++;
    const id = this.sim.scheduleAt(this.simNow(), fn, arg);
    if (this.active) this.arm(0);
    return id;
  }

  /** Wall-clock epoch time (ns) at which simulated time simNs runs, for capture timestamps. */
  epochNsAt(simNs: number): bigint {
    const wallMs = this.wallBaseMs + (simNs - this.simBaseNs) / 1e6 / this.rate;
    return BigInt(Math.round((this.host.originEpochMs + wallMs) * 1e6));
  }

  private simAtWall(wallMs: number): number {
    return this.simBaseNs + Math.floor((wallMs - this.wallBaseMs) * 1e6 * this.rate);
  }

  private arm(ms: number): void {
    if (this.timer !== null) {
      if (ms > 0) return; // a wake-up is already pending; an immediate one only replaces a timer
      this.host.clearTimer(this.timer);
    }
    this.timer = this.host.setTimer(this.tickFn, ms);
  }

  private tick(): void {
    this.timer = null;
    if (!this.active) return;
    const sim = this.sim;
    const target = this.simAtWall(this.host.nowMs());
    const firstDue = sim.nextEventTime;
    let ran = 0;
    try {
      while (ran < this.maxEvents && this.active && sim.nextEventTime <= target) ran += sim.step(1);
      if (ran < this.maxEvents && target > sim.now && sim.nextEventTime > target) sim.runUntil(target);
    } catch (e) {
      this.stop();
      this.options.onError?.(e);
      return;
    }
    if (ran > 0) {
      this.stats.events += ran;
      this.stats.slices++;
      this.measure(Math.max(0, this.simAtWall(this.host.nowMs()) - firstDue));
    } else if (this.behind) {
      this.measure(0); // nothing was due late: the backlog is gone
    }
    if (!this.active) return;
    const next = sim.nextEventTime;
    if (next === Number.POSITIVE_INFINITY) return; // idle until inject()
    const waitMs = (next - this.simAtWall(this.host.nowMs())) / 1e6 / this.rate;
    // Timers fire late by up to a millisecond: sleep short of the event, then spin to it.
    this.arm(waitMs < this.spinBelowMs ? 0 : waitMs - 1);
  }

  /**
   * Records a slice's lag: from its earliest due event to the slice's end, in simulated ns (an upper
   * bound on how late any event of the slice ran), and reports crossing the bound either way.
   */
  private measure(lag: number): void {
    const s = this.stats;
    s.lastLagNs = lag;
    if (lag > s.maxLagNs) s.maxLagNs = lag;
    if (!this.behind && lag > this.boundNs) {
      this.behind = true;
      this.episodeWorstNs = lag;
      s.episodes++;
      this.options.onLag?.({ kind: "behind", lagNs: lag, boundNs: this.boundNs, simNs: this.sim.now });
    } else if (this.behind) {
      if (lag > this.episodeWorstNs) this.episodeWorstNs = lag;
      if (lag <= this.boundNs / 2) {
        this.behind = false;
        this.options.onLag?.({ kind: "recovered", lagNs: lag, worstNs: this.episodeWorstNs, boundNs: this.boundNs, simNs: this.sim.now });
      }
    }
  }
}

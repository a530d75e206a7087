// Pacer: the sending application's pace as its CPU budgets allow. Each budget's work per byte its side
// has handled so far (all the work its node did for the flow, ACKs and tunnels included; the sender's
// bytes are those written, the receiver's those read, so data still queued or in flight does not
// dilute the receiver's cost) gives the bytes per ns its cores can afford; the sender writes at the
// lowest of those rates. A sender gated by the receiver's budget too slows down as TCP's flow control
// would make it when the receiver cannot keep up; pacing (instead of stopping for whole ticks) keeps
// the flow from idling, so congestion control is not reset.
import type { AppGate } from "../cluster/workloads/iperf/index.js";
import type { CoreBudget } from "./core-budget.js";

/** A budget the pace is bounded by, with the bytes its side has handled (null: the bytes written). */
export interface PacedBudget {
  readonly budget: CoreBudget;
  readonly handled: (() => number) | null;
}

/** Bytes a paced sender may write at once before the first rate is known and at most per burst. */
const MIN_BURST_BYTES = 256 * 1024;

export class Pacer implements AppGate {
  private allowance = MIN_BURST_BYTES;
  private written = 0;
  private lastNs: number;
  private waiters: (() => void)[] = [];
  /** The pace of the last tick in bytes per ns (Infinity before any cost was measured). */
  rate = Number.POSITIVE_INFINITY;

  /**
   * budgets: each with the bytes its side has handled so far (cumulative, counted from the same start
   * as the budget), or null for the bytes written through this pacer.
   */
  constructor(
    private readonly budgets: readonly PacedBudget[],
    startNs: number,
  ) {
    this.lastNs = startNs;
  }

  consume(bytes: number): void {
    this.allowance -= bytes;
    this.written += bytes;
  }

  open(): boolean {
    return this.allowance > 0;
  }

  whenOpen(cb: () => void): void {
    this.waiters.push(cb);
  }

  /** Call after the budgets ticked: refills the allowance at the affordable rate. */
  tick(nowNs: number): void {
    const dt = nowNs - this.lastNs;
    this.lastNs = nowNs;
    let rate = Number.POSITIVE_INFINITY;
    for (const { budget, handled } of this.budgets) {
      const bytes = handled === null ? this.written : handled();
      if (bytes <= 0) continue;
      const perByte = budget.used / bytes;
      if (perByte > 0) rate = Math.min(rate, budget.cores / perByte);
    }
    this.rate = rate;
    const burst = Math.max(MIN_BURST_BYTES, Number.isFinite(rate) ? 2 * rate * dt : MIN_BURST_BYTES);
    this.allowance = Math.min(burst, this.allowance + (Number.isFinite(rate) ? rate * dt : burst));
    if (this.allowance <= 0 || this.waiters.length === 0) return;
    const run = this.waiters;
    this.waiters = [];
    for (const cb of run) cb();
  }
}

// Pacer: the sending application's pace as its CPU budgets allow. Each budget's work per byte written
// so far (all the work its node did for the flow, ACKs and tunnels included) gives the bytes per ns its
// cores can afford; the sender writes at the lowest of those rates. A sender gated by the receiver's
// budget too slows down as TCP's flow control would make it when the receiver cannot keep up; pacing
// (instead of stopping for whole ticks) keeps the flow from idling, so congestion control is not reset.
import type { AppGate } from "../cluster/workloads/iperf/index.js";
import type { CoreBudget } from "./core-budget.js";

/** Bytes a paced sender may write at once before the first rate is known and at most per burst. */
const MIN_BURST_BYTES = 256 * 1024;

export class Pacer implements AppGate {
  private allowance = MIN_BURST_BYTES;
  private written = 0;
  private lastNs: number;
  private waiters: (() => void)[] = [];
  /** The pace of the last tick in bytes per ns (Infinity before any cost was measured). */
  rate = Number.POSITIVE_INFINITY;

  constructor(
    private readonly budgets: readonly CoreBudget[],
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
    if (this.written > 0) {
      for (const b of this.budgets) {
        const perByte = b.used / this.written;
        if (perByte > 0) rate = Math.min(rate, b.cores / perByte);
      }
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

// Simulator timers of the BGP speakers (connect, hold, keepalive), tracked with their due times so
// a cluster can run "until idle": until nothing but these periodic control-plane timers is pending.
import type { Simulator } from "../../../engine/simulator.js";

export class BgpTimers {
  private readonly armed = new Map<number, number>();

  constructor(readonly sim: Simulator) {}

  /** Timers armed and neither fired nor cancelled. */
  get pending(): number {
    return this.armed.size;
  }

  /** Due time of the earliest armed timer (Infinity when none). */
  get earliestDue(): number {
    let min = Number.POSITIVE_INFINITY;
    for (const t of this.armed.values()) if (t < min) min = t;
    return min;
  }

  /** Arms fn after delayNs; returns an id for cancel. */
  arm(delayNs: number, fn: () => void): number {
    const id = this.sim.schedule(delayNs, () => {
      this.armed.delete(id);
      fn();
    });
    this.armed.set(id, this.sim.now + delayNs);
    return id;
  }

  /** Cancels an armed timer (0 = none); returns 0 for convenient reassignment. */
  cancel(id: number): number {
    if (id !== 0 && this.armed.delete(id)) this.sim.cancel(id);
    return 0;
  }
}

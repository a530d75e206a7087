// Simulator timers of the BGP speakers, counted, so a cluster can tell "only BGP keepalive/hold
// timers are left" (idle) from real pending work.
import type { Simulator } from "../../../engine/simulator.js";

export class BgpTimers {
  /** Timers armed and neither fired nor cancelled. */
  pending = 0;

  constructor(readonly sim: Simulator) {}

  /** Arms fn after delayNs; returns an id for cancel. */
  arm(delayNs: number, fn: () => void): number {
    this.pending++;
    return this.sim.schedule(delayNs, () => {
      this.pending--;
      fn();
    });
  }

  /** Cancels an armed timer (0 = none); returns 0 for convenient reassignment. */
  cancel(id: number): number {
    if (id !== 0 && this.sim.cancel(id)) this.pending--;
    return 0;
  }
}

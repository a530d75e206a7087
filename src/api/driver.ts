// Keeps the emulation running while it is served: simulated time advances at `rate` times the wall
// clock, in steps on a timer and before each request, so `kubectl top` sees usage change as time goes.
// (The api layer may use wall-clock time; the model itself never does.)

export class LiveDriver {
  private last: number;
  private timer: NodeJS.Timeout | null = null;

  constructor(
    /** Advances the emulation by this many ns of simulated time. */
    private readonly advance: (ns: number) => void,
    /** Simulated seconds per wall-clock second (0 freezes time). */
    readonly rate: number,
    private readonly wallMs: () => number = () => performance.now(),
  ) {
    this.last = wallMs();
  }

  /** Advances by the wall time elapsed since the last sync, times the rate. */
  sync(): void {
    const now = this.wallMs();
    const elapsedMs = Math.max(0, now - this.last);
    this.last = now;
    if (this.rate > 0 && elapsedMs > 0) this.advance(Math.round(elapsedMs * 1e6 * this.rate));
  }

  start(intervalMs = 100): void {
    this.stop();
    this.last = this.wallMs();
    this.timer = setInterval(() => this.sync(), intervalMs);
  }

  stop(): void {
    if (this.timer !== null) clearInterval(this.timer);
    this.timer = null;
  }
}

// Simulated time for the control plane: a clock the controllers read and set timers on (the
// engine's Simulator fits it as is), and the mapping of simulated nanoseconds to the wall-clock
// timestamps objects carry (RFC 3339, whole seconds, UTC).

export interface ControlClock {
  /** Current simulated time in integer nanoseconds. */
  readonly now: number;
  /** Runs `fn` after `delayNs` nanoseconds; returns an id for cancel(). */
  schedule(delayNs: number, fn: (arg: undefined) => void): number;
  cancel(id: number): boolean;
}

export const NS_PER_SECOND = 1_000_000_000;

/** Default wall-clock time of simulated time 0 (the emulated cluster's "now" when a run starts). */
export const DEFAULT_EPOCH_MS = Date.UTC(2024, 6, 1, 8, 0, 0);

export const seconds = (s: number): number => Math.round(s * NS_PER_SECOND);

/** RFC 3339 timestamp (seconds precision, "Z") of simulated time `ns`. */
export function timestampAt(epochMs: number, ns: number): string {
  return new Date(epochMs + Math.floor(ns / NS_PER_SECOND) * 1000).toISOString().replace(/\.\d{3}Z$/, "Z");
}

/** Simulated nanoseconds of an RFC 3339 timestamp (NaN when it cannot be read). */
export function timeOfTimestamp(epochMs: number, text: string | undefined): number {
  if (text === undefined) return Number.NaN;
  const ms = Date.parse(text);
  return Number.isNaN(ms) ? Number.NaN : (ms - epochMs) * 1_000_000;
}

/** Wall-clock view of a control clock: what timestamps controllers write. */
export class WallClock {
  constructor(
    readonly clock: ControlClock,
    readonly epochMs: number = DEFAULT_EPOCH_MS,
  ) {}

  timestamp(): string {
    return timestampAt(this.epochMs, this.clock.now);
  }

  /** Simulated ns of a timestamp written by this cluster. */
  nsOf(text: string | undefined): number {
    return timeOfTimestamp(this.epochMs, text);
  }
}

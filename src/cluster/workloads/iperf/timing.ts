// The test clock of an iperf3-like run: iperf3 -t DURATION -O OMIT measures the DURATION that follows
// OMIT seconds of warm-up (slow start), counted from the moment every stream is connected.

const NS_PER_SECOND = 1_000_000_000;

/**
 * The warm-up to omit for a duration: one second (iperf3 -O 1, as the published benchmarks use) when
 * the test lasts at least two; shorter tests omit a quarter of their duration.
 */
export function defaultOmitNs(durationNs: number): number {
  return durationNs >= 2 * NS_PER_SECOND ? NS_PER_SECOND : Math.floor(durationNs / 4);
}

/** A window [startNs, endNs) of simulated time in which bytes are counted. */
export interface MeasureWindow {
  readonly startNs: number;
  readonly endNs: number;
}

export function measureWindow(connectedNs: number, omitNs: number, durationNs: number): MeasureWindow {
  return { startNs: connectedNs + omitNs, endNs: connectedNs + omitNs + durationNs };
}

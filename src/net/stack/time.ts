// Kernel time units for the stack's timers and rate limiters: jiffies at CONFIG_HZ=250 (the kernel
// these behaviours were checked against, 6.18), derived from the simulator's integer nanoseconds.

export const HZ = 250;
export const NS_PER_SECOND = 1_000_000_000;
export const NS_PER_MS = 1_000_000;
/** One jiffy (4 ms at HZ=250). */
export const NS_PER_JIFFY = NS_PER_SECOND / HZ;

/** The jiffies counter at simulated time nowNs. */
export function jiffiesAt(nowNs: number): number {
  return Math.floor(nowNs / NS_PER_JIFFY);
}

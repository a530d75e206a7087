// AppGate: whether the application side of a throughput test may run now. The performance runner
// passes one per side that closes while the node's core has no CPU budget left (src/perf); the
// default is always open, so the workloads also run as plain network tests.

export interface AppGate {
  /** True while the application may write (sender) or read (receiver). */
  open(): boolean;
  /** Runs cb once, from a simulator event, the next time the gate is open. */
  whenOpen(cb: () => void): void;
  /** Tells a pacing gate how many bytes the application just wrote. */
  consume?(bytes: number): void;
}

/** A gate that never closes. */
export const OPEN_GATE: AppGate = {
  open: () => true,
  whenOpen: (cb) => cb(),
};

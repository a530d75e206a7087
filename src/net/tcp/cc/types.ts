// The congestion-control interface (Linux's tcp_congestion_ops, reduced to what Reno and CUBIC
// use). Windows are in segments, as Linux counts them; the connection owns cwnd/ssthresh/cwndCnt.

import type { CongestionName } from "../sysctl.js";

export const INFINITE_SSTHRESH = 0x7fffffff;

/** The connection state a controller reads and updates. */
export interface CcHost {
  cwnd: number;
  ssthresh: number;
  /** Linux snd_cwnd_cnt: acknowledged segments counted toward the next +1 in congestion avoidance. */
  cwndCnt: number;
}

export interface CongestionControl {
  readonly name: CongestionName;
  /** New ssthresh on a loss event (called before the window is reduced). */
  ssthresh(h: CcHost): number;
  /** Window growth for `acked` newly acknowledged segments, when the flow is cwnd-limited and not recovering. */
  congAvoid(h: CcHost, acked: number, now: number): void;
  /** An RTT sample from acknowledged data. */
  pktsAcked(rttNs: number, now: number): void;
  /** The connection entered the Loss state (retransmission timeout). */
  onLoss(): void;
  /** Sending restarts after an idle period of idleNs. */
  onTxStart(idleNs: number, now: number): void;
}

/** tcp_slow_start: grows cwnd by acked up to ssthresh; returns the acked segments left over. */
export function slowStart(h: CcHost, acked: number): number {
  const cwnd = Math.min(h.cwnd + acked, h.ssthresh);
  const left = acked - (cwnd - h.cwnd);
  h.cwnd = cwnd;
  return left;
}

/** tcp_cong_avoid_ai: +1 segment per w acknowledged segments. */
export function congAvoidAi(h: CcHost, w: number, acked: number): void {
  if (h.cwndCnt >= w) {
    h.cwndCnt = 0;
    h.cwnd++;
  }
  h.cwndCnt += acked;
  if (h.cwndCnt >= w) {
    const delta = Math.floor(h.cwndCnt / w);
    h.cwndCnt -= delta * w;
    h.cwnd += delta;
  }
}

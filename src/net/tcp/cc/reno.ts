// Reno / NewReno window control (tcp_reno_*): slow start, +1 segment per window of ACKs, halve on loss.

import { CongestionName } from "../sysctl.js";
import { congAvoidAi, slowStart, type CcHost, type CongestionControl } from "./types.js";

export class Reno implements CongestionControl {
  readonly name = CongestionName.RENO;

  ssthresh(h: CcHost): number {
    return Math.max(h.cwnd >>> 1, 2);
  }

  congAvoid(h: CcHost, acked: number): void {
    let left = acked;
    if (h.cwnd < h.ssthresh) {
      left = slowStart(h, acked);
      if (left === 0) return;
    }
    congAvoidAi(h, h.cwnd, left);
  }

  pktsAcked(): void {}
  onLoss(): void {}
  onTxStart(): void {}
}

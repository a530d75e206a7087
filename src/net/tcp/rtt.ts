// RTT estimation and the retransmission timeout: RFC 6298 smoothing (alpha 1/8, beta 1/4) with
// Linux's floor (tcp_rtt_estimator / __tcp_set_rto): RTO = SRTT + max(4 * RTTVAR, rto_min), so a
// LAN connection's RTO is about 200 ms + RTT, bounded by TCP_RTO_MAX.

import { F64_ZERO, TCP_RTO_MAX_NS, TCP_TIMEOUT_INIT_NS } from "./constants.js";

export class RttEstimator {
  /** Smoothed RTT in ns (0 until the first sample). */
  srtt = F64_ZERO;
  rttvar = F64_ZERO;
  /** Lowest sample seen (CUBIC's delay_min, the receiver's window tuning). */
  minRtt = Number.POSITIVE_INFINITY;
  latest = F64_ZERO;
  /** Current RTO without backoff. */
  rto = TCP_TIMEOUT_INIT_NS;

  constructor(private readonly rtoMin: number) {}

  sample(rttNs: number): void {
    const r = rttNs > 0 ? rttNs : 1;
    this.latest = r;
    if (r < this.minRtt) this.minRtt = r;
    if (this.srtt === 0) {
      this.srtt = r;
      this.rttvar = r / 2;
    } else {
      this.rttvar = 0.75 * this.rttvar + 0.25 * Math.abs(this.srtt - r);
      this.srtt = 0.875 * this.srtt + 0.125 * r;
    }
    const rto = Math.round(this.srtt + Math.max(4 * this.rttvar, this.rtoMin));
    this.rto = Math.min(rto, TCP_RTO_MAX_NS);
  }
}

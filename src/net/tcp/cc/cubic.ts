// CUBIC (RFC 9438) as Linux's tcp_cubic computes it: beta 717/1024 (~0.7), C = 0.4
// (bic_scale 41), fast convergence, the TCP-friendly (Reno-estimate) region, the t + delay_min
// target time, the 1/32 s recompute throttle and the cnt <= 20 cap before the first loss.
// HyStart is not modelled: slow start runs until the first loss (noted in the README of the layer).

import { F64_ZERO, NS_PER_SEC } from "../constants.js";
import { CongestionName } from "../sysctl.js";
import { congAvoidAi, slowStart, type CcHost, type CongestionControl } from "./types.js";

const BETA = 717 / 1024;
const C = 0.4;
/** beta_scale = 8 * (1024 + 717) / 3 / (1024 - 717), integer as in the kernel. */
const BETA_SCALE = 15;
/** HZ / 32: cnt is not recomputed more often while cwnd is unchanged. */
const RECOMPUTE_NS = NS_PER_SEC / 32;

export class Cubic implements CongestionControl {
  readonly name = CongestionName.CUBIC;
  cnt = 0;
  lastMaxCwnd = 0;
  private lastCwnd = 0;
  private lastTime = F64_ZERO;
  private originPoint = 0;
  /** K in seconds. */
  k = F64_ZERO;
  /** delay_min in ns (0 = unknown). */
  delayMin = F64_ZERO;
  /** epoch start in ns, -1 = no epoch. */
  epochStart = F64_ZERO;
  private ackCnt = 0;
  private tcpCwnd = 0;

  constructor() {
    // -1 ("none") once the fields are doubles (see F64_ZERO): -1 would make them small integers.
    this.lastTime = -1;
    this.epochStart = -1;
  }

  ssthresh(h: CcHost): number {
    this.epochStart = -1;
    if (h.cwnd < this.lastMaxCwnd) this.lastMaxCwnd = Math.floor((h.cwnd * (1024 + 717)) / 2048);
    else this.lastMaxCwnd = h.cwnd;
    return Math.max(Math.floor(h.cwnd * BETA), 2);
  }

  congAvoid(h: CcHost, acked: number, now: number): void {
    let left = acked;
    if (h.cwnd < h.ssthresh) {
      left = slowStart(h, acked);
      if (left === 0) return;
    }
    this.update(h.cwnd, left, now);
    congAvoidAi(h, this.cnt, left);
  }

  pktsAcked(rttNs: number, now: number): void {
    if (this.epochStart >= 0 && now - this.epochStart < NS_PER_SEC) return;
    if (this.delayMin === 0 || this.delayMin > rttNs) this.delayMin = rttNs;
  }

  onLoss(): void {
    this.cnt = 0;
    this.lastMaxCwnd = 0;
    this.lastCwnd = 0;
    this.lastTime = -1;
    this.originPoint = 0;
    this.k = 0;
    this.delayMin = 0;
    this.epochStart = -1;
    this.ackCnt = 0;
    this.tcpCwnd = 0;
  }

  onTxStart(idleNs: number, now: number): void {
    if (this.epochStart >= 0 && idleNs > 0) this.epochStart = Math.min(this.epochStart + idleNs, now);
  }

  /** bictcp_update: the segments-per-increment count `cnt` for the current cwnd. */
  private update(cwnd: number, acked: number, now: number): void {
    this.ackCnt += acked;
    if (this.lastCwnd === cwnd && now - this.lastTime <= RECOMPUTE_NS) return;
    if (!(this.epochStart >= 0 && now === this.lastTime)) {
      this.lastCwnd = cwnd;
      this.lastTime = now;
      if (this.epochStart < 0) {
        this.epochStart = now;
        this.ackCnt = acked;
        this.tcpCwnd = cwnd;
        if (this.lastMaxCwnd <= cwnd) {
          this.k = 0;
          this.originPoint = cwnd;
        } else {
          this.k = Math.cbrt((this.lastMaxCwnd - cwnd) / C);
          this.originPoint = this.lastMaxCwnd;
        }
      }
      const t = (now - this.epochStart + this.delayMin) / NS_PER_SEC;
      const target = Math.floor(this.originPoint + C * (t - this.k) ** 3);
      this.cnt = target > cwnd ? Math.floor(cwnd / (target - cwnd)) : 100 * cwnd;
      if (this.lastMaxCwnd === 0 && this.cnt > 20) this.cnt = 20;
    }
    const delta = (cwnd * BETA_SCALE) >>> 3;
    while (this.ackCnt > delta) {
      this.ackCnt -= delta;
      this.tcpCwnd++;
    }
    if (this.tcpCwnd > cwnd) {
      const maxCnt = Math.floor(cwnd / (this.tcpCwnd - cwnd));
      if (this.cnt > maxCnt) this.cnt = maxCnt;
    }
    this.cnt = Math.max(this.cnt, 2);
  }
}

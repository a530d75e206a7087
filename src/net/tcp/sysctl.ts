// net.ipv4.tcp_* settings of one namespace's TCP, with the defaults of a Linux 6.x kernel on a
// typical machine. Changing a field affects connections created afterwards.

import { NS_PER_MS, NS_PER_SEC, TCP_ATO_MIN_NS, TCP_RTO_MIN_NS } from "./constants.js";

export const CongestionName = { CUBIC: "cubic", RENO: "reno" } as const;
export type CongestionName = (typeof CongestionName)[keyof typeof CongestionName];

export interface TcpSysctl {
  /** tcp_rmem min/default/max. The max sets the window scale (ilog2(max) - 15): 7 for 6 MB. */
  rmem: [number, number, number];
  /** tcp_wmem min/default/max. */
  wmem: [number, number, number];
  /** net.core.rmem_max (also bounds the window scale from below). */
  coreRmemMax: number;
  synRetries: number;
  synackRetries: number;
  /** tcp_syn_linear_timeouts (Linux >= 6.5, default 4): SYN retries before exponential backoff. */
  synLinearTimeouts: number;
  /** tcp_retries2: the established-state give-up budget (15 ~ 924.6 s with RTO_MIN backoff). */
  retries2: number;
  timestamps: boolean;
  sack: boolean;
  windowScaling: boolean;
  congestionControl: CongestionName;
  /** ip_local_port_range. */
  localPortRange: [number, number];
  /** tcp_fin_timeout: how long an orphaned FIN_WAIT2 socket waits for the peer's FIN. */
  finTimeoutNs: number;
  /** Initial congestion window in segments (RFC 6928). */
  initCwnd: number;
  /** Minimum RTO (TCP_RTO_MIN / tcp_rto_min_us). */
  rtoMinNs: number;
  /** Minimum delayed-ACK timeout (ATO). */
  atoMinNs: number;
  /** Listen backlog cap (net.core.somaxconn). */
  somaxconn: number;
  /** tcp_slow_start_after_idle: restart from the initial window after an idle RTO. */
  slowStartAfterIdle: boolean;
  /** TSO/GSO: the sender hands the device batches of up to 64 KB (counted as one batch). */
  segmentationOffload: boolean;
  /**
   * GRO on the receiving side: in-order segments of one connection arriving within this many ns of
   * the first form one batch, acknowledged as one (NAPI poll / interrupt coalescing). 0 = off.
   */
  groFlushNs: number;
}

export function defaultTcpSysctl(): TcpSysctl {
  return {
    rmem: [4096, 131072, 6291456],
    wmem: [4096, 16384, 4194304],
    coreRmemMax: 212992,
    synRetries: 6,
    synackRetries: 5,
    synLinearTimeouts: 4,
    retries2: 15,
    timestamps: true,
    sack: true,
    windowScaling: true,
    congestionControl: CongestionName.CUBIC,
    localPortRange: [32768, 60999],
    finTimeoutNs: 60 * NS_PER_SEC,
    initCwnd: 10,
    rtoMinNs: TCP_RTO_MIN_NS,
    atoMinNs: TCP_ATO_MIN_NS,
    somaxconn: 4096,
    slowStartAfterIdle: true,
    segmentationOffload: true,
    groFlushNs: 0,
  };
}

/** A GRO window matching a NIC's typical interrupt coalescing (8 us); for throughput runs. */
export const GRO_TYPICAL_FLUSH_NS = 8 * NS_PER_MS / 1000;

// What a namespace's TCP did, for tests, `ss -i`-like output and the CPU cost model: segments and
// batches each way (a batch is one GSO/TSO super-packet sent, or one GRO batch received), payload
// bytes, retransmissions, ACKs, resets, and connection outcomes (as /proc/net/snmp's Tcp: line).

import { F64_ZERO } from "./constants.js";

export class TcpCounters {
  /** Segments handed to IP (each is one packet on the wire). */
  txSegments = 0;
  /** Transmit batches: one per GSO/TSO super-packet (per segment without offload). */
  txBatches = 0;
  /** Payload bytes sent, retransmissions included. */
  txBytes = F64_ZERO;
  retransSegments = 0;
  /** Segments received by connections (after the stack delivered them). */
  rxSegments = 0;
  /** Receive batches (GRO); equal to rxSegments when GRO is off. */
  rxBatches = 0;
  rxBytes = F64_ZERO;
  /** Pure ACKs sent / delayed ACKs that fired from the timer. */
  acksSent = 0;
  delayedAcks = 0;
  rtoTimeouts = 0;
  fastRetransmits = 0;
  /** Tail loss probes sent (RFC 8985). */
  lossProbes = 0;
  /** Segments that arrived out of order. */
  outOfOrder = 0;
  resetsSent = 0;
  resetsReceived = 0;
  activeOpens = 0;
  passiveOpens = 0;
  attemptFails = 0;
  establishedResets = 0;
  /** Segments no connection wanted (answered with a reset when appropriate). */
  noSocket = 0;
}

/**
 * Where the metrics layer charges CPU: called once per transmit batch and once per receive batch
 * with its segment count and payload bytes, in the namespace that did the work.
 */
export interface TcpCostObserver {
  txBatch(segments: number, bytes: number): void;
  rxBatch(segments: number, bytes: number): void;
}

// The sender's side of an arriving ACK (tcp_ack): window update, SACK scoreboard, cumulative
// ACK (tcp_clean_rtx_queue with Karn's rule for RTT samples), loss detection (RACK with SACK,
// NewReno with duplicate ACKs), fast recovery with PRR (RFC 6937, tcp_cwnd_reduction), congestion
// avoidance, the retransmission / loss-probe timer, and the FIN-acknowledged state changes.

import { INFINITE_SSTHRESH } from "./cc/types.js";
import { F64_ZERO, NS_PER_MS, TCP_DUPTHRESH } from "./constants.js";
import { Sacked } from "./rtx-queue.js";
import type { Segment } from "./segment.js";
import { seqDiff, seqGeq, seqGt, seqLeq, seqLt } from "./seq.js";
import type { TcpSocket } from "./socket.js";
import { CaState, TcpState } from "./states.js";
import { rackAdvance, rackDetectLoss } from "./rack.js";
import { armFinWait2, armReorder, armXmitTimer, enterTimeWait, stopRto } from "./timers.js";
import { TcpFlags } from "./tx.js";
import { pow2 } from "./pow2.js";

/**
 * What the cumulative-ACK walk found. A reused object rather than module-level variables: a send
 * time (ns, beyond the small-integer range) stored into a module variable is boxed anew at every
 * store, while an object's number field is updated in place.
 */
class AckedWalk {
  /** Entries newly delivered (not SACKed before). */
  segs = 0;
  /**
   * Send times of the first and last never-retransmitted entries acknowledged, -1 if none (Karn).
   * Every walk sets them; they start as doubles (see F64_ZERO), the kind of value they hold.
   */
  firstTx = F64_ZERO;
  lastTx = F64_ZERO;
}
const walk = new AckedWalk();

/** Processes the ACK field of seg; false when the segment must be dropped. */
export function processAck(sock: TcpSocket, seg: Segment): boolean {
  const ack = seg.ack;
  if (seqGt(ack, sock.sndNxt)) return false;
  const now = sock.now;
  const priorUna = sock.sndUna;
  const advanced = seqGt(ack, priorUna);
  if (seqLt(ack, priorUna)) return true;
  const windowChanged = updateSendWindow(sock, seg, advanced);
  let newlySacked = 0;
  if (sock.sackOk && seg.sackCount > 0) newlySacked = sackTag(sock, seg, now);
  let acked = 0;
  let rtt = -1;
  let caRtt = -1;
  if (advanced) {
    cleanRtxQueue(sock, ack, now);
    acked = walk.segs;
    if (walk.firstTx >= 0) rtt = now - walk.firstTx;
    if (walk.lastTx >= 0) caRtt = now - walk.lastTx;
    if (rtt < 0 && sock.tsOk && seg.hasTimestamp && seg.tsEcr !== 0) {
      const ms = (Math.floor(now / NS_PER_MS) + sock.tsOffset - seg.tsEcr) >>> 0;
      if (ms < 0x7fffffff) rtt = caRtt = Math.max(ms, 1) * NS_PER_MS;
    }
    const dataAcked = Math.min(seqDiff(ack, sock.dataBase), sock.sendBuffer.length);
    if (dataAcked > 0) {
      sock.sendBuffer.release(dataAcked);
      sock.stats.bytesAcked += dataAcked;
    }
    sock.sndUna = ack;
    if (sock.tlpHighSeq !== -1 && seqGeq(ack, sock.tlpHighSeq)) sock.tlpHighSeq = -1;
    sock.backoff = 0;
    sock.retransmits = 0;
    if (sock.retransOut === 0) sock.retransStamp = 0;
    if (!sock.sackOk && sock.renoSacked > 0) sock.renoSacked = Math.max(0, sock.renoSacked - acked);
    if (sock.caState !== CaState.RECOVERY) sock.dupAcks = 0;
  } else if (seg.payloadLen === 0 && (seg.flags & (TcpFlags.SYN | TcpFlags.FIN)) === 0 && !windowChanged && sock.packetsOut > 0) {
    sock.dupAcks++;
    if (!sock.sackOk && sock.renoSacked < sock.packetsOut - 1) {
      sock.renoSacked++;
      newlySacked++;
    }
  }
  const delivered = acked + newlySacked;
  if (rtt >= 0) {
    sock.rtt.sample(rtt);
    sock.icskRto = sock.rtt.rto;
    sock.cc.pktsAcked(caRtt, now);
  }
  fastRetransAlert(sock, delivered, advanced);
  if (delivered > 0 && sock.caState !== CaState.RECOVERY && isCwndLimited(sock)) {
    sock.cc.congAvoid(sock, delivered, now);
    sock.expandSndbuf();
  }
  if (seqGeq(sock.sndUna, sock.maxPacketsSeq)) {
    sock.maxPacketsOut = sock.packetsOut;
    sock.maxPacketsSeq = sock.sndNxt;
  }
  if (sock.packetsOut === 0) {
    if (sock.rtxMode !== 1) stopRto(sock);
  } else if (advanced) {
    armXmitTimer(sock, true);
  }
  if (sock.rtxMode === 1 && sock.sndWnd > 0) {
    stopRto(sock);
    sock.probes = 0;
  }
  if (advanced && sock.finSent && sock.sndUna === sock.sndNxt) finAcked(sock);
  if (sock.closed) return false;
  if (advanced && sock.wantWritable && sock.writable > 0) {
    sock.wantWritable = false;
    sock.events.onWritable?.(sock);
    if (sock.closed) return false;
  }
  return true;
}

/**
 * processAck for a side with nothing in flight and nothing to account (the receiver of a bulk
 * transfer: every data segment carries the same ACK): with snd_una = snd_nxt, an empty
 * retransmission queue, no SACK blocks, Open state and the RTO mode, such an ACK acknowledges,
 * SACKs and marks nothing, so of processAck's steps only the window update, the max-packets mark
 * and stopping the (idle) RTO change anything. Returns false, having changed nothing, for any other
 * segment or state: processAck must run then.
 */
export function ackWithNothingInFlight(sock: TcpSocket, seg: Segment): boolean {
  const ack = seg.ack;
  if (ack !== sock.sndUna || ack !== sock.sndNxt || sock.packetsOut !== 0 || sock.rtx.count !== 0 || seg.sackCount !== 0 ||
    sock.caState !== CaState.OPEN || sock.lostOut !== 0 || sock.sackedOut + sock.renoSacked !== 0 || sock.rtxMode !== 0) return false;
  updateSendWindow(sock, seg, false);
  if (seqGeq(ack, sock.maxPacketsSeq)) {
    sock.maxPacketsOut = sock.packetsOut;
    sock.maxPacketsSeq = ack;
  }
  stopRto(sock);
  return true;
}

/** tcp_ack_update_window: takes the segment's window if it is newer; returns whether it changed. */
function updateSendWindow(sock: TcpSocket, seg: Segment, advanced: boolean): boolean {
  const nwin = seg.window * pow2(sock.sndWscale);
  if (advanced || seqGt(seg.seq, sock.sndWl1) || (seg.seq === sock.sndWl1 && (nwin > sock.sndWnd || nwin === 0))) {
    const changed = nwin !== sock.sndWnd;
    sock.sndWnd = nwin;
    sock.sndWl1 = seg.seq;
    sock.sndWl2 = seg.ack;
    if (changed && nwin > sock.maxWindow) sock.windowOffered(nwin);
    return changed;
  }
  return false;
}

/** Our FIN is acknowledged. */
function finAcked(sock: TcpSocket): void {
  switch (sock.state) {
    case TcpState.FIN_WAIT_1:
      sock.setState(TcpState.FIN_WAIT_2);
      if (sock.orphan) armFinWait2(sock);
      break;
    case TcpState.CLOSING:
      enterTimeWait(sock);
      sock.notifyClose(null);
      break;
    case TcpState.LAST_ACK:
      sock.destroy(null);
      break;
  }
}

/** tcp_is_cwnd_limited: grow only a window the sender actually fills. */
function isCwndLimited(sock: TcpSocket): boolean {
  if (sock.cwndLimited) return true;
  if (sock.cwnd < sock.ssthresh) return sock.cwnd < 2 * sock.maxPacketsOut;
  return false;
}

/**
 * Removes fully acknowledged entries; trims a partially acknowledged head (tcp_trim_head).
 * RACK is advanced once per run of plain entries (no flags: never retransmitted, SACKed, lost or
 * FIN), by the run's last: plain entries were sent in sequence order, so the last one has the
 * latest send time (the highest end on a tie) and leaves the RACK state as the whole run would.
 */
function cleanRtxQueue(sock: TcpSocket, ack: number, now: number): void {
  const q = sock.rtx;
  const ends = q.end;
  const flags = q.flags;
  const sentAt = q.sentAt;
  const count = q.count;
  let segs = 0;
  let firstTx = -1;
  let lastTx = -1;
  let done = 0;
  /** Slot of the last plain entry of the current run, -1 when no run is open. */
  let plainLast = -1;
  for (; done < count; done++) {
    const s = q.slot(done);
    const end = ends[s]!;
    if (!seqLeq(end, ack)) {
      if (seqGt(ack, q.seq[s]!)) q.seq[s] = ack;
      break;
    }
    const f = flags[s]!;
    const sent = sentAt[s]!;
    if (f === 0) {
      if (firstTx < 0) firstTx = sent;
      lastTx = sent;
      segs++;
      plainLast = s;
      continue;
    }
    if (plainLast >= 0) {
      rackAdvance(sock, 0, ends[plainLast]!, sentAt[plainLast]!, now);
      plainLast = -1;
    }
    if ((f & Sacked.EVER_RETRANS) === 0) {
      if (firstTx < 0) firstTx = sent;
      lastTx = sent;
    }
    if ((f & Sacked.SACKED) !== 0) {
      sock.sackedOut--;
    } else {
      rackAdvance(sock, f, end, sent, now);
      segs++;
    }
    if ((f & Sacked.LOST) !== 0) sock.lostOut--;
    if ((f & Sacked.RETRANS) !== 0) sock.retransOut--;
  }
  if (plainLast >= 0) rackAdvance(sock, 0, ends[plainLast]!, sentAt[plainLast]!, now);
  walk.segs = segs;
  walk.firstTx = firstTx;
  walk.lastTx = lastTx;
  sock.packetsOut -= done;
  q.dropFront(done);
}

/** Index of the first entry whose end is after seq (binary search over the ordered queue). */
function firstEndingAfter(sock: TcpSocket, seq: number): number {
  const q = sock.rtx;
  let lo = 0;
  let hi = q.count;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (seqLeq(q.end[q.slot(mid)]!, seq)) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** tcp_sacktag_write_queue: marks entries the peer's SACK blocks cover; returns how many are new. */
function sackTag(sock: TcpSocket, seg: Segment, now: number): number {
  const q = sock.rtx;
  let newly = 0;
  for (let b = 0; b < seg.sackCount; b++) {
    const left = seg.sackLeft[b]!;
    const right = seg.sackRight[b]!;
    if (!seqGt(right, left) || !seqGt(right, sock.sndUna) || seqGt(right, sock.sndNxt) || seqLt(left, sock.sndUna)) continue;
    for (let i = firstEndingAfter(sock, left); i < q.count; i++) {
      const s = q.slot(i);
      if (seqGt(q.end[s]!, right)) break;
      if (seqLt(q.seq[s]!, left)) continue;
      const f = q.flags[s]!;
      if ((f & Sacked.SACKED) !== 0) continue;
      let nf = f | Sacked.SACKED;
      if ((f & Sacked.LOST) !== 0) {
        nf &= ~Sacked.LOST;
        sock.lostOut--;
      }
      if ((f & Sacked.RETRANS) !== 0) {
        nf &= ~Sacked.RETRANS;
        sock.retransOut--;
      }
      q.flags[s] = nf;
      sock.sackedOut++;
      newly++;
      rackAdvance(sock, f, q.end[s]!, q.sentAt[s]!, now);
    }
  }
  return newly;
}

/** RACK (SACK connections) or NewReno duplicate ACKs: marks segments lost; returns how many. */
function detectLoss(sock: TcpSocket, now: number): number {
  const q = sock.rtx;
  if (q.count === 0) return 0;
  if (!sock.sackOk) {
    if (sock.dupAcks < TCP_DUPTHRESH && sock.caState !== CaState.RECOVERY) return 0;
    return markHeadLost(sock);
  }
  if (!sock.rackAdvanced) return 0;
  sock.rackAdvanced = false;
  const marked = rackDetectLoss(sock, now);
  if (sock.reoWait > 0) armReorder(sock, now + sock.reoWait);
  return marked;
}

/** Marks the first unacknowledged segment lost unless it already is (tcp_newreno_mark_lost). */
function markHeadLost(sock: TcpSocket): number {
  const q = sock.rtx;
  const s = q.slot(0);
  const f = q.flags[s]!;
  if ((f & (Sacked.LOST | Sacked.SACKED)) !== 0) return 0;
  q.flags[s] = f | Sacked.LOST;
  sock.lostOut++;
  return 1;
}

export function enterRecovery(sock: TcpSocket): void {
  sock.highSeq = sock.sndNxt;
  sock.priorCwnd = sock.cwnd;
  sock.ssthresh = sock.cc.ssthresh(sock);
  sock.prrDelivered = 0;
  sock.prrOut = 0;
  sock.cwndCnt = 0;
  sock.caState = CaState.RECOVERY;
  sock.stack.counters.fastRetransmits++;
  sock.stats.recoveries++;
}

/** tcp_cwnd_reduction (PRR): how much may be sent in recovery for what was just delivered. */
export function cwndReduction(sock: TcpSocket, delivered: number, advanced: boolean, newlyLost: number): void {
  if (delivered <= 0 || sock.priorCwnd === 0) return;
  sock.prrDelivered += delivered;
  const inflight = sock.inFlight();
  const delta = sock.ssthresh - inflight;
  let sndcnt: number;
  if (delta < 0) {
    sndcnt = Math.floor((sock.ssthresh * sock.prrDelivered + sock.priorCwnd - 1) / sock.priorCwnd) - sock.prrOut;
  } else {
    sndcnt = Math.max(sock.prrDelivered - sock.prrOut, delivered);
    if (advanced && newlyLost === 0) sndcnt++;
    sndcnt = Math.min(delta, sndcnt);
  }
  sndcnt = Math.max(sndcnt, sock.prrOut > 0 ? 0 : 1);
  sock.cwnd = inflight + sndcnt;
}

/** tcp_fastretrans_alert, reduced: the Open / Disorder / Recovery / Loss state machine. */
function fastRetransAlert(sock: TcpSocket, delivered: number, advanced: boolean): void {
  if (sock.caState === CaState.RECOVERY || sock.caState === CaState.LOSS) {
    if (seqGeq(sock.sndUna, sock.highSeq)) {
      if (sock.caState === CaState.RECOVERY && sock.ssthresh < INFINITE_SSTHRESH) sock.cwnd = Math.max(sock.ssthresh, 1);
      sock.caState = CaState.OPEN;
      sock.dupAcks = 0;
    } else if (sock.caState === CaState.RECOVERY) {
      let lost = 0;
      if (!sock.sackOk) {
        if (advanced) lost = markHeadLost(sock);
      } else {
        lost = detectLoss(sock, sock.now);
      }
      cwndReduction(sock, delivered, advanced, lost);
      return;
    } else {
      return;
    }
  }
  const lost = detectLoss(sock, sock.now);
  if (lost > 0 || sock.lostOut > 0) {
    enterRecovery(sock);
    cwndReduction(sock, Math.max(delivered, 1), advanced, lost);
    return;
  }
  sock.caState = sock.sackedOut + sock.renoSacked > 0 ? CaState.DISORDER : CaState.OPEN;
}

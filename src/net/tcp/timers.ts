// A connection's timers on simulated time: retransmission (SYN with tcp_syn_linear_timeouts,
// SYN-ACK, data with tcp_enter_loss and exponential backoff, give-up per tcp_model_timeout),
// zero-window probes, delayed ACK, GRO flush, TIME_WAIT, orphaned FIN_WAIT_2, and the caller's
// connect timeout. The retransmission timer is re-armed lazily: moving its deadline later costs
// no event, the pending event re-schedules itself when it fires early.

import { NS_PER_MS, NS_PER_SEC, TCP_DELACK_MAX_NS, TCP_RTO_MAX_NS, TCP_TIMEOUT_INIT_NS, TCP_TIMEWAIT_NS } from "./constants.js";
import { Sacked } from "./rtx-queue.js";
import { seqDiff, seqGt } from "./seq.js";
import type { TcpSocket } from "./socket.js";
import { CaState, tcpError, TcpError, TcpState } from "./states.js";
import { pushPending, retransmitTail, sendAck, sendNewProbe, sendSyn, sendWindowProbe } from "./tx.js";
import { flushGro } from "./rx.js";
import { cwndReduction, enterRecovery } from "./ack.js";
import { rackDetectLoss } from "./rack.js";

const RTO_MODE = 0;
const PERSIST_MODE = 1;
const PROBE_MODE = 2;

const fireRtx = (sock: TcpSocket): void => onRtxTimer(sock);
const fireReorder = (sock: TcpSocket): void => onReorderTimer(sock);
const fireDelack = (sock: TcpSocket): void => onDelackTimer(sock);
const fireGro = (sock: TcpSocket): void => {
  sock.groTimer = 0;
  flushGro(sock);
};
const fireState = (sock: TcpSocket): void => {
  sock.stateTimer = 0;
  sock.destroy(null);
};
const fireConnect = (sock: TcpSocket): void => {
  sock.connectTimer = 0;
  if (sock.state === TcpState.SYN_SENT) {
    sock.stack.counters.attemptFails++;
    sock.destroy(tcpError(TcpError.TIMEOUT, "ETIMEDOUT", "connection timed out (the caller's connect timeout passed)"));
  }
};

/** Sets the retransmission deadline (re-scheduling only when it moves earlier). */
export function armRto(sock: TcpSocket, at: number): void {
  sock.rtxMode = RTO_MODE;
  setRtxDeadline(sock, at);
}

/**
 * tcp_set_xmit_timer / tcp_schedule_loss_probe: on an Open SACK connection without a probe
 * outstanding, a tail loss probe (RFC 8985 7) two RTTs out (+ TCP_RTO_MIN for a lone segment that
 * may meet a delayed ACK, else 2 ms), never later than the RTO; otherwise the RTO. After an ACK the
 * RTO restarts from now; after sending new data it stays counted from the oldest segment.
 */
export function armXmitTimer(sock: TcpSocket, fromAck: boolean): void {
  const now = sock.now;
  const q = sock.rtx;
  const head = q.count > 0 ? q.sentAt[q.slot(0)]! : now;
  const rtoAt = Math.max((fromAck ? now : head) + sock.icskRto, now + 1);
  if (sock.sackOk && sock.caState === CaState.OPEN && sock.tlpHighSeq === -1 && sock.rtt.srtt > 0 && sock.packetsOut > 0) {
    const pto = 2 * sock.rtt.srtt + (sock.packetsOut === 1 ? sock.stack.sysctl.rtoMinNs : 2 * NS_PER_MS);
    sock.rtxMode = PROBE_MODE;
    setRtxDeadline(sock, Math.min(now + pto, rtoAt));
    return;
  }
  if (fromAck || sock.rtxDeadline === 0 || sock.rtxMode !== RTO_MODE) armRto(sock, rtoAt);
}

function setRtxDeadline(sock: TcpSocket, deadline: number): void {
  const at = Math.ceil(deadline);
  sock.rtxDeadline = at;
  const sim = sock.stack.sim;
  if (sock.rtxTimer !== 0 && sock.rtxTimerAt <= at) return;
  if (sock.rtxTimer !== 0) sim.cancel(sock.rtxTimer);
  sock.rtxTimerAt = at;
  sock.rtxTimer = sim.scheduleAt(at, fireRtx, sock);
}

export function stopRto(sock: TcpSocket): void {
  if (sock.rtxMode === PROBE_MODE) sock.rtxMode = RTO_MODE;
  sock.rtxDeadline = 0;
  sock.rtxMode = RTO_MODE;
}

/** Zero-window probing: the peer offers no window and nothing is in flight (tcp_check_probe_timer). */
export function armPersist(sock: TcpSocket): void {
  if (sock.rtxMode === PERSIST_MODE && sock.rtxDeadline !== 0) return;
  sock.rtxMode = PERSIST_MODE;
  setRtxDeadline(sock, sock.now + Math.min(sock.icskRto * 2 ** sock.probes, TCP_RTO_MAX_NS));
}

/** tcp_model_timeout: the time budget of `boundary` retries starting from rtoBase with backoff. */
export function modelTimeout(boundary: number, rtoBase: number): number {
  const linearThresh = Math.floor(Math.log2(TCP_RTO_MAX_NS / rtoBase));
  if (boundary <= linearThresh) return (2 ** (boundary + 1) - 1) * rtoBase;
  return (2 ** (linearThresh + 1) - 1) * rtoBase + (boundary - linearThresh) * TCP_RTO_MAX_NS;
}

function onRtxTimer(sock: TcpSocket): void {
  sock.rtxTimer = 0;
  if (sock.rtxDeadline === 0 || sock.state === TcpState.CLOSED) return;
  const now = sock.now;
  if (now < sock.rtxDeadline) {
    sock.rtxTimerAt = sock.rtxDeadline;
    sock.rtxTimer = sock.stack.sim.scheduleAt(sock.rtxDeadline, fireRtx, sock);
    return;
  }
  sock.rtxDeadline = 0;
  if (sock.rtxMode === PERSIST_MODE) {
    probeTimer(sock);
    return;
  }
  if (sock.rtxMode === PROBE_MODE) {
    if (sock.packetsOut > 0) lossProbe(sock, now);
    return;
  }
  switch (sock.state) {
    case TcpState.SYN_SENT:
      synTimeout(sock, now);
      return;
    case TcpState.SYN_RECEIVED:
      synackTimeout(sock, now);
      return;
    case TcpState.TIME_WAIT:
      return;
    default:
      if (sock.packetsOut > 0) retransmitTimeout(sock, now);
  }
}

/** Fails the connection after its retries: the ICMP error seen meanwhile, else ETIMEDOUT. */
function giveUp(sock: TcpSocket, what: string): void {
  sock.stack.counters.attemptFails += sock.state === TcpState.SYN_SENT ? 1 : 0;
  sock.destroy(sock.softError ?? tcpError(TcpError.TIMEOUT, "ETIMEDOUT", what));
}

function synTimeout(sock: TcpSocket, now: number): void {
  const sys = sock.stack.sysctl;
  if (sock.retransmits > 0 && now - sock.retransStamp >= modelTimeout(sys.synRetries, TCP_TIMEOUT_INIT_NS)) {
    giveUp(sock, `connection timed out: no answer to ${sock.retransmits + 1} SYNs`);
    return;
  }
  sock.retransmits++;
  sock.totalRto++;
  sock.stack.counters.retransSegments++;
  sock.stats.retransmits++;
  sendSyn(sock);
  if (sock.totalRto > sys.synLinearTimeouts) {
    sock.backoff++;
    sock.icskRto = Math.min(sock.icskRto * 2, TCP_RTO_MAX_NS);
  }
  armRto(sock, now + sock.icskRto);
}

function synackTimeout(sock: TcpSocket, now: number): void {
  if (sock.retransmits >= sock.stack.sysctl.synackRetries) {
    // reqsk_timer_handler: the half-open connection is dropped silently.
    sock.destroy(null);
    return;
  }
  sock.retransmits++;
  sock.stack.counters.retransSegments++;
  sock.stats.retransmits++;
  sendSyn(sock);
  sock.icskRto = Math.min(TCP_TIMEOUT_INIT_NS * 2 ** sock.retransmits, TCP_RTO_MAX_NS);
  armRto(sock, now + sock.icskRto);
}

/** tcp_enter_loss: everything not SACKed is lost, cwnd 1, ssthresh from the controller. */
function enterLoss(sock: TcpSocket): void {
  if (sock.caState <= CaState.DISORDER || !seqGt(sock.highSeq, sock.sndUna) || (sock.caState === CaState.LOSS && sock.retransmits === 0)) {
    sock.priorCwnd = sock.cwnd;
    sock.ssthresh = sock.cc.ssthresh(sock);
  }
  const q = sock.rtx;
  let lost = 0;
  for (let i = 0; i < q.count; i++) {
    const s = q.slot(i);
    const f = q.flags[s]!;
    if ((f & Sacked.SACKED) !== 0) continue;
    q.flags[s] = (f | Sacked.LOST) & ~Sacked.RETRANS;
    lost++;
  }
  sock.lostOut = lost;
  sock.retransOut = 0;
  sock.renoSacked = 0;
  sock.dupAcks = 0;
  sock.cwnd = sock.inFlight() + 1;
  sock.cwndCnt = 0;
  sock.caState = CaState.LOSS;
  sock.highSeq = sock.sndNxt;
  sock.cc.onLoss();
  sock.stack.counters.rtoTimeouts++;
  sock.stats.timeouts++;
}

function retransmitTimeout(sock: TcpSocket, now: number): void {
  const sys = sock.stack.sysctl;
  if (sock.retransmits > 0 && sock.retransStamp > 0 && now - sock.retransStamp >= modelTimeout(sys.retries2, sys.rtoMinNs)) {
    giveUp(sock, `connection timed out: ${sock.retransmits} retransmissions unanswered`);
    return;
  }
  enterLoss(sock);
  sock.retransmits++;
  sock.totalRto++;
  pushPending(sock);
  sock.backoff++;
  sock.icskRto = Math.min(sock.icskRto * 2, TCP_RTO_MAX_NS);
  armRto(sock, now + sock.icskRto);
}

/** tcp_send_loss_probe: one new segment if the window allows, else the last one again; then the RTO. */
function lossProbe(sock: TcpSocket, now: number): void {
  if (sock.tlpHighSeq === -1 && (sendNewProbe(sock) || retransmitTail(sock))) {
    sock.tlpHighSeq = sock.sndNxt;
    sock.stack.counters.lossProbes++;
  }
  armRto(sock, now + sock.icskRto);
}

/** tcp_probe_timer / tcp_send_probe0. */
function probeTimer(sock: TcpSocket): void {
  if (sock.packetsOut > 0 || seqDiff(sock.writeSeq, sock.sndNxt) <= 0) {
    sock.probes = 0;
    return;
  }
  if (sock.sndWnd > 0) {
    sock.probes = 0;
    pushPending(sock);
    return;
  }
  if (sock.probes >= sock.stack.sysctl.retries2) {
    giveUp(sock, "connection timed out: the peer's window stayed closed");
    return;
  }
  sock.probes++;
  sendWindowProbe(sock);
  sock.rtxMode = PERSIST_MODE;
  setRtxDeadline(sock, sock.now + Math.min(sock.icskRto * 2 ** sock.probes, TCP_RTO_MAX_NS));
}

/** RACK's reorder timer: decide on the segments that were still inside the reordering window. */
export function armReorder(sock: TcpSocket, at: number): void {
  const sim = sock.stack.sim;
  if (sock.reoTimer !== 0) sim.cancel(sock.reoTimer);
  sock.reoTimer = sim.scheduleAt(Math.ceil(at), fireReorder, sock);
}

function onReorderTimer(sock: TcpSocket): void {
  sock.reoTimer = 0;
  if (sock.closed || sock.packetsOut === 0) return;
  const now = sock.now;
  const marked = rackDetectLoss(sock, now);
  if (sock.reoWait > 0) armReorder(sock, now + sock.reoWait);
  if (marked === 0) return;
  if (sock.caState < CaState.RECOVERY) {
    enterRecovery(sock);
    cwndReduction(sock, 1, false, marked);
  }
  pushPending(sock);
}

/** tcp_send_delayed_ack: the ACK goes out after the ATO unless something else carries it first. */
export function armDelack(sock: TcpSocket): void {
  let ato = sock.ato > 0 ? sock.ato : sock.stack.sysctl.atoMinNs;
  const atoMin = sock.stack.sysctl.atoMinNs;
  if (ato > atoMin) {
    let maxAto = NS_PER_SEC / 2;
    if (sock.pingpong) maxAto = TCP_DELACK_MAX_NS;
    if (sock.rtt.srtt > 0) maxAto = Math.min(maxAto, Math.max(sock.rtt.srtt, atoMin));
    ato = Math.min(ato, maxAto);
  }
  const at = Math.ceil(sock.now + ato);
  if (sock.delackTimer !== 0 && sock.delackDeadline <= at) return;
  if (sock.delackTimer !== 0) sock.stack.sim.cancel(sock.delackTimer);
  sock.delackDeadline = at;
  sock.delackTimer = sock.stack.sim.scheduleAt(at, fireDelack, sock);
}

function onDelackTimer(sock: TcpSocket): void {
  sock.delackTimer = 0;
  if (!sock.ackPending || sock.state === TcpState.CLOSED) return;
  const atoMin = sock.stack.sysctl.atoMinNs;
  if (sock.pingpong) {
    sock.pingpong = false;
    sock.ato = atoMin;
  } else {
    sock.ato = Math.min(sock.ato * 2, sock.icskRto);
  }
  sock.stack.counters.delayedAcks++;
  sendAck(sock);
}

export function scheduleGroFlush(sock: TcpSocket, flushNs: number): void {
  sock.groTimer = sock.stack.sim.schedule(flushNs, fireGro, sock);
}

/** TIME_WAIT for 60 s (restarted by a retransmitted FIN), then the pair is free again. */
export function enterTimeWait(sock: TcpSocket): void {
  sock.setState(TcpState.TIME_WAIT);
  stopRto(sock);
  const sim = sock.stack.sim;
  if (sock.stateTimer !== 0) sim.cancel(sock.stateTimer);
  sock.stateTimer = sim.schedule(TCP_TIMEWAIT_NS, fireState, sock);
}

/** An orphaned FIN_WAIT_2 socket waits tcp_fin_timeout for the peer's FIN. */
export function armFinWait2(sock: TcpSocket): void {
  const sim = sock.stack.sim;
  if (sock.stateTimer !== 0) sim.cancel(sock.stateTimer);
  sock.stateTimer = sim.schedule(sock.stack.sysctl.finTimeoutNs, fireState, sock);
}

/** The caller's connect timeout (curl --connect-timeout). */
export function armConnectTimeout(sock: TcpSocket, timeoutNs: number): void {
  sock.connectTimer = sock.stack.sim.schedule(timeoutNs, fireConnect, sock);
}

export function cancelTimers(sock: TcpSocket): void {
  const sim = sock.stack.sim;
  for (const id of [sock.rtxTimer, sock.delackTimer, sock.groTimer, sock.stateTimer, sock.connectTimer, sock.reoTimer]) if (id !== 0) sim.cancel(id);
  sock.reoTimer = 0;
  sock.rtxTimer = 0;
  sock.rtxDeadline = 0;
  sock.delackTimer = 0;
  sock.groTimer = 0;
  sock.stateTimer = 0;
  sock.connectTimer = 0;
}

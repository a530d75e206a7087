// Segment arrival for one connection (RFC 9293 3.10.7 with Linux's choices): SYN-SENT handling,
// the acceptability test (tcp_sequence), RST and SYN checks (RFC 5961 challenge ACKs), ACK
// processing, in-order / duplicate / out-of-order data, FIN, the delayed-ACK decision
// (__tcp_ack_snd_check) and GRO batches. In-order data reaches the application after the ACK
// decision, as the kernel queues it for a reader that runs later.

import { consumeSkb } from "../../skb/buffer-pool.js";
import type { SkBuff } from "../../skb/skbuff.js";
import { ackWithNothingInFlight, processAck } from "./ack.js";
import { acceptSynAck, establish } from "./open.js";
import { receivedTruesize } from "./receive-queue.js";
import type { Segment } from "./segment.js";
import { seqAdd, seqDiff, seqGt, seqLeq, seqLt } from "./seq.js";
import type { TcpSocket } from "./socket.js";
import { tcpError, TcpError, TcpState } from "./states.js";
import { armDelack, enterTimeWait, scheduleGroFlush } from "./timers.js";
import { pushPending, sendAck, sendReset, sendSyn, TcpFlags } from "./tx.js";
import { computeWindow, growWindow, incrQuickAck, rcvSpaceAdjust } from "./window.js";
import { pow2 } from "./pow2.js";

/** Entry point: the stack found this connection for the segment. */
export function segmentArrived(sock: TcpSocket, seg: Segment): void {
  sock.stats.segsIn++;
  switch (sock.state) {
    case TcpState.SYN_SENT:
      synSent(sock, seg);
      return;
    case TcpState.CLOSED:
      return;
    case TcpState.TIME_WAIT:
      timeWait(sock, seg);
      return;
    default:
      synchronized(sock, seg);
  }
}

function synSent(sock: TcpSocket, seg: Segment): void {
  const f = seg.flags;
  const hasAck = (f & TcpFlags.ACK) !== 0;
  if (hasAck && (seqLeq(seg.ack, sock.iss) || seqGt(seg.ack, sock.sndNxt))) {
    if ((f & TcpFlags.RST) === 0) sock.stack.resetForSegment(seg);
    return;
  }
  if ((f & TcpFlags.RST) !== 0) {
    if (!hasAck) return;
    sock.stack.counters.resetsReceived++;
    sock.stack.counters.attemptFails++;
    sock.destroy(tcpError(TcpError.REFUSED, "ECONNREFUSED", "connection refused: the SYN was answered with a reset"));
    return;
  }
  if ((f & TcpFlags.SYN) === 0 || !hasAck) return;
  acceptSynAck(sock, seg);
  establish(sock, seg);
  const sent = sock.stats.segsOut;
  if (sock.sendBuffer.length > 0 || sock.finQueued) {
    if (sock.finQueued) sock.setState(TcpState.FIN_WAIT_1);
    pushPending(sock);
  }
  if (sock.stats.segsOut === sent) sendAck(sock);
  sock.events.onConnect?.(sock);
}

function timeWait(sock: TcpSocket, seg: Segment): void {
  const f = seg.flags;
  if ((f & TcpFlags.RST) !== 0) return;
  if ((f & TcpFlags.SYN) !== 0 && (f & TcpFlags.ACK) === 0 && seqGt(seg.seq, sock.rcvNxt)) {
    // tcp_timewait_state_process: a new SYN may reuse the pair (TCP_TW_SYN).
    sock.destroy(null);
    sock.stack.redeliver(seg);
    return;
  }
  if ((f & TcpFlags.FIN) !== 0 || seqLt(seg.seq, sock.rcvNxt)) {
    sendAck(sock);
    enterTimeWait(sock);
  }
}

function synchronized(sock: TcpSocket, seg: Segment): void {
  const f = seg.flags;
  const stack = sock.stack;
  if (sock.state === TcpState.SYN_RECEIVED && (f & (TcpFlags.SYN | TcpFlags.ACK)) === TcpFlags.SYN && seg.seq === sock.irs) {
    sendSyn(sock);
    return;
  }
  const end = seqAdd(seg.seq, seg.seqLen);
  const acceptable = !seqLt(end, sock.rcvWup) && !seqGt(seg.seq, seqAdd(sock.rcvNxt, sock.rcvWindowNow()));
  if (!acceptable) {
    if ((f & TcpFlags.RST) === 0) {
      sock.ackNow = true;
      sendAck(sock);
    }
    return;
  }
  if ((f & TcpFlags.RST) !== 0) {
    if (seg.seq !== sock.rcvNxt) {
      sendAck(sock);
      return;
    }
    stack.counters.resetsReceived++;
    if (sock.state === TcpState.SYN_RECEIVED) {
      sock.destroy(null);
      return;
    }
    if (sock.state === TcpState.ESTABLISHED || sock.state === TcpState.CLOSE_WAIT) stack.counters.establishedResets++;
    const quiet = sock.state === TcpState.LAST_ACK || sock.state === TcpState.CLOSING;
    sock.destroy(quiet ? null : tcpError(TcpError.RESET, sock.state === TcpState.CLOSE_WAIT ? "EPIPE" : "ECONNRESET", "connection reset by peer"));
    return;
  }
  if ((f & TcpFlags.SYN) !== 0) {
    sendAck(sock);
    return;
  }
  if ((f & TcpFlags.ACK) === 0) return;
  if (sock.state === TcpState.SYN_RECEIVED) {
    if (!seqGt(seg.ack, sock.sndUna) || seqGt(seg.ack, sock.sndNxt)) {
      stack.resetForSegment(seg);
      return;
    }
    establish(sock, seg);
    sock.sndWnd = seg.window * pow2(sock.sndWscale);
    sock.sndWl1 = seg.seq;
    sock.sndWl2 = seg.ack;
    sock.windowOffered(sock.sndWnd);
    stack.accepted(sock);
    if (sock.closed) return;
  } else if (!ackWithNothingInFlight(sock, seg) && !processAck(sock, seg)) {
    return;
  }
  if (sock.closed) return;
  if (sock.tsOk && seg.hasTimestamp && seqLeq(seg.seq, sock.rcvWup)) sock.tsRecent = seg.tsVal;
  if (seg.payloadLen > 0 || (f & TcpFlags.FIN) !== 0) receiveData(sock, seg);
  if (sock.closed) return;
  pushPending(sock);
  if (sock.groOpen) return;
  ackSndCheck(sock);
  deliverPending(sock);
}

/** tcp_data_queue: in-order, duplicate, overlapping and out-of-order payload, then the FIN. */
function receiveData(sock: TcpSocket, seg: Segment): void {
  const s = sock.state;
  const len = seg.payloadLen;
  const open = s === TcpState.ESTABLISHED || s === TcpState.FIN_WAIT_1 || s === TcpState.FIN_WAIT_2;
  if (!open) {
    // Data or a FIN after the peer's FIN: only re-acknowledge.
    sock.ackNow = true;
    sock.ackPending = true;
    return;
  }
  if (len > 0 && sock.orphan && seqGt(seqAdd(seg.seq, len), sock.rcvNxt)) {
    // Data for a socket the application closed: the kernel resets (tcp_rcv_state_process).
    sendReset(sock);
    sock.destroy(null);
    return;
  }
  const counters = sock.stack.counters;
  if (len > 0) {
    counters.rxBytes += len;
    measureRcvMss(sock, seg.gsoSize !== 0 ? seg.gsoSize : len);
    let seq = seg.seq;
    let from = seg.payloadStart;
    let n = len;
    if (seqLt(seq, sock.rcvNxt)) {
      const dup = seqDiff(sock.rcvNxt, seq);
      if (dup >= n) {
        sock.ackNow = true;
        sock.ackPending = true;
        incrQuickAck(sock);
        n = 0;
      } else {
        seq = sock.rcvNxt;
        from += dup;
        n -= dup;
      }
    }
    if (n > 0 && seq === sock.rcvNxt) {
      queueInOrder(sock, seg.data, from, n, receivedTruesize(n, seg.gsoSize));
      sock.rcvNxt = seqAdd(sock.rcvNxt, n);
      eventDataRecv(sock, n);
      if (sock.rq.hasOutOfOrder) {
        sock.rcvNxt = sock.rq.drainInOrder(sock.rcvNxt, (bytes, charge, owner) => {
          queueInOrder(sock, bytes, 0, bytes.length, charge);
          if (owner !== null) holdPendingSkb(sock, owner);
        });
        if (!sock.rq.hasOutOfOrder) sock.ackNow = true;
      }
    } else if (n > 0) {
      counters.outOfOrder++;
      if (sock.rq.addOutOfOrder(seq, seg.data, from, n, seg.gsoSize, sock.stack.currentSkb)) sock.stack.payloadKept = true;
      sock.ackPending = true;
      sock.ackNow = true;
    }
  }
  if ((seg.flags & TcpFlags.FIN) !== 0) sock.pendingFinSeq = seqAdd(seg.seq, len);
  if (sock.pendingFinSeq >= 0 && sock.pendingFinSeq === sock.rcvNxt) receiveFin(sock);
}

/** Holds bytes[from, from+len), in-order payload, for deliverPending. */
function queueInOrder(sock: TcpSocket, bytes: Uint8Array, from: number, len: number, charge: number): void {
  const i = sock.pendingCount++;
  sock.pendingBytes[i] = bytes;
  sock.pendingFrom[i] = from;
  sock.pendingLen[i] = len;
  sock.pendingCharge += charge;
  sock.stats.bytesReceived += len;
}

/** tcp_measure_rcv_mss: the peer's segment size as seen on the wire (gso_size of a GRO-merged skb). */
function measureRcvMss(sock: TcpSocket, len: number): void {
  if (len >= sock.rcvMss) sock.rcvMss = Math.min(len, sock.advmss);
}

/** tcp_event_data_recv: schedule an ACK, adapt the ATO, grow the window. */
function eventDataRecv(sock: TcpSocket, len: number): void {
  sock.ackPending = true;
  const now = sock.now;
  const atoMin = sock.stack.sysctl.atoMinNs;
  if (sock.ato === 0) {
    incrQuickAck(sock);
    sock.ato = atoMin;
  } else {
    const m = now - sock.lastRecvTime;
    if (m <= atoMin / 2) sock.ato = Math.floor(sock.ato / 2) + atoMin / 2;
    else if (m < sock.ato) sock.ato = Math.min(Math.floor(sock.ato / 2) + m, sock.icskRto);
    else if (m > sock.icskRto) incrQuickAck(sock);
  }
  sock.lastRecvTime = now;
  growWindow(sock, len);
}

/** tcp_fin: the peer's FIN is in order. */
function receiveFin(sock: TcpSocket): void {
  sock.rcvNxt = seqAdd(sock.rcvNxt, 1);
  sock.pendingFinSeq = -1;
  sock.finReceived = true;
  sock.ackPending = true;
  switch (sock.state) {
    case TcpState.ESTABLISHED:
      sock.setState(TcpState.CLOSE_WAIT);
      sock.pingpong = true;
      break;
    case TcpState.FIN_WAIT_1:
      sock.setState(TcpState.CLOSING);
      sock.ackNow = true;
      break;
    case TcpState.FIN_WAIT_2:
      sock.ackNow = true;
      enterTimeWait(sock);
      break;
  }
}

/** __tcp_ack_snd_check: ACK now, or arm the delayed-ACK timer. */
function ackSndCheck(sock: TcpSocket): void {
  if (!sock.ackPending || sock.state === TcpState.CLOSED) return;
  const quick = sock.quickAcks > 0 && !sock.pingpong;
  const fullFrames = seqDiff(sock.rcvNxt, sock.rcvWup) > sock.rcvMss && computeWindow(sock) >= sock.rcvWnd;
  if (sock.ackNow || quick || fullFrames || sock.rq.hasOutOfOrder) sendAck(sock);
  else armDelack(sock);
}

/** Hands queued in-order data to the application (or its receive queue), then the FIN. */
function deliverPending(sock: TcpSocket): void {
  const pendingBytes = sock.pendingBytes;
  const pendingFrom = sock.pendingFrom;
  const pendingLen = sock.pendingLen;
  const count = sock.pendingCount;
  if (count > 0) {
    const before = sock.rcvWindowNow();
    sock.pendingCount = 0;
    for (let i = 0; i < count; i++) {
      const bytes = pendingBytes[i]!;
      const from = pendingFrom[i]!;
      const len = pendingLen[i]!;
      if (sock.autoRead) {
        sock.copiedSeq = seqAdd(sock.copiedSeq, len);
        sock.handOver(bytes, from, len);
      } else {
        sock.rq.queueUnread(bytes.subarray(from, from + len), receivedTruesize(len, len > sock.rcvMss ? sock.rcvMss : 0));
      }
    }
    sock.pendingCharge = 0;
    if (sock.state !== TcpState.CLOSED) windowUpdateAfterRead(sock, before);
  }
  releasePendingSkbs(sock);
  if (sock.finReceived && !sock.endNotified && sock.state !== TcpState.CLOSED) {
    sock.endNotified = true;
    sock.events.onEnd?.(sock);
    // Both directions are finished once our FIN was acknowledged too.
    if (sock.state === TcpState.TIME_WAIT) sock.notifyClose(null);
  }
}

/** Keeps a packet whose buffer pending views point into until they are handed over. */
export function holdPendingSkb(sock: TcpSocket, skb: SkBuff): void {
  sock.pendingSkbs[sock.pendingSkbCount++] = skb;
}

/** The packets behind views just handed over are consumed (in arrival order): their buffers go back to the pool. */
function releasePendingSkbs(sock: TcpSocket): void {
  const skbs = sock.pendingSkbs;
  const count = sock.pendingSkbCount;
  sock.pendingSkbCount = 0;
  for (let i = 0; i < count; i++) consumeSkb(skbs[i]!);
}

/**
 * tcp_cleanup_rbuf after the application consumed data: DRS, then an ACK now when one is scheduled
 * for more than one full segment, or else when the window the read freed is at least twice the one
 * still open (also while a delayed ACK is scheduled: with segments near the window's size, the
 * sender may be waiting for that window with one segment unacknowledged).
 */
export function windowUpdateAfterRead(sock: TcpSocket, before: number): void {
  rcvSpaceAdjust(sock);
  if (sock.finReceived || sock.state === TcpState.CLOSED || sock.state === TcpState.SYN_SENT) return;
  // The once-per-two-segments ACK tcp_input held back (the window did not advance yet) goes now.
  if (sock.ackPending && seqDiff(sock.rcvNxt, sock.rcvWup) > sock.rcvMss) {
    sendAck(sock);
    return;
  }
  if (2 * before <= sock.windowClamp) {
    const next = computeWindow(sock);
    if (next > 0 && next >= 2 * before) sendAck(sock);
  }
}

/** Ends a GRO batch: count it and make the ACK decision for everything it held. */
export function flushGro(sock: TcpSocket): void {
  if (!sock.groOpen) return;
  sock.groOpen = false;
  const stack = sock.stack;
  stack.counters.rxBatches++;
  stack.costObserver?.rxBatch(sock.groSegs, sock.groBytes);
  sock.groSegs = 0;
  sock.groBytes = 0;
  if (sock.closed) return;
  ackSndCheck(sock);
  deliverPending(sock);
}

/**
 * GRO: whether this segment joins (or opens) a batch. In-order data joins while the batch is under
 * 64 KB; anything else flushes the open batch first and counts as a batch of its own.
 */
export function groAdmit(sock: TcpSocket, seg: Segment): void {
  const stack = sock.stack;
  const flushNs = stack.sysctl.groFlushNs;
  const joinable = flushNs > 0 && seg.payloadLen > 0 && seg.seq === sock.rcvNxt &&
    (seg.flags & (TcpFlags.SYN | TcpFlags.RST | TcpFlags.FIN)) === 0 && sock.state !== TcpState.SYN_SENT;
  if (sock.groOpen && (!joinable || sock.groBytes + seg.payloadLen > 65536)) flushGro(sock);
  if (!joinable) {
    stack.counters.rxBatches++;
    stack.costObserver?.rxBatch(seg.gsoSegs, seg.payloadLen);
    return;
  }
  if (!sock.groOpen) {
    sock.groOpen = true;
    scheduleGroFlush(sock, flushNs);
  }
  sock.groSegs += seg.gsoSegs;
  sock.groBytes += seg.payloadLen;
}


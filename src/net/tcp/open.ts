// Opening a connection: the active side's SYN (tcp_connect), the passive side's SYN-ACK for a
// listener's SYN (tcp_conn_request / tcp_openreq_init_rwin) with option negotiation, and the move
// to ESTABLISHED (tcp_finish_connect / tcp_init_transfer / tcp_init_buffer_space).

import { NS_PER_SEC, TCP_MSS_DEFAULT, TCP_TIMEOUT_INIT_NS, TS_ALIGNED } from "./constants.js";
import { seqAdd } from "./seq.js";
import type { Segment } from "./segment.js";
import type { TcpSocket } from "./socket.js";
import { TcpState } from "./states.js";
import { armRto, stopRto } from "./timers.js";
import { sendSyn } from "./tx.js";
import { initBufferSpace, initialWindow } from "./window.js";

/** TCP_TIMEOUT_FALLBACK: the RTO after a handshake that gave no RTT sample. */
const TIMEOUT_FALLBACK_NS = 3 * NS_PER_SEC;
const TCP_MIN_MSS = 88;

/** tcp_initialize_rcv_mss: the first guess of the peer's segment size. */
function initRcvMss(sock: TcpSocket): void {
  let hint = Math.min(sock.advmss, sock.mss, Math.floor(sock.rcvWnd / 2), TCP_MSS_DEFAULT);
  hint = Math.max(hint, TCP_MIN_MSS);
  sock.rcvMss = hint;
}

function chooseIdentity(sock: TcpSocket): void {
  const rng = sock.stack.rng;
  sock.iss = rng.nextU32();
  sock.sndUna = sock.iss;
  sock.sndNxt = seqAdd(sock.iss, 1);
  sock.tsOffset = rng.nextU32();
  sock.ipId = rng.nextU32() & 0xffff;
}

/** Sends the SYN of an active open. */
export function startActiveOpen(sock: TcpSocket): void {
  const sys = sock.stack.sysctl;
  chooseIdentity(sock);
  sock.tsOk = sys.timestamps;
  sock.sackOk = sys.sack;
  sock.wscaleOk = sys.windowScaling;
  sock.syncMss();
  initialWindow(sock, sock.advmss, sock.wscaleOk);
  initRcvMss(sock);
  sock.setState(TcpState.SYN_SENT);
  const now = sock.now;
  sock.synSentAt = now;
  sock.retransStamp = now;
  sock.icskRto = TCP_TIMEOUT_INIT_NS;
  sock.stack.counters.activeOpens++;
  sendSyn(sock);
  armRto(sock, now + sock.icskRto);
}

/** Takes the options of a SYN (or SYN-ACK) the peer sent. */
function negotiate(sock: TcpSocket, seg: Segment, offeredWscale: boolean, active: boolean): void {
  const sys = sock.stack.sysctl;
  sock.tsOk = sys.timestamps && seg.hasTimestamp;
  sock.sackOk = sys.sack && seg.sackPermitted;
  if (offeredWscale && seg.wscale >= 0) {
    sock.sndWscale = seg.wscale;
  } else {
    sock.wscaleOk = false;
    sock.sndWscale = 0;
    sock.rcvWscale = 0;
    sock.windowClamp = Math.min(sock.windowClamp, 0xffff);
  }
  sock.peerMss = seg.mss > 0 ? seg.mss : TCP_MSS_DEFAULT;
  if (sock.tsOk) sock.tsRecent = seg.tsVal;
  sock.irs = seg.seq;
  sock.rcvNxt = seqAdd(seg.seq, 1);
  sock.rcvWup = sock.rcvNxt;
  sock.copiedSeq = sock.rcvNxt;
  sock.sndWnd = seg.window;
  sock.sndWl1 = seg.seq;
  // The active side takes the SYN-ACK's window as its first max_window (tcp_ack on the SYN-ACK); the
  // passive side's comes with the handshake's last ACK (tcp_create_openreq_child).
  if (active) sock.maxWindow = seg.window;
  sock.syncMss();
}

/** A listener's socket answers a SYN with a SYN-ACK (state SYN-RECEIVED). */
export function startPassiveOpen(sock: TcpSocket, seg: Segment): void {
  const sys = sock.stack.sysctl;
  chooseIdentity(sock);
  sock.wscaleOk = sys.windowScaling && seg.wscale >= 0;
  negotiate(sock, seg, sock.wscaleOk, false);
  sock.sndWl2 = sock.iss;
  initialWindow(sock, sock.advmss - (sock.tsOk ? TS_ALIGNED : 0), sock.wscaleOk);
  initRcvMss(sock);
  sock.setState(TcpState.SYN_RECEIVED);
  const now = sock.now;
  sock.synSentAt = now;
  sock.icskRto = TCP_TIMEOUT_INIT_NS;
  sock.stack.counters.passiveOpens++;
  sendSyn(sock);
  armRto(sock, now + sock.icskRto);
}

/** The SYN-ACK arrived for our SYN: take its options. */
export function acceptSynAck(sock: TcpSocket, seg: Segment): void {
  negotiate(sock, seg, sock.wscaleOk, true);
  sock.sndWl2 = seg.ack;
}

/** Both sides' SYNs are acknowledged: ESTABLISHED, with the handshake's RTT sample. */
export function establish(sock: TcpSocket, seg: Segment): void {
  const now = sock.now;
  sock.synAcked = true;
  sock.sndUna = seg.ack;
  if (sock.retransmits === 0) sock.rtt.sample(now - sock.synSentAt);
  else if (sock.tsOk && seg.hasTimestamp && seg.tsEcr !== 0) sock.rtt.sample(Math.max(1, ((Math.floor(now / 1e6) + sock.tsOffset - seg.tsEcr) >>> 0)) * 1e6);
  sock.icskRto = sock.rtt.srtt > 0 ? sock.rtt.rto : TIMEOUT_FALLBACK_NS;
  if (sock.rtt.srtt > 0) sock.cc.pktsAcked(sock.rtt.latest, now);
  sock.cwnd = sock.retransmits > 1 ? 1 : sock.stack.sysctl.initCwnd;
  sock.backoff = 0;
  sock.retransmits = 0;
  sock.totalRto = 0;
  sock.retransStamp = 0;
  sock.lastRecvTime = now;
  stopRto(sock);
  sock.setState(TcpState.ESTABLISHED);
  sock.stats.establishedAt = now;
  initBufferSpace(sock);
}

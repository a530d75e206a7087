// Segment output: building the IPv4 + TCP bytes of every segment a connection sends (SYN, SYN-ACK,
// data, FIN, ACK, RST, window probe) and tcp_write_xmit's decisions: lost segments first, then new
// data within cwnd and the peer's window (Nagle, sender-side SWS avoidance, FIN exempt from cwnd),
// grouped into GSO/TSO batches sized like tcp_tso_autosize.

import { TracePoint } from "../../../datapath/reasons.js";
import { write16, write32 } from "../../wire/bytes.js";
import { packetBuffers } from "../../skb/buffer-pool.js";
import { DEFAULT_HEADROOM, GsoType, SkBuff } from "../../skb/skbuff.js";
import { foldSum, onesSum, pseudoHeaderSumV4, rememberZeroSum, setL4ChecksumV4 } from "../../wire/checksum.js";
import { IPPROTO_TCP, IP_DF, writeIpv4Header, writeIpv4HeaderUnsummed } from "../stack/ip-packet.js";
import { F64_ZERO, GSO_MAX_BYTES, IPV4_HEADER, IP_ID_NONE, MAX_TCP_HEADER, NS_PER_MS, TCP_HEADER, TS_ALIGNED, U16_MAX } from "./constants.js";
import { boundToHalfWindow } from "./half-window.js";
import { dataOptionsLength, synOptionsLength, writeDataOptions, writeSynOptions, type SynOptions } from "./options.js";
import { Sacked } from "./rtx-queue.js";
import { seqAdd, seqDiff } from "./seq.js";
import type { TcpSocket } from "./socket.js";
import { CaState, TcpState } from "./states.js";
import { armPersist, armXmitTimer } from "./timers.js";
import { onAckSent, selectWindow } from "./window.js";
import { pow2 } from "./pow2.js";

export const TcpFlags = { FIN: 0x01, SYN: 0x02, RST: 0x04, PSH: 0x08, ACK: 0x10 } as const;

/** net.ipv4.tcp_tso_win_divisor. */
const TSO_WIN_DIVISOR = 3;

const sackLeft = new Uint32Array(4);
const sackRight = new Uint32Array(4);
const synOpts: SynOptions = { mss: 0, sackPermitted: false, timestamps: false, tsVal: F64_ZERO, tsEcr: F64_ZERO, wscale: -1 };

/** The connection's timestamp clock: milliseconds plus its random offset (tcp_time_stamp_ts). */
function tsNow(sock: TcpSocket): number {
  return (Math.floor(sock.now / NS_PER_MS) + sock.tsOffset) >>> 0;
}

/**
 * Builds and sends one segment, or with segs > 1 a GSO super-packet of segs segments of sock.mss
 * bytes (the last may be shorter). dataLen bytes are copied from the send buffer at `seq`. syn !== null
 * makes it a SYN/SYN-ACK with those options; otherwise it carries timestamps and SACK blocks.
 */
function emit(sock: TcpSocket, flags: number, seq: number, dataLen: number, syn: SynOptions | null, ipId: number, segs = 1): void {
  const stack = sock.stack;
  const world = stack.world;
  const sackBlocks = syn === null && (flags & TcpFlags.RST) === 0 && sock.sackOk && sock.rq.hasOutOfOrder
    ? sock.rq.sackBlocks(sock.tsOk ? 3 : 4, sackLeft, sackRight)
    : 0;
  const optLen = syn !== null ? synOptionsLength(syn) : dataOptionsLength(sock.tsOk, sackBlocks);
  const tcpLen = TCP_HEADER + optLen + dataLen;
  // A recycled buffer (the receiving socket hands it back): every byte from head on is written below.
  const end = DEFAULT_HEADROOM + IPV4_HEADER + tcpLen;
  const skb = new SkBuff(world.ledger.admit(), packetBuffers.acquireWithZeros(end), DEFAULT_HEADROOM, end);
  const zeroStart = packetBuffers.zeroStart;
  const zeroEnd = packetBuffers.zeroEnd;
  const b = skb.data;
  const ip = skb.head;
  // ip_local_out (outputIp) sums the header before anything reads it; only the hop recorded below,
  // before it, would see the header unsummed, so it is summed here only when hops are traced.
  const hops = world.tracer.hops;
  if (hops) writeIpv4Header(b, ip, 0, IPV4_HEADER + tcpLen, ipId, IP_DF, stack.ns.sysctl.ipDefaultTtl, IPPROTO_TCP, sock.localAddr, sock.remoteAddr);
  else writeIpv4HeaderUnsummed(b, ip, 0, IPV4_HEADER + tcpLen, ipId, IP_DF, stack.ns.sysctl.ipDefaultTtl, IPPROTO_TCP, sock.localAddr, sock.remoteAddr);
  const t = ip + IPV4_HEADER;
  write16(b, t, sock.localPort);
  write16(b, t + 2, sock.remotePort);
  write32(b, t + 4, seq);
  const hasAck = (flags & TcpFlags.ACK) !== 0;
  write32(b, t + 8, hasAck ? sock.rcvNxt : 0);
  b[t + 12] = ((TCP_HEADER + optLen) / 4) << 4;
  b[t + 13] = flags;
  const window = syn !== null ? Math.min(sock.rcvWnd, U16_MAX) : selectWindow(sock);
  write16(b, t + 14, window);
  write16(b, t + 18, 0); // urgent pointer
  if (syn !== null) writeSynOptions(b, t + TCP_HEADER, syn);
  else if (optLen > 0) writeDataOptions(b, t + TCP_HEADER, sock.tsOk, tsNow(sock), sock.tsRecent, sackBlocks, sackLeft, sackRight);
  if (dataLen > 0) writePayload(sock, seqDiff(seq, sock.dataBase), dataLen, b, t + TCP_HEADER + optLen, zeroStart, zeroEnd);
  if (segs > 1) {
    // CHECKSUM_PARTIAL: the check field holds the pseudo-header sum; segmentation completes it per segment.
    skb.gsoSize = sock.mss;
    skb.gsoSegs = segs;
    skb.gsoType = GsoType.TCPV4;
    write16(b, t + 16, foldSum(pseudoHeaderSumV4(sock.localAddr, sock.remoteAddr, IPPROTO_TCP, 0)));
  } else if (dataLen === 0) {
    // A header-only segment (most are ACKs): its few words are summed directly. The checksum is the
    // same whichever way it is summed, and so short a range leaves the buffer's payload-sum memo alone.
    write16(b, t + 16, 0);
    write16(b, t + 16, ~foldSum(onesSum(b, t, t + tcpLen, pseudoHeaderSumV4(sock.localAddr, sock.remoteAddr, IPPROTO_TCP, tcpLen))) & 0xffff);
  } else {
    setL4ChecksumV4(b, t, tcpLen, IPPROTO_TCP, sock.localAddr, sock.remoteAddr);
  }
  const counters = stack.counters;
  counters.txSegments += segs;
  counters.txBytes += dataLen;
  sock.stats.segsOut += segs;
  if (dataLen > 0) {
    sock.stats.dataSegsOut += segs;
    sock.stats.bytesSent += dataLen;
  }
  if (hasAck) onAckSent(sock);
  if (hops) world.hop(skb, stack.ns.site(null, "tcp"), TracePoint.FROM_SOCKET, `port ${sock.localPort}`, false);
  stack.ns.outputIp(skb);
}

/**
 * Puts dataLen bytes of the send buffer at b[at...]. A zero payload (iperf's block) is not copied
 * where the buffer's last packet left zeros [zeroStart, zeroEnd), and its checksum sum (0) is
 * remembered rather than read: the bytes are the same, written or not.
 */
function writePayload(sock: TcpSocket, offset: number, dataLen: number, b: Uint8Array, at: number, zeroStart: number, zeroEnd: number): void {
  const end = at + dataLen;
  if (!sock.sendBuffer.zeroRange(offset, dataLen)) {
    sock.sendBuffer.copyOut(offset, dataLen, b, at);
    return;
  }
  packetBuffers.writeZeros(b, at, end, zeroStart, zeroEnd);
  rememberZeroSum(b, at, end);
}

/** The socket's next IP ID; a super-packet of segs segments takes segs of them (ip_select_ident_segs). */
function nextIpId(sock: TcpSocket, segs = 1): number {
  const id = sock.ipId;
  sock.ipId = (sock.ipId + segs) & 0xffff;
  return id;
}

/** Counts one transmit batch (a GSO/TSO super-packet, or a lone segment). */
function countTxBatch(sock: TcpSocket, segments: number, bytes: number): void {
  sock.stack.counters.txBatches++;
  sock.stack.costObserver?.txBatch(segments, bytes);
}

/** SYN (active open) or SYN-ACK (passive open), fresh or retransmitted. */
export function sendSyn(sock: TcpSocket): void {
  const synAck = sock.state === TcpState.SYN_RECEIVED;
  synOpts.mss = sock.advmss;
  synOpts.sackPermitted = sock.sackOk;
  synOpts.timestamps = sock.tsOk;
  synOpts.tsVal = tsNow(sock);
  synOpts.tsEcr = synAck ? sock.tsRecent : 0;
  synOpts.wscale = sock.wscaleOk ? sock.rcvWscale : -1;
  emit(sock, synAck ? TcpFlags.SYN | TcpFlags.ACK : TcpFlags.SYN, sock.iss, 0, synOpts, synAck ? IP_ID_NONE : nextIpId(sock));
  countTxBatch(sock, 1, 0);
}

/** A pure ACK of everything received so far (with SACK blocks when data is missing). */
export function sendAck(sock: TcpSocket): void {
  if (sock.state === TcpState.CLOSED || sock.state === TcpState.SYN_SENT) return;
  emit(sock, TcpFlags.ACK, sock.sndNxt, 0, null, nextIpId(sock));
  sock.stack.counters.acksSent++;
  countTxBatch(sock, 1, 0);
}

/** tcp_send_active_reset: RST+ACK at snd_nxt. */
export function sendReset(sock: TcpSocket): void {
  emit(sock, TcpFlags.RST | TcpFlags.ACK, sock.sndNxt, 0, null, nextIpId(sock));
  sock.stack.counters.resetsSent++;
  countTxBatch(sock, 1, 0);
}

/** Zero-window probe (tcp_xmit_probe_skb): an ACK with an old sequence number the peer must answer. */
export function sendWindowProbe(sock: TcpSocket): void {
  emit(sock, TcpFlags.ACK, seqAdd(sock.sndUna, -1), 0, null, nextIpId(sock));
  countTxBatch(sock, 1, 0);
}

/** Queues the FIN (end()/close()): it goes out with the last data or alone. */
export function sendFin(sock: TcpSocket): void {
  pushPending(sock);
}

/**
 * Whether the connection sends GSO super-packets: offload on, and the route's output device takes them
 * (sk_can_gso: the dst device's features; local routes go through loopback, which does).
 */
function canGso(sock: TcpSocket): boolean {
  if (!sock.stack.sysctl.segmentationOffload) return false;
  const route = sock.stack.ns.routes.lookup(sock.remoteAddr);
  return route === null || route.dev === null || route.dev.features.gso;
}

/**
 * TSO/GSO batch size in segments: tcp_tso_autosize (tcp_tso_rtt_log 9, min_tso_segs 2), within the
 * write-queue skb it splits, which tcp_xmit_size_goal sized at sk_gso_max_size rounded down to whole
 * segments, and at least one (an MSS above 32 KB gives one-segment skbs, so no super-packet is ever
 * longer than an IP total length can say).
 */
function tsoSegments(sock: TcpSocket): number {
  if (!sock.stack.sysctl.segmentationOffload) return 1;
  const srtt = sock.rtt.srtt;
  let bytes = 0;
  if (srtt > 0) {
    const ratio = sock.cwnd < sock.ssthresh ? 2 : 1.2;
    bytes = (ratio * sock.cwnd * sock.mss * 1e9) / srtt / 1024;
  }
  const r = Math.floor(sock.rtt.minRtt / 1000 / 512);
  if (r < 32) bytes += GSO_MAX_BYTES / pow2(r);
  const gsoMaxSize = GSO_MAX_BYTES - MAX_TCP_HEADER - 1;
  bytes = Math.min(bytes, gsoMaxSize);
  const autosize = Math.max(Math.floor(bytes / sock.mss), 2);
  const sizeGoal = Math.max(Math.floor(boundToHalfWindow(sock.maxWindow, gsoMaxSize, TCP_HEADER + (sock.tsOk ? TS_ALIGNED : 0)) / sock.mss), 1);
  return autosize < sizeGoal ? autosize : sizeGoal;
}

/**
 * tcp_tso_should_defer: with less than a full super-packet allowed now, wait for the next ACK
 * (expected within half an RTT of the oldest segment) rather than send a small one.
 */
function shouldDefer(sock: TcpSocket, budget: number, room: number, avail: number, batchMax: number, now: number): boolean {
  const mss = sock.mss;
  if (!sock.stack.sysctl.segmentationOffload || avail <= mss || sock.caState >= CaState.RECOVERY) return false;
  if (sock.finQueued && avail <= room && avail <= budget * mss) return false;
  const limit = Math.min(budget * mss, room);
  if (limit >= batchMax * mss) return false;
  if (limit >= Math.min(sock.sndWnd, sock.cwnd * mss) / TSO_WIN_DIVISOR) return false;
  if (now - sock.lastSendTime > NS_PER_MS || sock.rtx.count === 0) return false;
  return now - sock.rtx.sentAt[sock.rtx.slot(0)]! >= sock.rtt.srtt / 2;
}

function sendable(state: TcpState): boolean {
  return state === TcpState.ESTABLISHED || state === TcpState.CLOSE_WAIT || state === TcpState.FIN_WAIT_1 ||
    state === TcpState.LAST_ACK || state === TcpState.CLOSING;
}

/** tcp_cwnd_restart: after an idle period longer than the RTO, start again from the initial window. */
function restartAfterIdle(sock: TcpSocket, now: number): void {
  if (sock.packetsOut !== 0 || sock.lastSendTime === 0) return;
  const idle = now - sock.lastSendTime;
  sock.cc.onTxStart(idle, now);
  if (!sock.stack.sysctl.slowStartAfterIdle || idle <= sock.icskRto) return;
  const restart = Math.min(sock.stack.sysctl.initCwnd, sock.cwnd);
  if (sock.caState < CaState.RECOVERY) sock.ssthresh = Math.max(sock.ssthresh, (3 * sock.cwnd) >>> 2);
  let cwnd = sock.cwnd;
  let delta = idle;
  while ((delta -= sock.icskRto) > 0 && cwnd > restart) cwnd >>>= 1;
  sock.cwnd = Math.max(cwnd, restart);
}

/** Retransmits segments marked lost, oldest first, within the budget; returns the budget left. */
function retransmitLost(sock: TcpSocket, budget: number, now: number): number {
  const q = sock.rtx;
  let seen = 0;
  for (let i = 0; i < q.count && budget > 0 && seen < sock.lostOut; i++) {
    let s = q.slot(i);
    const f = q.flags[s]!;
    if ((f & Sacked.LOST) === 0) continue;
    seen++;
    if ((f & (Sacked.RETRANS | Sacked.SACKED)) !== 0) continue;
    const fin = (f & Sacked.FIN) !== 0;
    let len = seqDiff(q.end[s]!, q.seq[s]!) - (fin ? 1 : 0);
    if (len > sock.mss) {
      // The path MTU shrank since the first transmission: cut the segment (tcp_fragment).
      q.split(i, seqAdd(q.seq[s]!, sock.mss));
      q.flags[s] = f & ~Sacked.FIN;
      sock.packetsOut++;
      sock.lostOut++;
      s = q.slot(i);
      len = sock.mss;
    }
    const segFin = (q.flags[s]! & Sacked.FIN) !== 0;
    if (sock.retransStamp === 0) sock.retransStamp = q.sentAt[s]!;
    emit(sock, TcpFlags.ACK | (segFin ? TcpFlags.FIN : 0) | (len > 0 ? TcpFlags.PSH : 0), q.seq[s]!, len, null, nextIpId(sock));
    q.flags[s] = q.flags[s]! | Sacked.RETRANS | Sacked.EVER_RETRANS;
    q.sentAt[s] = now;
    sock.retransOut++;
    sock.stack.counters.retransSegments++;
    sock.stats.retransmits++;
    if (sock.caState === CaState.RECOVERY) sock.prrOut++;
    countTxBatch(sock, 1, len);
    budget--;
  }
  return budget;
}

/** Sends one new segment of len bytes at snd_nxt (with FIN when it is the last of a closing stream). */
function sendNew(sock: TcpSocket, len: number, fin: boolean, push: boolean, now: number): void {
  const seq = sock.sndNxt;
  const flags = TcpFlags.ACK | (fin ? TcpFlags.FIN : 0) | (push ? TcpFlags.PSH : 0);
  queueNew(sock, len, fin, now);
  emit(sock, flags, seq, len, null, nextIpId(sock));
}

/**
 * The bookkeeping of one new segment at snd_nxt (retransmission queue entry, packets out, snd_nxt):
 * each MSS of a super-packet is its own entry, as tcp_skb_pcount counts it, so SACK, RACK and
 * retransmissions work per segment (a partly acknowledged or lost super-packet is split, tcp_fragment).
 */
function queueNew(sock: TcpSocket, len: number, fin: boolean, now: number): void {
  const seq = sock.sndNxt;
  if (now - sock.lastRecvTime < sock.ato) sock.pingpong = true;
  const end = seqAdd(seq, len + (fin ? 1 : 0));
  sock.rtx.push(seq, end, fin ? Sacked.FIN : 0, now);
  sock.packetsOut++;
  if (sock.packetsOut > sock.maxPacketsOut) sock.maxPacketsOut = sock.packetsOut;
  sock.sndNxt = end;
  if (fin) sock.finSent = true;
  if (sock.caState === CaState.RECOVERY) sock.prrOut++;
  sock.lastSendTime = now;
}

/**
 * queueNew for `count` full segments (no FIN) in a row, as the same number of queueNew calls leave it:
 * the per-segment checks give the same answer for each one (time, state and the ACK timing do not
 * change in between; packets out only grows, so its maximum is the last value).
 */
function queueFullSegments(sock: TcpSocket, count: number, now: number): void {
  if (count <= 0) return;
  if (now - sock.lastRecvTime < sock.ato) sock.pingpong = true;
  sock.sndNxt = sock.rtx.pushRun(sock.sndNxt, sock.mss, count, now);
  sock.packetsOut += count;
  if (sock.packetsOut > sock.maxPacketsOut) sock.maxPacketsOut = sock.packetsOut;
  if (sock.caState === CaState.RECOVERY) sock.prrOut += count;
  sock.lastSendTime = now;
}

/** The loss probe's new segment: one MSS (or less) of unsent data, if the peer's window allows. */
export function sendNewProbe(sock: TcpSocket): boolean {
  const avail = seqDiff(sock.writeSeq, sock.sndNxt);
  const room = seqDiff(seqAdd(sock.sndUna, sock.sndWnd), sock.sndNxt);
  if (avail <= 0 || room <= 0) return false;
  const len = Math.min(sock.mss, avail, room);
  sendNew(sock, len, len === avail && sock.finQueued, len === avail, sock.now);
  countTxBatch(sock, 1, len);
  return true;
}

/** The loss probe's retransmission of the highest-sequence segment. */
export function retransmitTail(sock: TcpSocket): boolean {
  const q = sock.rtx;
  if (q.count === 0) return false;
  const s = q.slot(q.count - 1);
  const f = q.flags[s]!;
  if ((f & Sacked.SACKED) !== 0) return false;
  const fin = (f & Sacked.FIN) !== 0;
  const len = seqDiff(q.end[s]!, q.seq[s]!) - (fin ? 1 : 0);
  if (sock.retransStamp === 0) sock.retransStamp = q.sentAt[s]!;
  emit(sock, TcpFlags.ACK | (fin ? TcpFlags.FIN : 0) | (len > 0 ? TcpFlags.PSH : 0), q.seq[s]!, len, null, nextIpId(sock));
  if ((f & Sacked.RETRANS) === 0) sock.retransOut++;
  q.flags[s] = f | Sacked.RETRANS | Sacked.EVER_RETRANS;
  q.sentAt[s] = sock.now;
  sock.stack.counters.retransSegments++;
  sock.stats.retransmits++;
  countTxBatch(sock, 1, len);
  return true;
}

/** tcp_push_pending_frames: writeXmit, unless the connection has provably nothing to do. */
export function pushPending(sock: TcpSocket): void {
  if (!sendable(sock.state)) return;
  if (idleWithNothingQueued(sock)) {
    // What writeXmit leaves behind in this case: it finds nothing to send and no timer to arm.
    sock.cwndLimited = false;
    return;
  }
  writeXmit(sock);
}

/**
 * Nothing was ever sent, nothing is outstanding and nothing waits to be sent (the receiving side of
 * a bulk transfer, called for every arriving segment): writeXmit would not restart the window
 * (no earlier send), retransmit, send, or arm a timer.
 */
function idleWithNothingQueued(sock: TcpSocket): boolean {
  if (sock.packetsOut !== 0 || sock.lastSendTime !== 0 || sock.lostOut !== 0 || sock.finQueued) return false;
  // The receiver's case first, without the writeSeq getter (it boxes a double when not inlined):
  // an empty send buffer from snd_una = snd_nxt puts write_seq at snd_nxt.
  if (sock.sendBuffer.length === 0 && sock.synAcked && sock.sndUna === sock.sndNxt) return true;
  return seqDiff(sock.writeSeq, sock.sndNxt) <= 0;
}

/** tcp_write_xmit: sends what cwnd, the peer's window and Nagle allow; arms the timers. */
export function writeXmit(sock: TcpSocket): void {
  const now = sock.now;
  restartAfterIdle(sock, now);
  let budget = sock.cwnd - sock.inFlight();
  if (sock.lostOut > 0) budget = retransmitLost(sock, budget, now);
  // The batch size and GSO ability are worked out once something may be sent (0 = not yet): a call
  // with nothing to send (most calls on a receiver, or after the window is used up) skips them.
  let batchMax = 0;
  let gso = false;
  // write_seq stays put while this call sends (only snd_nxt moves).
  const writeSeq = sock.writeSeq;
  let batchSegs = 0;
  let batchBytes = 0;
  let batchSeq = 0;
  let batchFlags = 0;
  let cwndLimited = false;
  const mss = sock.mss;
  const sentBefore = sock.stats.segsOut;
  for (;;) {
    const avail = seqDiff(writeSeq, sock.sndNxt);
    if (avail <= 0) break;
    if (budget <= 0) {
      cwndLimited = true;
      break;
    }
    const room = seqDiff(seqAdd(sock.sndUna, sock.sndWnd), sock.sndNxt);
    if (room <= 0) break;
    if (batchMax === 0) {
      batchMax = tsoSegments(sock);
      gso = batchMax > 1 && canGso(sock);
    }
    if (batchSegs === 0 && shouldDefer(sock, budget, room, avail, batchMax, now)) {
      cwndLimited = true;
      break;
    }
    const len = Math.min(mss, avail, room);
    if (len < mss && sock.packetsOut > 0) {
      if (len < avail) break;
      if (!sock.noDelay && !sock.finQueued) break;
    }
    const last = len === avail;
    const fin = last && sock.finQueued;
    if (!gso) {
      sendNew(sock, len, fin, last, now);
    } else {
      if (batchSegs === 0) batchSeq = sock.sndNxt;
      queueNew(sock, len, fin, now);
      batchFlags = TcpFlags.ACK | (fin ? TcpFlags.FIN : 0) | (last ? TcpFlags.PSH : 0);
    }
    budget--;
    batchSegs++;
    batchBytes += len;
    if (gso && len === mss && !last) {
      // The full segments after this one that the loop would add to the same batch without a
      // decision: within budget and the peer's window, and none of them the stream's last.
      const more = Math.min(batchMax - batchSegs, budget, Math.floor((avail - mss - 1) / mss), Math.floor((room - mss) / mss));
      queueFullSegments(sock, more, now);
      budget -= more;
      batchSegs += more;
      batchBytes += more * mss;
    }
    // A super-packet holds full-sized segments; a short one is its last.
    if (batchSegs >= batchMax || len < mss) {
      if (gso) emit(sock, batchFlags, batchSeq, batchBytes, null, nextIpId(sock, batchSegs), batchSegs);
      countTxBatch(sock, batchSegs, batchBytes);
      batchSegs = 0;
      batchBytes = 0;
    }
  }
  if (batchSegs > 0) {
    if (gso) emit(sock, batchFlags, batchSeq, batchBytes, null, nextIpId(sock, batchSegs), batchSegs);
    countTxBatch(sock, batchSegs, batchBytes);
  }
  if (sock.finQueued && !sock.finSent && seqDiff(writeSeq, sock.sndNxt) === 0) {
    sendNew(sock, 0, true, false, now);
    countTxBatch(sock, 1, 0);
  }
  sock.cwndLimited = cwndLimited;
  const sentNew = sock.stats.segsOut !== sentBefore;
  if (sock.packetsOut > 0) {
    if (sentNew || sock.rtxDeadline === 0 || sock.rtxMode === 1) armXmitTimer(sock, false);
  } else if (seqDiff(writeSeq, sock.sndNxt) > 0 && sock.sndWnd === 0) {
    armPersist(sock);
  }
}

// TcpSocket: one connection's control block (Linux's tcp_sock, reduced) and the application's
// view of it: send/end/close/abort/read plus event callbacks. The segment paths live in
// tx.ts (output), rx.ts (arrivals), ack.ts (the sender's ACK/SACK/recovery processing) and
// timers.ts; they read and write the fields here, which are internal to src/net/tcp.

import type { SkBuff } from "../../skb/skbuff.js";
import { createCongestionControl, INFINITE_SSTHRESH, type CcHost, type CongestionControl } from "./cc/index.js";
import { boundToHalfWindow } from "./half-window.js";
import { F64_ZERO, IPV4_HEADER, sndbufPerMss, TCP_HEADER, TCP_MSS_DEFAULT, TCP_TIMEOUT_INIT_NS, TS_ALIGNED } from "./constants.js";
import { ReceiveQueue } from "./receive-queue.js";
import { RttEstimator } from "./rtt.js";
import { RtxQueue } from "./rtx-queue.js";
import { SendBuffer } from "./send-buffer.js";
import { seqAdd, seqDiff } from "./seq.js";
import { CaState, TcpState, tcpError, TcpError, type TcpErrorInfo } from "./states.js";
import type { TcpSysctl } from "./sysctl.js";
import type { TcpStack } from "./stack.js";
import type { TcpListener } from "./listener.js";
import { pushPending, sendFin, sendReset } from "./tx.js";
import { cancelTimers } from "./timers.js";
import { windowUpdateAfterRead } from "./rx.js";

/** What the application hears from a connection. Callbacks run inside simulator events. */
export interface TcpEvents {
  /** The three-way handshake completed (active open). */
  onConnect?(sock: TcpSocket): void;
  /** In-order payload; the view is only valid during the call. */
  onData?(sock: TcpSocket, data: Uint8Array): void;
  /**
   * In-order payload for an application that only counts it (a sink such as iperf's server): its
   * length, without a view being made for it. Called instead of onData when onData is not set.
   */
  onReceive?(sock: TcpSocket, bytes: number): void;
  /** The peer finished sending (its FIN arrived). */
  onEnd?(sock: TcpSocket): void;
  /** send() may accept more bytes again after it accepted fewer than offered. */
  onWritable?(sock: TcpSocket): void;
  /** The connection is over: null after an orderly close in both directions, else the error. */
  onClose?(sock: TcpSocket, error: TcpErrorInfo | null): void;
}

export interface TcpSocketOptions {
  /** TCP_NODELAY: send small segments without waiting for outstanding data to be acknowledged. */
  readonly noDelay?: boolean;
  /** Congestion control for this socket (TCP_CONGESTION); default the namespace's sysctl. */
  readonly congestion?: TcpSysctl["congestionControl"];
  /** false: in-order data waits in the receive queue until read() (the window fills). Default true. */
  readonly autoRead?: boolean;
  /** SO_SNDBUF / SO_RCVBUF in bytes (disables autotuning of that buffer, as in Linux). */
  readonly sndbuf?: number;
  readonly rcvbuf?: number;
}

/** Per-connection statistics (the subset of `ss -ti` the model tracks). */
export interface TcpSocketStats {
  segsOut: number;
  segsIn: number;
  dataSegsOut: number;
  bytesSent: number;
  bytesAcked: number;
  bytesReceived: number;
  retransmits: number;
  /** Fast-recovery episodes and retransmission timeouts. */
  recoveries: number;
  timeouts: number;
  /** Time of establishment (ns), -1 before. */
  establishedAt: number;
}

export class TcpSocket implements CcHost {
  state: TcpState = TcpState.CLOSED;
  events: TcpEvents;
  /** Byte counts pass 2^30 (a gigabyte) in a long transfer: doubles from the start (see F64_ZERO). */
  readonly stats: TcpSocketStats = {
    segsOut: 0, segsIn: 0, dataSegsOut: 0, bytesSent: F64_ZERO, bytesAcked: F64_ZERO, bytesReceived: F64_ZERO,
    retransmits: 0, recoveries: 0, timeouts: 0, establishedAt: -1,
  };
  /** The error the connection ended with (null while open or after an orderly close). */
  error: TcpErrorInfo | null = null;
  readonly noDelay: boolean;
  autoRead: boolean;
  /** Set when send() could not take everything (onWritable is due when space frees). */
  wantWritable = false;

  // ---- send side ----
  iss = F64_ZERO;
  /** Our SYN has been acknowledged. */
  synAcked = false;
  sndUna = F64_ZERO;
  sndNxt = F64_ZERO;
  /** Peer's window in bytes (already scaled). */
  sndWnd = F64_ZERO;
  sndWl1 = F64_ZERO;
  sndWl2 = F64_ZERO;
  /** Shift the peer applies to its window field. */
  sndWscale = 0;
  readonly sendBuffer = new SendBuffer();
  /** Send buffer limit in payload bytes (sk_sndbuf). */
  sndbuf: number;
  readonly sndbufLocked: boolean;
  /** The application called end()/close(): a FIN follows the queued data. */
  finQueued = false;
  finSent = false;
  /** Payload bytes per segment (mss_cache: path MSS minus the options every segment carries). */
  mss = TCP_MSS_DEFAULT;
  /** MSS the peer announced (mss_clamp). */
  peerMss = TCP_MSS_DEFAULT;
  /** Largest window the peer has offered (max_window): segments and super-packets stay within half of it. */
  maxWindow = F64_ZERO;
  /** MSS this end announces (advmss = route MTU - 40). */
  advmss: number;
  pmtu: number;
  tsOk = false;
  sackOk = false;
  wscaleOk = false;
  tsOffset = F64_ZERO;
  /** Peer's latest timestamp value to echo (ts_recent). */
  tsRecent = F64_ZERO;
  ipId = 0;
  readonly rtx = new RtxQueue();
  packetsOut = 0;
  sackedOut = 0;
  lostOut = 0;
  retransOut = 0;
  /** Duplicate ACKs counted as SACKs on a connection without SACK (tcp_add_reno_sack). */
  renoSacked = 0;
  dupAcks = 0;
  /** RACK: send time and end of the most recently sent delivered segment, its RTT, new info. */
  rackXmit = F64_ZERO;
  rackEndSeq = F64_ZERO;
  rackRtt = F64_ZERO;
  rackAdvanced = false;
  /** How long the reorder timer should wait (set by RACK), 0 = not needed. */
  reoWait = F64_ZERO;
  /** snd_nxt when the outstanding tail loss probe was sent, -1 when none is (tlp_high_seq). */
  tlpHighSeq = F64_ZERO;
  cwnd: number;
  ssthresh = INFINITE_SSTHRESH;
  cwndCnt = 0;
  readonly cc: CongestionControl;
  caState: CaState = CaState.OPEN;
  highSeq = F64_ZERO;
  priorCwnd = 0;
  prrDelivered = 0;
  prrOut = 0;
  cwndLimited = false;
  maxPacketsOut = 0;
  maxPacketsSeq = F64_ZERO;
  readonly rtt: RttEstimator;
  /** Current retransmission timeout incl. backoff (icsk_rto). */
  icskRto = TCP_TIMEOUT_INIT_NS;
  /** icsk_backoff / icsk_retransmits / total_rto. */
  backoff = 0;
  retransmits = 0;
  totalRto = 0;
  /** Time of the first (re)transmission the current retry series counts from (retrans_stamp). */
  retransStamp = F64_ZERO;
  /** Time of the last data transmission (lsndtime). */
  lastSendTime = F64_ZERO;
  /** Error remembered from ICMP on a synchronized connection, reported if it then times out. */
  softError: TcpErrorInfo | null = null;

  // ---- receive side ----
  irs = F64_ZERO;
  rcvNxt = F64_ZERO;
  /** Window last advertised (bytes) and rcv_nxt when it was advertised. */
  rcvWnd = 0;
  rcvWup = F64_ZERO;
  rcvWscale = 0;
  rcvSsthresh = 0;
  windowClamp = 0;
  rcvbuf: number;
  readonly rcvbufLocked: boolean;
  readonly rq = new ReceiveQueue();
  /** Sequence of the peer's FIN when it arrived ahead of missing data, -1 if none. */
  pendingFinSeq = F64_ZERO;
  finReceived = false;
  /** onEnd has been called. */
  endNotified = false;
  /** Bytes the application has consumed (copied_seq) and the DRS measurement window. */
  copiedSeq = F64_ZERO;
  rcvqSpace = 0;
  rcvqSeq = F64_ZERO;
  rcvqTime = F64_ZERO;
  /**
   * In-order data received in the current event, handed to the application after the ACK decision:
   * the first pendingCount entries, each pendingBytes[i][pendingFrom[i], + pendingLen[i]) (kept as
   * ranges: a view is made only for an application that reads the bytes).
   */
  readonly pendingBytes: Uint8Array[] = [];
  readonly pendingFrom: number[] = [];
  readonly pendingLen: number[] = [];
  pendingCount = 0;
  pendingCharge = 0;
  /**
   * Packets whose buffers those views (may) point into, recycled once the views were handed over:
   * the first pendingSkbCount entries (slots past it are stale; the array is never shortened, as
   * truncating an array costs a runtime call per event).
   */
  readonly pendingSkbs: SkBuff[] = [];
  pendingSkbCount = 0;
  /** Delayed-ACK machinery (icsk_ack). */
  quickAcks = 0;
  ackPending = false;
  /** An immediate ACK is due (out-of-order data, a filled hole, a duplicate). */
  ackNow = false;
  pingpong = false;
  ato = 0;
  lastRecvTime = F64_ZERO;
  rcvMss = TCP_MSS_DEFAULT;
  // GRO batch
  groOpen = false;
  groSegs = 0;
  groBytes = 0;

  // ---- timers (event ids; 0 = none) and their deadlines ----
  /** When the SYN / SYN-ACK was first sent (handshake RTT sample). */
  synSentAt = F64_ZERO;
  rtxTimer = F64_ZERO;
  rtxTimerAt = F64_ZERO;
  rtxDeadline = F64_ZERO;
  /** What the retransmission timer does when it fires. */
  rtxMode: 0 | 1 | 2 = 0;
  probes = 0;
  delackTimer = F64_ZERO;
  delackDeadline = F64_ZERO;
  groTimer = F64_ZERO;
  reoTimer = F64_ZERO;
  stateTimer = F64_ZERO;
  connectTimer = F64_ZERO;
  /** Set once the application has fully closed (no more reads). */
  orphan = false;
  /** The listener that created this connection (passive open), and whether it was handed over. */
  listener: TcpListener | null = null;
  accepted = false;

  constructor(
    readonly stack: TcpStack,
    readonly localAddr: number,
    readonly localPort: number,
    readonly remoteAddr: number,
    readonly remotePort: number,
    routeMtu: number,
    options: TcpSocketOptions,
    events: TcpEvents,
  ) {
    const sys = stack.sysctl;
    // -1 ("none") once the fields are doubles (see F64_ZERO): -1 would make them small integers.
    this.rackXmit = -1;
    this.tlpHighSeq = -1;
    this.pendingFinSeq = -1;
    this.events = events;
    this.noDelay = options.noDelay ?? false;
    this.autoRead = options.autoRead ?? true;
    this.pmtu = routeMtu;
    this.advmss = routeMtu - IPV4_HEADER - TCP_HEADER;
    this.cc = createCongestionControl(options.congestion ?? sys.congestionControl);
    this.cwnd = sys.initCwnd;
    this.rtt = new RttEstimator(sys.rtoMinNs);
    this.sndbufLocked = options.sndbuf !== undefined;
    this.sndbuf = options.sndbuf ?? sys.wmem[1];
    this.rcvbufLocked = options.rcvbuf !== undefined;
    this.rcvbuf = options.rcvbuf ?? sys.rmem[1];
  }

  // ---- application API -------------------------------------------------------------------------

  /** The connection is gone (a getter, so checks after callbacks are not narrowed away). */
  get closed(): boolean {
    return this.state === TcpState.CLOSED;
  }

  get now(): number {
    return this.stack.sim.now;
  }

  /** Bytes queued for sending (not yet acknowledged). */
  get sendQueued(): number {
    return this.sendBuffer.length;
  }

  /** Bytes send() would accept now. */
  get writable(): number {
    if (!this.canSend()) return 0;
    return Math.max(0, this.sndbuf - this.sendBuffer.length);
  }

  /** Queues a copy of bytes[from, from+length) for sending; returns how many were accepted (0 when the buffer is full). */
  send(bytes: Uint8Array, from = 0, length = bytes.length - from): number {
    return this.queue(bytes, from, length, false);
  }

  /**
   * send() without the copy (MSG_ZEROCOPY, sendfile): the send queue keeps a reference to the bytes,
   * so the caller must never change them while the connection lives (there are no completion
   * notifications). What goes on the wire is the same as with send().
   */
  sendZeroCopy(bytes: Uint8Array, from = 0, length = bytes.length - from): number {
    return this.queue(bytes, from, length, true);
  }

  private queue(bytes: Uint8Array, from: number, length: number, shared: boolean): number {
    if (!this.canSend()) return 0;
    const n = Math.min(length, Math.max(0, this.sndbuf - this.sendBuffer.length));
    if (n > 0) {
      if (shared) this.sendBuffer.appendShared(bytes, from, n);
      else this.sendBuffer.append(bytes, from, n);
      if (this.state !== TcpState.SYN_SENT && this.state !== TcpState.SYN_RECEIVED) pushPending(this);
    }
    this.wantWritable = n < length;
    return n;
  }

  /** shutdown(SHUT_WR): a FIN follows the data already queued. */
  end(): void {
    if (this.finQueued || !this.canSend()) return;
    this.finQueued = true;
    if (this.state === TcpState.SYN_SENT || this.state === TcpState.SYN_RECEIVED) return;
    if (this.state === TcpState.ESTABLISHED) this.setState(TcpState.FIN_WAIT_1);
    else if (this.state === TcpState.CLOSE_WAIT) this.setState(TcpState.LAST_ACK);
    sendFin(this);
  }

  /**
   * close(): no more sending or reading. Unread received data makes it a reset, as in Linux;
   * otherwise a FIN follows the queued data and the connection finishes in the background.
   */
  close(): void {
    if (this.state === TcpState.CLOSED) return;
    this.orphan = true;
    this.autoRead = true;
    if (this.state === TcpState.SYN_SENT) {
      this.destroy(null);
      return;
    }
    if (this.rq.unreadBytes > 0) {
      this.abort();
      return;
    }
    this.end();
  }

  /** Sends a reset and drops the connection (SO_LINGER 0 close). */
  abort(): void {
    if (this.state === TcpState.CLOSED) return;
    if (this.state !== TcpState.SYN_SENT && this.state !== TcpState.TIME_WAIT) sendReset(this);
    this.destroy(tcpError(TcpError.ABORTED, "ECONNABORTED", "aborted by the application"));
  }

  /** Reads queued in-order bytes when auto-read is off (all when max is omitted). */
  read(max?: number): Uint8Array {
    const before = this.rcvWindowNow();
    const data = this.rq.read(max);
    this.copiedSeq = seqAdd(this.copiedSeq, data.length);
    windowUpdateAfterRead(this, before);
    return data;
  }

  /** Turns auto-read on or off; turning it on hands queued data to the application. */
  setAutoRead(on: boolean): void {
    this.autoRead = on;
    if (on && this.rq.unreadBytes > 0) {
      const data = this.read();
      this.handOver(data, 0, data.length);
    }
  }

  /** Gives in-order bytes[from, from+len) to the application: a view to onData, else the length to onReceive. */
  handOver(bytes: Uint8Array, from: number, len: number): void {
    const events = this.events;
    if (events.onData !== undefined) events.onData(this, from === 0 && len === bytes.length ? bytes : bytes.subarray(from, from + len));
    else events.onReceive?.(this, len);
  }

  // ---- helpers used by the segment paths ---------------------------------------------------------

  canSend(): boolean {
    const s = this.state;
    return !this.finQueued && (s === TcpState.ESTABLISHED || s === TcpState.CLOSE_WAIT || s === TcpState.SYN_SENT || s === TcpState.SYN_RECEIVED);
  }

  /** Sequence number of the first byte in the send buffer (snd_una once the SYN is acknowledged). */
  get dataBase(): number {
    return this.synAcked ? this.sndUna : seqAdd(this.iss, 1);
  }

  /** Sequence number just past the queued data (write_seq). */
  get writeSeq(): number {
    return seqAdd(this.dataBase, this.sendBuffer.length);
  }

  /** Remaining window the peer was last offered (tcp_receive_window). */
  rcvWindowNow(): number {
    const w = this.rcvWnd - seqDiff(this.rcvNxt, this.rcvWup);
    return w > 0 ? w : 0;
  }

  /** Packets in the network (tcp_packets_in_flight). */
  inFlight(): number {
    return this.packetsOut - (this.sackedOut + this.renoSacked + this.lostOut) + this.retransOut;
  }

  /** Sets the sending MSS from the path MTU, the peer's MSS and half its largest window (tcp_sync_mss). */
  syncMss(): void {
    const fromPath = this.pmtu - IPV4_HEADER - TCP_HEADER;
    const mss = Math.max(Math.min(fromPath, this.peerMss) - (this.tsOk ? TS_ALIGNED : 0), 48);
    this.mss = boundToHalfWindow(this.maxWindow, mss, TCP_HEADER + (this.tsOk ? TS_ALIGNED : 0));
  }

  /** tcp_ack_update_window's max_window: a larger window than ever offered lets the MSS grow again (tcp_sync_mss). */
  windowOffered(window: number): void {
    if (window <= this.maxWindow) return;
    this.maxWindow = window;
    this.syncMss();
  }

  /** tcp_sndbuf_expand: room for two windows of segments at Linux's per-segment memory charge (mss_clamp is the peer's announced MSS). */
  expandSndbuf(): void {
    if (this.sndbufLocked) return;
    const segs = Math.max(this.stack.sysctl.initCwnd, this.cwnd, 4);
    const perMss = sndbufPerMss(Math.max(this.peerMss, this.mss));
    const target = Math.min(2 * segs * perMss, this.stack.sysctl.wmem[2]);
    if (target > this.sndbuf) this.sndbuf = target;
  }

  setState(next: TcpState): void {
    this.state = next;
  }

  /** Ends the connection: timers off, port released, the application told once. */
  destroy(error: TcpErrorInfo | null): void {
    if (this.state === TcpState.CLOSED) return;
    this.state = TcpState.CLOSED;
    cancelTimers(this);
    this.stack.unhash(this);
    this.notifyClose(error);
  }

  /** Tells the application the connection is over (once). */
  notifyClose(error: TcpErrorInfo | null): void {
    if (this.closeNotified) return;
    this.closeNotified = true;
    this.error = error;
    this.events.onClose?.(this, error);
  }

  private closeNotified = false;
}

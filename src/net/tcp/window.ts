// The receive window Linux advertises: tcp_select_initial_window (window and scale from tcp_rmem),
// __tcp_select_window (free buffer space, rcv_ssthresh, scale alignment, never shrinking),
// tcp_grow_window, receive-buffer autotuning (tcp_rcv_space_adjust, "DRS") and the window update
// after a read (tcp_cleanup_rbuf). Held segments are charged an skb truesize and half of the
// buffer is offered as window (tcp_win_from_space with the default 50% scaling ratio).

import { TCP_MAX_QUICKACKS, TCP_MAX_WSCALE, U16_MAX } from "./constants.js";
import { seqDiff } from "./seq.js";
import type { TcpSocket } from "./socket.js";
import { pow2 } from "./pow2.js";

/** tcp_win_from_space: the part of a buffer that can be offered as window. */
const winFromSpace = (space: number): number => Math.floor(space / 2);

/** tcp_space: window that the free receive buffer allows (held segments charged their truesize). */
function freeSpace(sock: TcpSocket): number {
  return winFromSpace(sock.rcvbuf - sock.rq.charge - sock.pendingCharge);
}

/**
 * tcp_select_initial_window: sets rcv_wnd, rcv_wscale (when scaling may be offered), window_clamp
 * and rcv_ssthresh; `mss` is the segment size the window is rounded to.
 */
export function initialWindow(sock: TcpSocket, mss: number, wscaleOk: boolean): void {
  const sys = sock.stack.sysctl;
  const clamp = sock.windowClamp > 0 ? sock.windowClamp : U16_MAX * 2 ** TCP_MAX_WSCALE;
  let space = Math.min(clamp, winFromSpace(sock.rcvbuf));
  if (space > mss) space = Math.floor(space / mss) * mss;
  sock.rcvWnd = Math.min(space, U16_MAX);
  let wscale = 0;
  if (wscaleOk) {
    const top = Math.min(Math.max(space, sys.rmem[2], sys.coreRmemMax), clamp);
    wscale = Math.min(Math.max(Math.floor(Math.log2(top)) - 15, 0), TCP_MAX_WSCALE);
  }
  sock.rcvWscale = wscale;
  sock.windowClamp = Math.min(U16_MAX * 2 ** wscale, clamp);
  sock.rcvSsthresh = sock.rcvWnd;
}

/** tcp_init_buffer_space at establishment: DRS starting point and the window clamp. */
export function initBufferSpace(sock: TcpSocket): void {
  const maxwin = winFromSpace(sock.rcvbuf);
  const advmss = sock.advmss;
  if (sock.windowClamp >= maxwin) sock.windowClamp = maxwin;
  // "Force reservation of one segment" (tcp_app_win 31): the clamp stays one MSS below the buffer.
  if (sock.windowClamp > 2 * advmss && sock.windowClamp + advmss > maxwin) sock.windowClamp = Math.max(2 * advmss, maxwin - advmss);
  sock.rcvSsthresh = Math.min(sock.rcvSsthresh, sock.windowClamp);
  sock.rcvqSpace = Math.min(sock.rcvSsthresh, sock.rcvWnd, sock.stack.sysctl.initCwnd * sock.advmss);
  sock.rcvqSeq = sock.copiedSeq;
  sock.rcvqTime = sock.now;
  sock.expandSndbuf();
}

/** __tcp_select_window: the window (bytes) the receive buffer allows now. */
export function computeWindow(sock: TcpSocket): number {
  const mss = sock.rcvMss;
  const allowed = winFromSpace(sock.rcvbuf);
  const full = Math.min(sock.windowClamp, allowed);
  let free = freeSpace(sock);
  if (free < 0) free = 0;
  const scale = pow2(sock.rcvWscale);
  if (free < full / 2) {
    sock.quickAcks = 0;
    free = Math.floor(free / scale) * scale;
    if (free < allowed / 16 || free < mss) return 0;
  }
  if (free > sock.rcvSsthresh) free = sock.rcvSsthresh;
  if (sock.rcvWscale > 0) return Math.ceil(free / scale) * scale;
  let window = sock.rcvWnd;
  if (window <= free - mss || window > free) window = Math.floor(free / mss) * mss;
  else if (mss === full && free > window + full / 2) window = free;
  return window;
}

/** tcp_select_window: the 16-bit window field of the next segment; records what was offered. */
export function selectWindow(sock: TcpSocket): number {
  const cur = sock.rcvWindowNow();
  const scale = pow2(sock.rcvWscale);
  let win = computeWindow(sock);
  if (win < cur) win = Math.ceil(cur / scale) * scale;
  win = Math.min(win, U16_MAX * scale);
  sock.rcvWnd = win;
  sock.rcvWup = sock.rcvNxt;
  return Math.floor(win / scale);
}

/** tcp_grow_window: raise rcv_ssthresh as in-order data shows the sender can use more. */
export function growWindow(sock: TcpSocket, len: number): void {
  const room = Math.min(sock.windowClamp, freeSpace(sock)) - sock.rcvSsthresh;
  if (room <= 0) return;
  const incr = Math.max(2 * sock.advmss, 2 * len);
  sock.rcvSsthresh += Math.min(room, incr);
  if (sock.quickAcks === 0) sock.quickAcks = 1;
}

/** tcp_incr_quickack: acknowledge the next segments at once (start of data, after a long gap). */
export function incrQuickAck(sock: TcpSocket): void {
  let q = Math.floor(sock.rcvWnd / (2 * sock.rcvMss));
  if (q === 0) q = 2;
  q = Math.min(q, TCP_MAX_QUICKACKS);
  if (q > sock.quickAcks) sock.quickAcks = q;
}

/** tcp_event_ack_sent: one fewer quick ACK, nothing pending any more. */
export function onAckSent(sock: TcpSocket): void {
  if (sock.quickAcks > 0) {
    sock.quickAcks--;
    if (sock.quickAcks === 0) sock.ato = sock.stack.sysctl.atoMinNs;
  }
  sock.ackPending = false;
  sock.ackNow = false;
}

/** tcp_rcv_space_adjust: grow the receive buffer when the application reads faster than it holds. */
export function rcvSpaceAdjust(sock: TcpSocket): void {
  const rtt = sock.rtt.srtt;
  const now = sock.now;
  if (rtt === 0 || now - sock.rcvqTime < rtt) return;
  const copied = seqDiff(sock.copiedSeq, sock.rcvqSeq);
  if (copied > sock.rcvqSpace) {
    if (!sock.rcvbufLocked) {
      let rcvwin = 2 * copied + 16 * sock.advmss;
      rcvwin += 2 * Math.floor((rcvwin * (copied - sock.rcvqSpace)) / Math.max(sock.rcvqSpace, 1));
      const rcvbuf = Math.min(2 * rcvwin, sock.stack.sysctl.rmem[2]);
      if (rcvbuf > sock.rcvbuf) {
        sock.rcvbuf = rcvbuf;
        sock.windowClamp = Math.min(winFromSpace(rcvbuf), U16_MAX * 2 ** sock.rcvWscale);
      }
    }
    sock.rcvqSpace = copied;
  }
  sock.rcvqSeq = sock.copiedSeq;
  sock.rcvqTime = now;
}

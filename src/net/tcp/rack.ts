// RACK loss detection (RFC 8985, tcp_recovery.c), Linux's default for SACK connections: a segment
// is lost once a segment sent after it has been delivered and more than the latest RTT plus a
// reordering window has passed since it was sent. Unlike duplicate-ACK counting this also finds
// lost retransmissions. The reordering window is min_rtt/4, or 0 while recovering or once three
// segments are SACKed (no reordering is modelled, so none is ever "seen"). Segments still inside
// the window arm the reorder timer.

import { NS_PER_MS } from "./constants.js";
import { Sacked } from "./rtx-queue.js";
import { seqGt } from "./seq.js";
import type { TcpSocket } from "./socket.js";
import { CaState } from "./states.js";

/** TCP_TIMEOUT_MIN (2 jiffies at HZ 1000) added to the reorder timeout. */
const REO_TIMEOUT_SLACK_NS = 2 * NS_PER_MS;

/** tcp_rack_advance: a delivered segment (acked or SACKed) sent at xmit moves the RACK clock. */
export function rackAdvance(sock: TcpSocket, flags: number, endSeq: number, xmit: number, now: number): void {
  const rtt = now - xmit;
  if ((flags & Sacked.EVER_RETRANS) !== 0 && rtt < sock.rtt.minRtt) return;
  sock.rackAdvanced = true;
  sock.rackRtt = rtt;
  if (xmit > sock.rackXmit || (xmit === sock.rackXmit && seqGt(endSeq, sock.rackEndSeq))) {
    sock.rackXmit = xmit;
    sock.rackEndSeq = endSeq;
  }
}

function reoWindow(sock: TcpSocket): number {
  if (sock.caState >= CaState.RECOVERY || sock.sackedOut >= 3) return 0;
  const minRtt = Number.isFinite(sock.rtt.minRtt) ? sock.rtt.minRtt : 0;
  return Math.floor(Math.min(minRtt / 4, sock.rtt.srtt));
}

/**
 * tcp_rack_detect_loss: marks lost segments; returns how many, and (via sock.reoWait) how long the
 * youngest undecided one still has.
 */
export function rackDetectLoss(sock: TcpSocket, now: number): number {
  const q = sock.rtx;
  const reo = reoWindow(sock);
  let marked = 0;
  let wait = 0;
  for (let i = 0; i < q.count; i++) {
    const s = q.slot(i);
    const f = q.flags[s]!;
    if ((f & Sacked.SACKED) !== 0 || (f & (Sacked.LOST | Sacked.RETRANS)) === Sacked.LOST) continue;
    const xmit = q.sentAt[s]!;
    const sentBefore = sock.rackXmit > xmit || (sock.rackXmit === xmit && seqGt(sock.rackEndSeq, q.end[s]!));
    if (!sentBefore) {
      // Original transmissions are in time order: nothing later in the queue was sent earlier.
      if ((f & Sacked.EVER_RETRANS) === 0) break;
      continue;
    }
    const remaining = xmit + sock.rackRtt + reo - now;
    if (remaining <= 0) {
      // tcp_mark_skb_lost: a lost retransmission is counted lost once, and no longer in flight.
      if ((f & Sacked.RETRANS) !== 0) sock.retransOut--;
      if ((f & Sacked.LOST) === 0) sock.lostOut++;
      q.flags[s] = (f | Sacked.LOST) & ~Sacked.RETRANS;
      marked++;
    } else if (remaining > wait) {
      wait = remaining;
    }
  }
  sock.reoWait = wait > 0 ? wait + REO_TIMEOUT_SLACK_NS : 0;
  return marked;
}

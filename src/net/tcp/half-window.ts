// tcp_bound_to_half_wnd: how big a segment or a super-packet may be against the largest window the peer
// has offered (silly-window avoidance on the sending side).

import { TCP_MSS_DEFAULT } from "./constants.js";

/**
 * tcp_bound_to_half_wnd: a packet of `size` bytes is cut to half the peer's largest window (all of it
 * while that is at most 536 bytes), but never below 68 bytes of IP datagram (headerLen: the TCP header
 * with the options every segment carries). With no window seen yet nothing is cut.
 */
export function boundToHalfWindow(maxWindow: number, size: number, headerLen: number): number {
  const cutoff = maxWindow > TCP_MSS_DEFAULT ? Math.floor(maxWindow / 2) : maxWindow;
  if (cutoff > 0 && size > cutoff) return Math.max(cutoff, 68 - headerLen);
  return size;
}

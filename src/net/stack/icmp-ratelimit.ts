// ICMP rate limiting as Linux 6.x does it, on simulated jiffies: the per-namespace global token
// bucket (icmp_msgs_per_sec / icmp_msgs_burst, random 0-2 credit per message sent), and the
// per-destination inet_peer bucket shared by icmp_send (icmp_ratelimit, burst 6x), ip_error (cost
// 1 s, burst 5 s) and ICMP redirects (exponential backoff), which really share one peer entry.

import type { SeededRng } from "../../util/rng.js";
import type { StackSysctl } from "./sysctl.js";
import { HZ } from "./time.js";

const ICMP_DEST_UNREACH = 3;
const ICMP_FRAG_NEEDED = 4;
/** Highest ICMP type the kernel knows (NR_ICMP_TYPES). */
export const NR_ICMP_TYPES = 18;
/** inet_peer_xrlim_allow's burst: six times the rate limit. */
const XRLIM_BURST_FACTOR = 6;
/** ip_rt_error_cost and ip_rt_error_burst. */
const ERROR_COST = HZ;
const ERROR_BURST = 5 * HZ;
/** ip_rt_redirect_number, _load and _silence. */
const REDIRECT_NUMBER = 9;
const REDIRECT_LOAD = Math.floor(HZ / 50);
const REDIRECT_SILENCE = REDIRECT_LOAD << (REDIRECT_NUMBER + 1);

/** The rate state the kernel keeps per remote address (struct inet_peer), in jiffies. */
export class InetPeer {
  rateTokens = 0;
  rateLast: number;
  redirects = 0;
  constructor(nowJiffies: number) {
    // inet_getpeer starts rate_last 60 s in the past so the first calculation fills the bucket.
    this.rateLast = nowJiffies - 60 * HZ;
  }
}

export class IcmpRateLimiter {
  private readonly peers = new Map<number, InetPeer>();
  private credit = 0;
  private stamp: number;

  constructor(
    private readonly sysctl: StackSysctl,
    private readonly rng: SeededRng,
    nowJiffies: number,
  ) {
    // A new namespace's stamp lies far behind jiffies: the first global check refills the bucket.
    this.stamp = nowJiffies - HZ;
  }

  peer(addr: number, nowJiffies: number): InetPeer {
    let p = this.peers.get(addr >>> 0);
    if (p === undefined) {
      p = new InetPeer(nowJiffies);
      this.peers.set(addr >>> 0, p);
    }
    return p;
  }

  /** icmpv4_mask_allow: true when this type/code is never rate limited (frag-needed, unmasked types). */
  exempt(type: number, code: number): boolean {
    if (type > NR_ICMP_TYPES) return true;
    if (type === ICMP_DEST_UNREACH && code === ICMP_FRAG_NEEDED) return true;
    return ((1 << type) & this.sysctl.icmpRatemask) === 0;
  }

  /** icmp_global_allow. */
  globalAllow(now: number): boolean {
    if (this.credit > 0) return true;
    const delta = Math.min(now - this.stamp, HZ);
    if (delta < Math.floor(HZ / 50)) return false;
    const incr = Math.floor((this.sysctl.icmpMsgsPerSec * delta) / HZ);
    if (incr === 0) return false;
    this.stamp = now;
    this.credit = Math.min(this.credit + incr, this.sysctl.icmpMsgsBurst);
    return true;
  }

  /** icmp_global_consume: a random 0, 1 or 2 credits per message (may go negative). */
  globalConsume(): void {
    this.credit -= this.rng.nextInt(3);
  }

  /** inet_peer_xrlim_allow with icmp_ratelimit. */
  hostAllow(peer: InetPeer, now: number): boolean {
    const timeout = Math.round((this.sysctl.icmpRatelimitMs * HZ) / 1000);
    let token = peer.rateTokens;
    const delta = now - peer.rateLast;
    if (delta !== 0) {
      peer.rateLast = now;
      token += delta;
      if (token > XRLIM_BURST_FACTOR * timeout) token = XRLIM_BURST_FACTOR * timeout;
    }
    let allowed = false;
    if (token >= timeout) {
      token -= timeout;
      allowed = true;
    }
    peer.rateTokens = token;
    return allowed;
  }

  /** ip_error's own bucket on the same peer: 1 s per message, 5 s burst. */
  routeErrorAllow(peer: InetPeer, now: number): boolean {
    peer.rateTokens += now - peer.rateLast;
    if (peer.rateTokens > ERROR_BURST) peer.rateTokens = ERROR_BURST;
    peer.rateLast = now;
    if (peer.rateTokens >= ERROR_COST) {
      peer.rateTokens -= ERROR_COST;
      return true;
    }
    return false;
  }

  /** ip_rt_send_redirect's backoff: the first redirect goes out, then ever longer gaps, then silence. */
  redirectAllow(peer: InetPeer, now: number): boolean {
    if (now > peer.rateLast + REDIRECT_SILENCE) {
      peer.rateTokens = 0;
      peer.redirects = 0;
    }
    if (peer.redirects >= REDIRECT_NUMBER) {
      peer.rateLast = now;
      return false;
    }
    if (peer.redirects === 0 || now > peer.rateLast + REDIRECT_LOAD * 2 ** peer.redirects) {
      peer.rateLast = now;
      peer.redirects++;
      return true;
    }
    return false;
  }
}

// Per-namespace sysctls the host stack honours (net.ipv4.*, net.bridge.*) with the defaults a new
// Linux network namespace starts with. Per-interface settings are keyed by ifindex.

import { NS_PER_SECOND } from "./time.js";
import { VersionedMap } from "./versioned-map.js";

export interface StackSysctl {
  /** net.ipv4.ip_forward (0 in a new namespace). */
  ipForward: boolean;
  /** net.bridge.bridge-nf-call-iptables (1 in a new namespace once br_netfilter is loaded). */
  bridgeNfCallIptables: boolean;
  /** Interfaces with net.ipv4.conf.<dev>.proxy_arp = 1. */
  readonly proxyArp: Set<number>;
  /** net.ipv4.conf.all.rp_filter: 0 off, 1 strict, 2 loose; the effective value is max(all, dev). */
  rpFilterAll: number;
  /** net.ipv4.conf.<dev>.rp_filter (its version tells caches of routing decisions when it changed). */
  readonly rpFilter: VersionedMap<number, number>;
  /**
   * net.ipv4.conf.all.route_localnet (0 in a new namespace): 127.0.0.0/8 sources and destinations
   * arriving on a non-loopback interface are routed instead of dropped as martians.
   */
  routeLocalnetAll: boolean;
  /** Interfaces with net.ipv4.conf.<dev>.route_localnet = 1. */
  readonly routeLocalnet: Set<number>;
  /** net.ipv4.conf.<dev>.arp_ignore (0 = reply for any local address). */
  readonly arpIgnore: Map<number, number>;
  /** net.ipv4.conf.all.send_redirects (ICMP redirects when forwarding back out the input interface). */
  sendRedirects: boolean;
  icmpEchoIgnoreAll: boolean;
  icmpEchoIgnoreBroadcasts: boolean;
  /** net.ipv4.icmp_ratelimit in ms (per-destination token bucket, burst 6x). */
  icmpRatelimitMs: number;
  /** net.ipv4.icmp_ratemask: bit n set = ICMP type n is rate limited (0x1818: 3, 4, 11, 12). */
  icmpRatemask: number;
  icmpMsgsPerSec: number;
  icmpMsgsBurst: number;
  icmpErrorsUseInboundIfaddr: boolean;
  ipDefaultTtl: number;
  /** net.ipv4.ipfrag_time in ns. */
  ipfragTimeNs: number;
  ipfragHighThresh: number;
  ipfragLowThresh: number;
}

export function defaultSysctl(): StackSysctl {
  return {
    ipForward: false,
    bridgeNfCallIptables: true,
    proxyArp: new Set(),
    rpFilterAll: 0,
    rpFilter: new VersionedMap(),
    routeLocalnetAll: false,
    routeLocalnet: new Set(),
    arpIgnore: new Map(),
    sendRedirects: true,
    icmpEchoIgnoreAll: false,
    icmpEchoIgnoreBroadcasts: true,
    icmpRatelimitMs: 1000,
    icmpRatemask: 0x1818,
    icmpMsgsPerSec: 1000,
    icmpMsgsBurst: 50,
    icmpErrorsUseInboundIfaddr: false,
    ipDefaultTtl: 64,
    ipfragTimeNs: 30 * NS_PER_SECOND,
    ipfragHighThresh: 4 * 1024 * 1024,
    ipfragLowThresh: 3 * 1024 * 1024,
  };
}

/** Effective rp_filter of an interface (the kernel takes the max of conf/all and conf/<dev>). */
export function rpFilterOf(sysctl: StackSysctl, ifindex: number): number {
  const perDev = sysctl.rpFilter;
  const dev = perDev.size === 0 ? 0 : (perDev.get(ifindex) ?? 0);
  return dev > sysctl.rpFilterAll ? dev : sysctl.rpFilterAll;
}

/** Effective route_localnet of an interface (IN_DEV_NET_ROUTE_LOCALNET: conf/all or conf/<dev>). */
export function routeLocalnetOf(sysctl: StackSysctl, ifindex: number): boolean {
  return sysctl.routeLocalnetAll || sysctl.routeLocalnet.has(ifindex);
}

// Neighbour parameters per interface (net.ipv4.neigh.<dev>.*) with Linux's ARP defaults, and the
// randomized reachable time (uniform in [base/2, 3*base/2), re-drawn every 300 s as the kernel does).

import type { SeededRng } from "../../util/rng.js";
import { NS_PER_JIFFY, NS_PER_MS, NS_PER_SECOND } from "./time.js";

export interface NeighParms {
  /** base_reachable_time_ms (30 s). Change through NeighbourTable.setBaseReachable to re-draw reachableNs. */
  baseReachableNs: number;
  /** The current randomized reachable time. */
  reachableNs: number;
  /** delay_first_probe_time (5 s). */
  delayFirstProbeNs: number;
  /** retrans_time_ms (1 s). */
  retransNs: number;
  /** ucast_solicit (3): unicast probes from PROBE state. */
  ucastProbes: number;
  /** mcast_solicit (3): broadcast requests while INCOMPLETE. */
  mcastProbes: number;
  /** app_solicit (0). */
  appProbes: number;
  /** mcast_resolicit (0). */
  mcastReprobes: number;
  /** unres_qlen_bytes (212992): bytes (truesize) queued per unresolved neighbour. */
  unresQlenBytes: number;
  /** locktime (1 s): an entry updated more recently keeps its address against a competing reply. */
  locktimeNs: number;
  /** proxy_delay (0.8 s): proxy ARP replies to broadcast requests wait a random time below this. Calico sets 0. */
  proxyDelayNs: number;
  /** proxy_qlen (64). */
  proxyQlen: number;
}

export const NEIGH_DEFAULTS: Readonly<Omit<NeighParms, "reachableNs">> = {
  baseReachableNs: 30 * NS_PER_SECOND,
  delayFirstProbeNs: 5 * NS_PER_SECOND,
  retransNs: 1000 * NS_PER_MS,
  ucastProbes: 3,
  mcastProbes: 3,
  appProbes: 0,
  mcastReprobes: 0,
  unresQlenBytes: 212_992,
  locktimeNs: 1 * NS_PER_SECOND,
  proxyDelayNs: 800 * NS_PER_MS,
  proxyQlen: 64,
};

/** The kernel re-draws every reachable time this often (neigh_periodic_work). */
export const REACHABLE_REDRAW_NS = 300 * NS_PER_SECOND;

/** neigh_rand_reach_time: uniform in [base/2, 3*base/2), in whole jiffies. */
export function randomReachableNs(baseNs: number, rng: SeededRng): number {
  const base = Math.floor(baseNs / NS_PER_JIFFY);
  if (base <= 0) return 0;
  return (rng.nextInt(base) + (base >> 1)) * NS_PER_JIFFY;
}

export function newNeighParms(rng: SeededRng): NeighParms {
  return { ...NEIGH_DEFAULTS, reachableNs: randomReachableNs(NEIGH_DEFAULTS.baseReachableNs, rng) };
}

/**
 * skb->truesize the unresolved queue charges for an IPv4 packet of `length` bytes: the buffer (L2
 * header and the kernel's 64-byte pad, rounded to 64) plus struct sk_buff (256) and skb_shared_info (320).
 * The real value depends on the driver's allocation; this is SKB_TRUESIZE of the frame.
 */
export function skbTruesize(length: number): number {
  return ((length + 14 + 64 + 63) & ~63) + 256 + 320;
}

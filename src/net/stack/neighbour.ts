// Neighbour (ARP) cache per (device, IPv4 address) with the kernel's NUD state machine: INCOMPLETE
// while resolving (queued packets, broadcast requests every retrans_time, FAILED after mcast_solicit),
// REACHABLE for a randomized reachable time, STALE, DELAY (delay_first_probe_time), PROBE (unicast
// requests), static PERMANENT entries and NOARP entries for broadcast/multicast next hops.

import type { SkBuff } from "../../skb/skbuff.js";
import type { SeededRng } from "../../util/rng.js";
import type { NetDevice } from "../device.js";
import type { NetWorld } from "../world.js";
import type { StackCounters } from "./counters.js";
import { DirectMappedCache } from "./direct-cache.js";
import { newNeighParms, randomReachableNs, REACHABLE_REDRAW_NS, skbTruesize, type NeighParms } from "./neigh-parms.js";
import { HZ, NS_PER_JIFFY } from "./time.js";

/** NUD_* state bits. */
export const Nud = {
  NONE: 0x00,
  INCOMPLETE: 0x01,
  REACHABLE: 0x02,
  STALE: 0x04,
  DELAY: 0x08,
  PROBE: 0x10,
  FAILED: 0x20,
  NOARP: 0x40,
  PERMANENT: 0x80,
} as const;
export const NUD_VALID = Nud.PERMANENT | Nud.NOARP | Nud.REACHABLE | Nud.PROBE | Nud.STALE | Nud.DELAY;
export const NUD_CONNECTED = Nud.PERMANENT | Nud.NOARP | Nud.REACHABLE;
const NUD_IN_TIMER = Nud.INCOMPLETE | Nud.REACHABLE | Nud.DELAY | Nud.PROBE;

/** neigh_update flags (NEIGH_UPDATE_F_*). */
export const NeighUpdate = { OVERRIDE: 1, WEAK_OVERRIDE: 2, ADMIN: 0x80 } as const;

const STATE_NAMES: readonly (readonly [number, string])[] = [
  [Nud.INCOMPLETE, "INCOMPLETE"], [Nud.REACHABLE, "REACHABLE"], [Nud.STALE, "STALE"], [Nud.DELAY, "DELAY"],
  [Nud.PROBE, "PROBE"], [Nud.FAILED, "FAILED"], [Nud.NOARP, "NOARP"], [Nud.PERMANENT, "PERMANENT"],
];

/** `ip neigh` state name ("NONE" for 0). */
export function nudStateName(state: number): string {
  return STATE_NAMES.find(([bit]) => bit === state)?.[1] ?? (state === 0 ? "NONE" : `0x${state.toString(16)}`);
}

/** Minimum timer distance, HZ/100 jiffies (2 jiffies = 8 ms at HZ=250). */
const MIN_TIMER_NS = Math.floor(HZ / 100) * NS_PER_JIFFY;

export class NeighbourEntry {
  /** Link-layer address (valid when state & NUD_VALID). */
  mac = 0;
  state: number = Nud.NONE;
  /** Last time reachability was confirmed (ARP reply / upper-layer confirmation). */
  confirmed = 0;
  /** Last time a packet was sent through the entry while it was not connected. */
  used = 0;
  /** Last state or address change. */
  updated = 0;
  probes = 0;
  /** Pending timer event id, 0 when none. */
  timer = 0;
  /** Packets waiting for resolution (oldest first) and their truesize sum. */
  readonly queue: SkBuff[] = [];
  queueBytes = 0;

  constructor(
    readonly dev: NetDevice,
    readonly ip: number,
    readonly parms: NeighParms,
  ) {}
}

/** What the table needs from its namespace. */
export interface NeighbourHost {
  readonly world: NetWorld;
  readonly counters: StackCounters;
  /** Sends an ARP request for entry.ip: to dstMac (unicast probe) or broadcast when dstMac is -1. */
  solicit(entry: NeighbourEntry, dstMac: number, newestQueued: SkBuff | null): void;
  /** Writes the Ethernet header for entry.mac and transmits on entry.dev. */
  transmit(entry: NeighbourEntry, skb: SkBuff): void;
  /** Resolution failed for a queued packet: ICMP host unreachable to its sender, then the drop. */
  unreachable(entry: NeighbourEntry, skb: SkBuff): void;
  /** A queued packet pushed out by newer ones (unres_qlen_bytes) or refused: record the drop. */
  discard(entry: NeighbourEntry, skb: SkBuff, why: string): void;
  /** The fixed link address of a next hop that needs no ARP (broadcast, multicast, NOARP device), else -1. */
  noarpAddress(dev: NetDevice, ip: number): number;
}

const BROADCAST_PROBE = -1;

export class NeighbourTable {
  /** Every entry, in creation order (what `ip neigh` lists). */
  private readonly entries = new Map<number, NeighbourEntry>();
  /** The same entries by device, then by address as a signed 32-bit integer: small-integer keys for the per-packet lookup. */
  private readonly byDev = new Map<number, Map<number, NeighbourEntry>>();
  private readonly parmsByDev = new Map<number, NeighParms>();
  /**
   * Entries found lately, by (address, ifindex): the per-packet lookup mostly stops here. 64 slots: a
   * node's namespace talks to a neighbour per local pod, and 16 slots missed 12% of output lookups.
   */
  private readonly recent = new DirectMappedCache<NeighbourEntry>(6);
  private lastRedraw: number;
  private readonly onTimer = (n: NeighbourEntry): void => this.timerHandler(n);

  constructor(
    private readonly host: NeighbourHost,
    private readonly rng: SeededRng,
  ) {
    this.lastRedraw = host.world.sim.now;
  }

  private get now(): number {
    return this.host.world.sim.now;
  }

  /** The neighbour parameters of dev (created with the defaults and a random reachable time). */
  parms(dev: NetDevice): NeighParms {
    let p = this.parmsByDev.get(dev.ifindex);
    if (p === undefined) {
      p = newNeighParms(this.rng);
      this.parmsByDev.set(dev.ifindex, p);
    }
    return p;
  }

  /** Sets base_reachable_time of dev and re-draws its reachable time, as the sysctl handler does. */
  setBaseReachable(dev: NetDevice, baseNs: number): void {
    const p = this.parms(dev);
    p.baseReachableNs = baseNs;
    p.reachableNs = randomReachableNs(baseNs, this.rng);
  }

  lookup(dev: NetDevice, ip: number): NeighbourEntry | undefined {
    return this.lookupOn(dev.ifindex, ip);
  }

  /** lookup by the device's index (the output path has it without asking the device). */
  private lookupOn(ifindex: number, ip: number): NeighbourEntry | undefined {
    const hit = this.recent.get(ip, ifindex);
    if (hit !== undefined) return hit;
    const n = this.byDev.get(ifindex)?.get(ip | 0);
    if (n !== undefined) this.recent.set(ip, ifindex, n);
    return n;
  }

  list(): NeighbourEntry[] {
    return [...this.entries.values()];
  }

  private forget(dev: NetDevice, ip: number): void {
    this.recent.clear();
    this.entries.delete(key(dev, ip));
    this.byDev.get(dev.ifindex)?.delete(ip | 0);
  }

  /** `ip neigh replace IP lladdr MAC dev DEV nud permanent` (flannel's VTEP entries). */
  addStatic(dev: NetDevice, ip: number, mac: number): NeighbourEntry {
    const n = this.lookup(dev, ip) ?? this.create(dev, ip);
    this.update(n, mac, Nud.PERMANENT, NeighUpdate.OVERRIDE | NeighUpdate.ADMIN);
    return n;
  }

  /** `ip neigh del`: the entry fails (queued packets get their errors) and is removed. */
  remove(dev: NetDevice, ip: number): boolean {
    const n = this.lookup(dev, ip);
    if (n === undefined) return false;
    this.update(n, null, Nud.FAILED, NeighUpdate.OVERRIDE | NeighUpdate.ADMIN);
    this.delTimer(n);
    this.forget(dev, ip);
    return true;
  }

  /** Drops every entry of dev (device down or gone); queued packets are discarded. */
  flushDevice(dev: NetDevice): void {
    for (const n of this.list()) {
      if (n.dev !== dev) continue;
      this.delTimer(n);
      for (const skb of n.queue.splice(0)) this.host.discard(n, skb, "device flushed");
      n.queueBytes = 0;
      n.state = Nud.FAILED;
      this.forget(dev, n.ip);
    }
  }

  /** Upper-layer reachability confirmation (TCP progress, neigh_confirm). */
  confirm(dev: NetDevice, ip: number): void {
    const n = this.lookup(dev, ip);
    if (n !== undefined) n.confirmed = this.now;
  }

  /** neigh_resolve_output/neigh_output: sends skb (head at the IPv4 header) to next hop ip on dev (whose index is ifindex). */
  output(dev: NetDevice, ifindex: number, ip: number, skb: SkBuff): void {
    const counters = this.host.counters.neigh;
    counters.lookups++;
    let n = this.lookupOn(ifindex, ip);
    if (n === undefined) n = this.create(dev, ip);
    else counters.hits++;
    if ((n.state & NUD_CONNECTED) !== 0) {
      this.host.transmit(n, skb);
      return;
    }
    n.used = this.now;
    if (!this.eventSend(n, skb)) this.host.transmit(n, skb);
  }

  /** neigh_event_ns: a request addressed to us teaches the sender's address (STALE, override). */
  eventNs(dev: NetDevice, ip: number, mac: number): NeighbourEntry {
    const n = this.lookup(dev, ip) ?? this.create(dev, ip);
    this.update(n, mac, Nud.STALE, NeighUpdate.OVERRIDE);
    return n;
  }

  /**
   * neigh_update: moves n to `state` with link address `mac` (null keeps the cached one). Without
   * OVERRIDE a different address for a valid entry is ignored; STALE with the same address keeps
   * the current state; leaving an invalid state sends the queued packets.
   */
  update(n: NeighbourEntry, mac: number | null, state: number, flags: number): void {
    const old = n.state;
    const now = this.now;
    if ((flags & NeighUpdate.ADMIN) === 0 && (old & (Nud.NOARP | Nud.PERMANENT)) !== 0) return;
    if ((state & NUD_VALID) === 0) {
      this.delTimer(n);
      n.state = state;
      if ((old & (Nud.INCOMPLETE | Nud.PROBE)) !== 0 && (state & Nud.FAILED) !== 0) {
        this.host.counters.neigh.resFailed++;
        this.invalidate(n);
      }
      return;
    }
    let addr: number;
    if (mac === null) {
      if ((old & NUD_VALID) === 0) return;
      addr = n.mac;
    } else {
      addr = mac;
    }
    // "changed" as the kernel's pointer comparison: any address for an entry that had none.
    let changed = (old & NUD_VALID) === 0 || addr !== n.mac;
    let next = state;
    if ((next & NUD_CONNECTED) !== 0) n.confirmed = now;
    if ((old & NUD_VALID) !== 0) {
      if (changed && (flags & NeighUpdate.OVERRIDE) === 0) {
        if ((flags & NeighUpdate.WEAK_OVERRIDE) !== 0 && (old & NUD_CONNECTED) !== 0) {
          addr = n.mac;
          changed = false;
          next = Nud.STALE;
        } else {
          return;
        }
      } else if (!changed && next === Nud.STALE && (flags & NeighUpdate.ADMIN) === 0) {
        next = old;
      }
    }
    if (next !== old || changed) n.updated = now;
    if (next !== old) {
      this.delTimer(n);
      if ((next & Nud.PROBE) !== 0) n.probes = 0;
      if ((next & NUD_IN_TIMER) !== 0) this.addTimer(n, now + ((next & Nud.REACHABLE) !== 0 ? n.parms.reachableNs : 0));
      n.state = next;
    }
    if (changed) {
      n.mac = addr;
      if ((next & NUD_CONNECTED) === 0) n.confirmed = now - 2 * n.parms.baseReachableNs;
    }
    if (next === old) return;
    if ((old & NUD_VALID) === 0) this.flushQueue(n);
  }

  private create(dev: NetDevice, ip: number): NeighbourEntry {
    this.redrawIfDue();
    const n = new NeighbourEntry(dev, ip >>> 0, this.parms(dev));
    const now = this.now;
    n.updated = now;
    n.used = now;
    n.confirmed = now - 2 * n.parms.baseReachableNs;
    const fixed = this.host.noarpAddress(dev, ip);
    if (fixed >= 0) {
      n.state = Nud.NOARP;
      n.mac = fixed;
    }
    this.entries.set(key(dev, ip), n);
    let mine = this.byDev.get(dev.ifindex);
    if (mine === undefined) this.byDev.set(dev.ifindex, (mine = new Map()));
    mine.set(ip | 0, n);
    this.host.counters.neigh.allocs++;
    return n;
  }

  /** __neigh_event_send: true when the packet was queued or dropped, false to send it now. */
  private eventSend(n: NeighbourEntry, skb: SkBuff): boolean {
    if ((n.state & (NUD_CONNECTED | Nud.DELAY | Nud.PROBE)) !== 0) return false;
    const now = this.now;
    const p = n.parms;
    let immediateProbe = false;
    if ((n.state & (Nud.STALE | Nud.INCOMPLETE)) === 0) {
      if (p.mcastProbes + p.appProbes > 0) {
        n.probes = p.ucastProbes;
        this.delTimer(n);
        n.state = Nud.INCOMPLETE;
        n.updated = now;
        immediateProbe = true;
        this.addTimer(n, now + Math.max(p.retransNs, MIN_TIMER_NS));
      } else {
        n.state = Nud.FAILED;
        n.updated = now;
        this.host.discard(n, skb, "neighbour failed: no probes configured (mcast_solicit + app_solicit = 0)");
        return true;
      }
    } else if ((n.state & Nud.STALE) !== 0) {
      this.delTimer(n);
      n.state = Nud.DELAY;
      n.updated = now;
      this.addTimer(n, now + p.delayFirstProbeNs);
    }
    if (n.state !== Nud.INCOMPLETE) return false;
    const size = skbTruesize(skb.length);
    while (n.queueBytes + size > p.unresQlenBytes) {
      const oldest = n.queue.shift();
      if (oldest === undefined) break;
      n.queueBytes -= skbTruesize(oldest.length);
      this.host.counters.neigh.unresolvedDiscards++;
      this.host.discard(n, oldest, `unresolved queue over unres_qlen_bytes ${p.unresQlenBytes}`);
    }
    n.queue.push(skb);
    n.queueBytes += size;
    if (immediateProbe) this.probe(n);
    return true;
  }

  /** neigh_probe + arp_solicit's choice: unicast to the cached address while probes < ucast_solicit. */
  private probe(n: NeighbourEntry): void {
    const p = n.parms;
    const over = n.probes - p.ucastProbes;
    const newest = n.queue.length > 0 ? n.queue[n.queue.length - 1]! : null;
    if (over < 0) this.host.solicit(n, n.mac, newest);
    else if (over - p.appProbes >= 0) this.host.solicit(n, BROADCAST_PROBE, newest);
    n.probes++;
  }

  private timerHandler(n: NeighbourEntry): void {
    n.timer = 0;
    const state = n.state;
    if ((state & NUD_IN_TIMER) === 0) return;
    this.redrawIfDue();
    const now = this.now;
    const p = n.parms;
    const retrans = Math.max(p.retransNs, MIN_TIMER_NS);
    let next = now + HZ * NS_PER_JIFFY;
    if ((state & Nud.REACHABLE) !== 0) {
      if (now <= n.confirmed + p.reachableNs) {
        next = n.confirmed + p.reachableNs;
      } else if (now <= n.used + p.delayFirstProbeNs) {
        n.state = Nud.DELAY;
        n.updated = now;
        next = now + p.delayFirstProbeNs;
      } else {
        n.state = Nud.STALE;
        n.updated = now;
      }
    } else if ((state & Nud.DELAY) !== 0) {
      if (now <= n.confirmed + p.delayFirstProbeNs) {
        n.state = Nud.REACHABLE;
        n.updated = now;
        next = n.confirmed + p.reachableNs;
      } else {
        n.state = Nud.PROBE;
        n.updated = now;
        n.probes = 0;
        next = now + retrans;
      }
    } else {
      next = now + retrans;
    }
    if ((n.state & (Nud.INCOMPLETE | Nud.PROBE)) !== 0 && n.probes >= maxProbes(n)) {
      if (n.state === Nud.PROBE && p.mcastReprobes > 0) {
        n.state = Nud.INCOMPLETE;
        n.updated = now;
      } else {
        n.state = Nud.FAILED;
        n.updated = now;
        this.host.counters.neigh.resFailed++;
        this.invalidate(n);
        return;
      }
    }
    if ((n.state & NUD_IN_TIMER) !== 0) this.addTimer(n, Math.max(next, now + MIN_TIMER_NS));
    if ((n.state & (Nud.INCOMPLETE | Nud.PROBE)) !== 0) this.probe(n);
  }

  /** neigh_invalidate: every queued packet gets its error report while the entry stays FAILED. */
  private invalidate(n: NeighbourEntry): void {
    while (n.state === Nud.FAILED && n.queue.length > 0) {
      const skb = n.queue.shift()!;
      n.queueBytes -= skbTruesize(skb.length);
      this.host.unreachable(n, skb);
    }
    for (const skb of n.queue.splice(0)) this.host.discard(n, skb, "neighbour entry changed while failing");
    n.queueBytes = 0;
  }

  /** Sends what waited for resolution, in order, while the entry stays valid. */
  private flushQueue(n: NeighbourEntry): void {
    while ((n.state & NUD_VALID) !== 0 && n.queue.length > 0) {
      const skb = n.queue.shift()!;
      n.queueBytes -= skbTruesize(skb.length);
      this.host.transmit(n, skb);
    }
    for (const skb of n.queue.splice(0)) this.host.discard(n, skb, "neighbour entry invalidated while sending its queue");
    n.queueBytes = 0;
  }

  private addTimer(n: NeighbourEntry, at: number): void {
    const sim = this.host.world.sim;
    if (n.timer !== 0) sim.cancel(n.timer);
    n.timer = sim.scheduleAt(Math.max(Math.ceil(at), sim.now), this.onTimer, n);
  }

  private delTimer(n: NeighbourEntry): void {
    if (n.timer !== 0) {
      this.host.world.sim.cancel(n.timer);
      n.timer = 0;
    }
  }

  /** neigh_periodic_work re-draws every interface's reachable time each 300 s. */
  private redrawIfDue(): void {
    if (this.now - this.lastRedraw < REACHABLE_REDRAW_NS) return;
    this.lastRedraw = this.now;
    for (const p of this.parmsByDev.values()) p.reachableNs = randomReachableNs(p.baseReachableNs, this.rng);
  }
}

function maxProbes(n: NeighbourEntry): number {
  const p = n.parms;
  return p.ucastProbes + p.appProbes + ((n.state & Nud.PROBE) !== 0 ? p.mcastReprobes : p.mcastProbes);
}

function key(dev: NetDevice, ip: number): number {
  return dev.ifindex * 0x100000000 + (ip >>> 0);
}

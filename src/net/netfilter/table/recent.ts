// xt_recent lists (the "recent" match kube-proxy uses for sessionAffinity: ClientIP): per list name,
// remembered addresses with their last 20 timestamps, at most 200 addresses (oldest evicted), on
// simulated time.

import type { RecentSpec } from "./spec.js";
import { NS_PER_SECOND } from "../conntrack/timeouts.js";

/** ip_pkt_list_tot and ip_list_tot module defaults. */
const MAX_STAMPS = 20;
const MAX_ENTRIES = 200;

class RecentList {
  /** address -> timestamps (ns), oldest first; Map order is the LRU order. */
  readonly entries = new Map<number, number[]>();

  touch(addr: number, stamps: number[], now: number): void {
    stamps.push(now);
    if (stamps.length > MAX_STAMPS) stamps.shift();
    this.entries.delete(addr);
    this.entries.set(addr, stamps);
  }
}

export class RecentTables {
  private readonly lists = new Map<string, RecentList>();

  private list(name: string): RecentList {
    let l = this.lists.get(name);
    if (l === undefined) {
      l = new RecentList();
      this.lists.set(name, l);
    }
    return l;
  }

  /** Addresses currently in list `name` with their timestamps (for tests and debugging). */
  contents(name: string): ReadonlyMap<number, readonly number[]> {
    return this.list(name).entries;
  }

  /** recent_mt: evaluates (and updates) list spec.name for address addr at time now. */
  match(spec: RecentSpec, addr: number, now: number): boolean {
    const key = (addr & (spec.mask ?? 0xffffffff)) >>> 0;
    const list = this.list(spec.name);
    let ret = spec.invert === true;
    const stamps = list.entries.get(key);
    if (stamps === undefined) {
      if (spec.op !== "set") return ret;
      if (list.entries.size >= MAX_ENTRIES) {
        const oldest = list.entries.keys().next();
        if (oldest.done !== true) list.entries.delete(oldest.value);
      }
      list.touch(key, [], now);
      return !ret;
    }
    if (spec.op === "set") {
      ret = !ret;
    } else if (spec.op === "remove") {
      list.entries.delete(key);
      return !ret;
    } else {
      const seconds = spec.seconds ?? 0;
      const since = now - seconds * NS_PER_SECOND;
      let hits = 0;
      for (const stamp of stamps) {
        if (seconds !== 0 && stamp < since) continue;
        if (!spec.hitcount || ++hits >= spec.hitcount) {
          ret = !ret;
          break;
        }
      }
      if (spec.reap === true && seconds !== 0 && stamps[stamps.length - 1]! < since) list.entries.delete(key);
    }
    if (spec.op === "set" || (spec.op === "update" && ret)) {
      if (list.entries.has(key)) list.touch(key, stamps, now);
    }
    return ret;
  }
}

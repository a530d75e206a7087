// The routing cache (in spirit): lookup answers by destination address in a direct-mapped cache,
// valid while the tables' versions and the devices' link state stay what they were when the answers
// were stored. A miss is only a slower lookup, never a different answer: lookups are pure in the
// tables and the link state.

import { DirectMappedCache } from "./direct-cache.js";
import type { Route } from "./route-table.js";

const SLOT_BITS = 6;

export class RouteCache {
  private readonly answers = new DirectMappedCache<Route | null>(SLOT_BITS);
  private localVersion = -1;
  private mainVersion = -1;
  private linkVersion = -1;

  /** Forgets every answer unless the versions are those the answers were stored under. */
  validate(localVersion: number, mainVersion: number, linkVersion: number): void {
    if (localVersion === this.localVersion && mainVersion === this.mainVersion && linkVersion === this.linkVersion) return;
    this.localVersion = localVersion;
    this.mainVersion = mainVersion;
    this.linkVersion = linkVersion;
    this.answers.clear();
  }

  /** The stored answer for dst (null = no route), or undefined when none is stored. */
  get(dst: number): Route | null | undefined {
    return this.answers.get(dst, 0);
  }

  set(dst: number, route: Route | null): void {
    this.answers.set(dst, 0, route);
  }
}

// Input route decisions remembered per flow (the kernel's dst on the socket and its early demux, in
// spirit): ip_rcv_finish routes each packet by (destination, source, input interface), and a host
// namespace routes the same few pairs packet after packet. A decision of the ordinary unicast path
// (routeInput's local and forward cases, source validation included) depends only on the routing tables,
// the devices' link state, the assigned addresses, ip_forward and rp_filter; the cache holds while
// all of these are what they were when its decisions were stored, and is not used while a per-device
// rp_filter is set (a Map that changes without notice). A miss is only the full decision, never another one.

import { DirectMappedCache } from "./direct-cache.js";
import type { NetNamespace } from "./namespace.js";
import type { Route } from "./route-table.js";

const SLOT_BITS = 6;

/** One remembered decision: the interface it arrived on completes the (destination, source) key. */
class InputRouteEntry {
  constructor(
    readonly ifindex: number,
    readonly decision: number,
    readonly route: Route | null,
  ) {}
}

export class InputRouteCache {
  private readonly entries = new DirectMappedCache<InputRouteEntry>(SLOT_BITS);
  private routesVersion = -1;
  private addressVersion = -1;
  private forwarding = false;
  private rpFilterAll = -1;

  /**
   * Forgets every decision unless what they depend on is unchanged. False when the cache cannot
   * answer at all (a per-device rp_filter is set): the caller then decides in full and stores nothing.
   */
  usable(ns: NetNamespace): boolean {
    const sysctl = ns.sysctl;
    if (sysctl.rpFilter.size !== 0) return false;
    const routesVersion = ns.routes.version();
    const addressVersion = ns.addresses.version;
    if (routesVersion !== this.routesVersion || addressVersion !== this.addressVersion || sysctl.ipForward !== this.forwarding || sysctl.rpFilterAll !== this.rpFilterAll) {
      this.routesVersion = routesVersion;
      this.addressVersion = addressVersion;
      this.forwarding = sysctl.ipForward;
      this.rpFilterAll = sysctl.rpFilterAll;
      this.entries.clear();
    }
    return true;
  }

  /** The decision stored for the flow, or undefined. Call usable() first. */
  find(dst: number, src: number, ifindex: number): InputRouteEntry | undefined {
    const hit = this.entries.get(dst, src);
    return hit !== undefined && hit.ifindex === ifindex ? hit : undefined;
  }

  store(dst: number, src: number, ifindex: number, decision: number, route: Route | null): void {
    this.entries.set(dst, src, new InputRouteEntry(ifindex, decision, route));
  }
}

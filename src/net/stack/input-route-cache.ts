// Input route decisions remembered per flow (the kernel's dst on the socket and its early demux, in
// spirit): ip_rcv_finish routes each packet by (destination, source, input interface), and a host
// namespace routes the same few pairs packet after packet. A decision of the ordinary unicast path
// (routeInput's local and forward cases, source validation included) depends only on the routing tables,
// the devices' link state, the assigned addresses, ip_forward and rp_filter (all and per device); the
// cache holds while all of these are what they were when its decisions were stored. A miss is only the
// full decision, never another one.

import type { NetDevice } from "../device.js";
import { DirectMappedCache } from "./direct-cache.js";
import type { NetNamespace } from "./namespace.js";
import type { Route } from "./route-table.js";

const SLOT_BITS = 6;

/**
 * One remembered decision: the interface it arrived on completes the (destination, source) key. The
 * device itself is compared, not its index: reading a property of a device is a megamorphic lookup
 * (many device classes), comparing two references is not.
 */
class InputRouteEntry {
  constructor(
    readonly dev: NetDevice,
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
  private rpFilterVersion = -1;

  /** Forgets every decision unless what they depend on is what it was when they were stored. */
  validate(ns: NetNamespace): void {
    const sysctl = ns.sysctl;
    const routesVersion = ns.routes.version();
    const addressVersion = ns.addresses.version;
    const rpFilterVersion = sysctl.rpFilter.version;
    if (
      routesVersion !== this.routesVersion ||
      addressVersion !== this.addressVersion ||
      sysctl.ipForward !== this.forwarding ||
      sysctl.rpFilterAll !== this.rpFilterAll ||
      rpFilterVersion !== this.rpFilterVersion
    ) {
      this.routesVersion = routesVersion;
      this.addressVersion = addressVersion;
      this.forwarding = sysctl.ipForward;
      this.rpFilterAll = sysctl.rpFilterAll;
      this.rpFilterVersion = rpFilterVersion;
      this.entries.clear();
    }
  }

  /** The decision stored for the flow, or undefined. Call validate() first. */
  find(dst: number, src: number, dev: NetDevice): InputRouteEntry | undefined {
    const hit = this.entries.get(dst, src);
    return hit !== undefined && hit.dev === dev ? hit : undefined;
  }

  store(dst: number, src: number, dev: NetDevice, decision: number, route: Route | null): void {
    this.entries.set(dst, src, new InputRouteEntry(dev, decision, route));
  }
}

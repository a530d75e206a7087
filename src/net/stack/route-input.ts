// ip_route_input for a packet (or an ARP request) that arrived on dev: martian checks, the FIB lookup,
// the error the kernel's dst would carry (ENETUNREACH / EHOSTUNREACH / EACCES / EINVAL), and source
// validation (a local address arriving from outside is martian; rp_filter strict or loose), with
// 127.0.0.0/8 from outside martian unless route_localnet.

import { DeviceKind, type NetDevice } from "../device.js";
import type { NetNamespace } from "./namespace.js";
import { RouteType, type Route } from "./route-table.js";
import { routeLocalnetOf, rpFilterOf } from "./sysctl.js";

export const InputDecision = {
  LOCAL: 1,
  BROADCAST: 2,
  FORWARD: 3,
  /** No route (forwarding on): ICMP net unreachable. */
  NET_UNREACH: 4,
  /** Unreachable route, or any non-local destination with forwarding off. */
  HOST_UNREACH: 5,
  /** Prohibit route: ICMP communication administratively prohibited. */
  PROHIBITED: 6,
  /** Blackhole route: silent drop. */
  BLACKHOLE: 7,
  MARTIAN_SOURCE: 8,
  MARTIAN_DESTINATION: 9,
  REVERSE_PATH: 10,
  /** Multicast destination of a group nobody joined. */
  MULTICAST: 11,
} as const;
export type InputDecision = (typeof InputDecision)[keyof typeof InputDecision];

/** The route behind the last decision (valid until the next routeInput call on this namespace). */
export class InputRouteResult {
  route: Route | null = null;
}

const isMulticast = (a: number): boolean => a >>> 28 === 0xe;
const isLoopback = (a: number): boolean => a >>> 24 === 127;
const isZeronet = (a: number): boolean => a >>> 24 === 0;

/**
 * The decision for a packet from src to dst that arrived on dev (the route behind it in out). An
 * ordinary unicast pair skips the martian checks, none of which can apply to it (see unusualPair), and
 * its decision is remembered for the flow (InputRouteCache) while nothing it depends on changes.
 */
export function routeInput(ns: NetNamespace, dst: number, src: number, dev: NetDevice, out: InputRouteResult): InputDecision {
  const cache = ns.inputRoutes;
  cache.validate(ns);
  const hit = cache.find(dst, src, dev);
  if (hit !== undefined) {
    out.route = hit.route;
    return hit.decision as InputDecision;
  }
  if (unusualPair(dst, src)) return routeInputChecked(ns, dst, src, dev, out);
  const route = ns.routes.lookup(dst);
  out.route = route;
  if (route === null) return routeInputChecked(ns, dst, src, dev, out);
  const decision = unicastDecision(ns, route, src, dev);
  if (decision === 0) return routeInputChecked(ns, dst, src, dev, out);
  cache.store(dst, src, dev, decision, route);
  return decision;
}

/** The decision for an ordinary unicast pair whose route is local, or unicast with forwarding on; 0 for any other route. */
function unicastDecision(ns: NetNamespace, route: Route, src: number, dev: NetDevice): InputDecision | 0 {
  const type = route.type;
  if (type === RouteType.LOCAL) return validated(ns, src, dev, InputDecision.LOCAL);
  if (type === RouteType.UNICAST && ns.sysctl.ipForward) return validated(ns, src, dev, InputDecision.FORWARD);
  return 0;
}

/** True when src or dst is one of the addresses routeInputChecked tests before the lookup: 0, broadcast, 0/8, 127/8, multicast. */
function unusualPair(dst: number, src: number): boolean {
  const s = src >>> 24;
  const d = dst >>> 24;
  return s === 0 || s === 127 || s >= 224 || d === 0 || d === 127 || d >= 224;
}

/** ip_route_input_noref in full: martian source and destination checks, the lookup, the decision. */
function routeInputChecked(ns: NetNamespace, dst: number, src: number, dev: NetDevice, out: InputRouteResult): InputDecision {
  out.route = null;
  const fromLoopback = dev.kind === DeviceKind.LOOPBACK;
  if (isMulticast(src) || src === 0xffffffff) return InputDecision.MARTIAN_SOURCE;
  if (dst === 0xffffffff || (src === 0 && dst === 0)) {
    return src === 0 ? InputDecision.BROADCAST : validated(ns, src, dev, InputDecision.BROADCAST);
  }
  if (src === 0) return InputDecision.MARTIAN_SOURCE;
  if (isZeronet(dst)) return InputDecision.MARTIAN_DESTINATION;
  if (!fromLoopback) {
    // 127.0.0.0/8 from outside is martian unless route_localnet (the destination is tested first).
    if (isLoopback(dst)) {
      if (!routeLocalnetOf(ns.sysctl, dev.ifindex)) return InputDecision.MARTIAN_DESTINATION;
    } else if (isLoopback(src) && !routeLocalnetOf(ns.sysctl, dev.ifindex)) {
      return InputDecision.MARTIAN_SOURCE;
    }
  }
  if (isMulticast(dst)) return InputDecision.MULTICAST;
  const route = ns.routes.lookup(dst);
  out.route = route;
  const forwarding = ns.sysctl.ipForward;
  if (route === null) return forwarding ? InputDecision.NET_UNREACH : InputDecision.HOST_UNREACH;
  switch (route.type) {
    case RouteType.LOCAL:
      return validated(ns, src, dev, InputDecision.LOCAL);
    case RouteType.BROADCAST:
      return validated(ns, src, dev, InputDecision.BROADCAST);
    case RouteType.UNICAST:
      return forwarding ? validated(ns, src, dev, InputDecision.FORWARD) : InputDecision.HOST_UNREACH;
    case RouteType.BLACKHOLE:
      return forwarding ? InputDecision.BLACKHOLE : InputDecision.HOST_UNREACH;
    case RouteType.PROHIBIT:
      return forwarding ? InputDecision.PROHIBITED : InputDecision.HOST_UNREACH;
    case RouteType.UNREACHABLE:
      return InputDecision.HOST_UNREACH;
  }
}

/** fib_validate_source: decision unchanged when src may arrive on dev, else the martian/rp verdict. */
function validated(ns: NetNamespace, src: number, dev: NetDevice, decision: InputDecision): InputDecision {
  if (dev.kind === DeviceKind.LOOPBACK) return decision;
  const rpf = rpFilterOf(ns.sysctl, dev.ifindex);
  if (rpf === 0) return ns.addresses.isAssigned(src) ? InputDecision.MARTIAN_SOURCE : decision;
  const back = ns.routes.lookup(src);
  if (back === null) return InputDecision.REVERSE_PATH;
  if (back.type !== RouteType.UNICAST) return InputDecision.MARTIAN_SOURCE;
  if (rpf === 1 && back.dev !== dev) return InputDecision.REVERSE_PATH;
  return decision;
}

/**
 * __mkroute_input's redirect test: the packet leaves through the device it came in on, the sender is
 * directly connected there (its route has no gateway), and sender and gateway share a subnet of dev.
 */
export function wantsRedirect(ns: NetNamespace, src: number, inDev: NetDevice, route: Route): boolean {
  if (route.dev !== inDev || !ns.sysctl.sendRedirects) return false;
  const back = ns.routes.lookup(src);
  if (back === null || back.type !== RouteType.UNICAST || back.dev !== inDev || back.via !== 0) return false;
  return ns.addresses.onlink(inDev, src, route.via);
}

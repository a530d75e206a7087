// The routing tables of a namespace (`ip route`): the local table (local and broadcast routes the
// kernel adds per address) searched before main, longest prefix first, lowest metric first within a
// prefix, skipping routes through a device that is down. Validation follows the kernel's answers.

import { DeviceKind, linkStateVersion, type NetDevice } from "../device.js";
import { ok, type Result } from "../../util/result.js";
import { formatIPv4, ipv4Mask } from "../../util/ip.js";
import { AddrScope } from "./addresses.js";
import { configError, type StackConfigError } from "./errors.js";
import { PrefixTable } from "./prefix-table.js";
import { RouteCache } from "./route-cache.js";

export const RouteType = {
  UNICAST: "unicast",
  LOCAL: "local",
  BROADCAST: "broadcast",
  BLACKHOLE: "blackhole",
  UNREACHABLE: "unreachable",
  PROHIBIT: "prohibit",
} as const;
export type RouteType = (typeof RouteType)[keyof typeof RouteType];

export type RouteTableName = "main" | "local";

/** What `ip route add` takes. */
export interface RouteSpec {
  readonly dst: number;
  readonly prefixLen: number;
  /** Default unicast. */
  readonly type?: RouteType;
  readonly dev?: NetDevice;
  /** Gateway; it must be reachable through a link-scope unicast route unless `onlink`. */
  readonly via?: number;
  readonly onlink?: boolean;
  /** Preferred source address (must be a local address). */
  readonly src?: number;
  /** Lower wins among routes of one prefix (default 0). */
  readonly metric?: number;
  /** Route MTU (0 = the device's). */
  readonly mtu?: number;
  /** Default: local for local/broadcast routes, main otherwise (as iproute2 does). */
  readonly table?: RouteTableName;
  /** Default "boot" for routes added by hand, "kernel" for the ones addresses create. */
  readonly proto?: string;
  readonly scope?: number;
}

export interface Route {
  readonly dst: number;
  readonly prefixLen: number;
  readonly type: RouteType;
  readonly dev: NetDevice | null;
  /** Gateway, 0 when the destination is on-link. */
  readonly via: number;
  readonly onlink: boolean;
  /** Preferred source, 0 when none. */
  readonly src: number;
  readonly metric: number;
  readonly mtu: number;
  readonly table: RouteTableName;
  readonly proto: string;
  readonly scope: number;
  /**
   * Facts of dev that never change (0/false when dev is null), kept in the route: the output path reads
   * them here, one shape for every route, instead of on the device, whose many classes make each read
   * a megamorphic property lookup.
   */
  readonly devIfindex: number;
  readonly devIsLoopback: boolean;
  readonly devIsL2: boolean;
}

/** Identifies routes to delete (`ip route del`): unset fields match anything. */
export interface RouteSelector {
  readonly dst: number;
  readonly prefixLen: number;
  readonly table?: RouteTableName;
  readonly type?: RouteType;
  readonly metric?: number;
  readonly dev?: NetDevice;
  readonly via?: number;
}

const preferLowerMetric = (a: Route, b: Route): boolean => a.metric < b.metric;

function defaultScope(type: RouteType, via: number): number {
  if (type === RouteType.LOCAL) return AddrScope.HOST;
  if (type === RouteType.BROADCAST) return AddrScope.LINK;
  if (type === RouteType.UNICAST && via === 0) return AddrScope.LINK;
  return AddrScope.UNIVERSE;
}

export class RouteTable {
  private readonly local = new PrefixTable<Route>();
  private readonly main = new PrefixTable<Route>();
  /** Accepts routes usable for forwarding/output: no device, or a device that is up. */
  private readonly usable = (r: Route): boolean => r.dev === null || r.dev.up;
  /** Accepts routes a gateway may be resolved through (scope link or narrower, link state ignored). */
  private readonly gatewayScope = (r: Route): boolean => r.scope >= AddrScope.LINK;

  /**
   * lookup's answers by destination: they depend only on the two tables and on which devices are up,
   * so they hold until either changes (versions compared per lookup).
   */
  private readonly cache = new RouteCache();

  constructor(private readonly namespace: string) {}

  /** `ip route add`: fails with "File exists" when the table has a route with this prefix and metric. */
  add(spec: RouteSpec): Result<Route, StackConfigError> {
    return this.insert(spec, false);
  }

  /** `ip route replace`: adds, or swaps the route with this prefix and metric. */
  replace(spec: RouteSpec): Result<Route, StackConfigError> {
    return this.insert(spec, true);
  }

  /** `ip route del`: removes the first (preferred) matching route. */
  remove(sel: RouteSelector): Route | null {
    const tables: RouteTableName[] = sel.table !== undefined ? [sel.table] : ["main", "local"];
    for (const name of tables) {
      const removed = this.table(name).remove(sel.dst, sel.prefixLen, (r) =>
        r.dst === sel.dst >>> 0 &&
        (sel.type === undefined || r.type === sel.type) &&
        (sel.metric === undefined || r.metric === sel.metric) &&
        (sel.dev === undefined || r.dev === sel.dev) &&
        (sel.via === undefined || r.via === sel.via >>> 0),
      );
      if (removed !== undefined) return removed;
    }
    return null;
  }

  /** Removes every route through dev (device deleted or moved away); returns how many. */
  removeDevice(dev: NetDevice): number {
    let n = 0;
    for (const name of ["main", "local"] as const) {
      const t = this.table(name);
      for (const r of t.values()) {
        if (r.dev === dev && t.remove(r.dst, r.prefixLen, (x) => x === r) !== undefined) n++;
      }
    }
    return n;
  }

  /** The route the kernel would pick for dst: local table first, then main. null = no route. */
  lookup(dst: number): Route | null {
    const cache = this.cache;
    cache.validate(this.local.version, this.main.version, linkStateVersion());
    const hit = cache.get(dst);
    if (hit !== undefined) return hit;
    const route = this.local.lookup(dst, this.usable) ?? this.main.lookup(dst, this.usable);
    cache.set(dst, route);
    return route;
  }

  /**
   * A stamp of everything lookup's answers depend on (both tables' versions and the devices' link
   * state): equal stamps mean unchanged answers. Each part only grows, so their sum does on any change.
   */
  version(): number {
    return this.local.version + this.main.version + linkStateVersion();
  }

  lookupIn(table: RouteTableName, dst: number): Route | null {
    return this.table(table).lookup(dst, this.usable);
  }

  /** True when dst is a local address (a local-table route of type local covers it). */
  isLocal(dst: number): boolean {
    return this.local.lookup(dst, this.usable)?.type === RouteType.LOCAL;
  }

  list(table?: RouteTableName): Route[] {
    if (table !== undefined) return this.table(table).values();
    return [...this.main.values(), ...this.local.values()];
  }

  private table(name: RouteTableName): PrefixTable<Route> {
    return name === "local" ? this.local : this.main;
  }

  private fail(field: string, reason: string): Result<Route, StackConfigError> {
    return configError(this.namespace, "route", field, reason);
  }

  private insert(spec: RouteSpec, replace: boolean): Result<Route, StackConfigError> {
    const type = spec.type ?? RouteType.UNICAST;
    const { prefixLen } = spec;
    if (!Number.isInteger(prefixLen) || prefixLen < 0 || prefixLen > 32) return this.fail("prefixLen", `prefix length ${prefixLen} not in 0..32`);
    const dst = spec.dst >>> 0;
    if (((dst & ~ipv4Mask(prefixLen)) >>> 0) !== 0) return this.fail("dst", "Invalid prefix for given prefix length");
    const table = spec.table ?? (type === RouteType.LOCAL || type === RouteType.BROADCAST ? "local" : "main");
    let dev: NetDevice | null = spec.dev ?? null;
    let via = (spec.via ?? 0) >>> 0;
    const onlink = spec.onlink ?? false;
    if (type === RouteType.BLACKHOLE || type === RouteType.UNREACHABLE || type === RouteType.PROHIBIT) {
      if (dev !== null || via !== 0) return this.fail("dev", "Gateway, device and multipath can not be specified for this route type");
    } else if (type === RouteType.UNICAST) {
      if (via !== 0 && onlink) {
        if (dev === null) return this.fail("dev", "Nexthop device required for onlink");
        const gwRoute = this.local.lookup(via, this.gatewayScope);
        if (gwRoute !== null && gwRoute.type !== RouteType.UNICAST) return this.fail("via", "Nexthop has invalid gateway");
      } else if (via !== 0) {
        const gwRoute = this.resolveGateway(via, dev);
        if (gwRoute === null || (gwRoute.type !== RouteType.UNICAST && gwRoute.type !== RouteType.LOCAL) || gwRoute.dev === null) {
          return this.fail("via", "Nexthop has invalid gateway");
        }
        dev = gwRoute.dev;
      } else if (dev === null) {
        return this.fail("dev", "a unicast route needs a device or a gateway");
      }
    } else if (dev === null) {
      return this.fail("dev", `a ${type} route needs a device`);
    }
    const src = (spec.src ?? 0) >>> 0;
    if (src !== 0 && !(type === RouteType.LOCAL && src === dst) && !this.isLocal(src)) {
      return this.fail("src", "Invalid prefsrc address");
    }
    const metric = spec.metric ?? 0;
    const existing = this.table(table).exact(dst, prefixLen).find((r) => r.metric === metric);
    if (existing !== undefined) {
      if (!replace) return this.fail("dst", `RTNETLINK answers: File exists (${formatIPv4(dst)}/${prefixLen} metric ${metric})`);
      this.table(table).remove(dst, prefixLen, (r) => r === existing);
    }
    const route: Route = {
      dst,
      prefixLen,
      type,
      dev,
      via: type === RouteType.UNICAST ? via : 0,
      onlink,
      src,
      metric,
      mtu: spec.mtu ?? 0,
      table,
      proto: spec.proto ?? "boot",
      scope: spec.scope ?? defaultScope(type, via),
      devIfindex: dev !== null ? dev.ifindex : 0,
      devIsLoopback: dev !== null && dev.kind === DeviceKind.LOOPBACK,
      devIsL2: dev !== null && dev.l2,
    };
    this.table(table).insert(dst, prefixLen, route, preferLowerMetric);
    return ok(route);
  }

  /**
   * fib_check_nh_v4_gw: the gateway must resolve, through a route of link or host scope (on dev when
   * given), to a unicast or local route; the lookup searches the local table first, as fib_lookup does.
   */
  private resolveGateway(gw: number, dev: NetDevice | null): Route | null {
    const onDev = (r: Route): boolean => r.scope >= AddrScope.LINK && (dev === null || r.dev === dev);
    return this.local.lookup(gw, onDev) ?? this.main.lookup(gw, onDev);
  }
}

/** `ip route` style one-line description, e.g. "10.0.0.0/24 dev eth0 proto kernel scope link src 10.0.0.1". */
export function formatRoute(r: Route): string {
  const parts: string[] = [];
  if (r.type !== RouteType.UNICAST) parts.push(r.type);
  parts.push(r.prefixLen === 0 && r.type === RouteType.UNICAST ? "default" : r.prefixLen === 32 ? formatIPv4(r.dst) : `${formatIPv4(r.dst)}/${r.prefixLen}`);
  if (r.via !== 0) parts.push("via", formatIPv4(r.via));
  if (r.dev !== null) parts.push("dev", r.dev.name);
  if (r.proto !== "boot") parts.push("proto", r.proto);
  if (r.scope === AddrScope.LINK) parts.push("scope link");
  if (r.scope === AddrScope.HOST) parts.push("scope host");
  if (r.src !== 0) parts.push("src", formatIPv4(r.src));
  if (r.metric !== 0) parts.push("metric", String(r.metric));
  if (r.onlink) parts.push("onlink");
  if (r.mtu !== 0) parts.push("mtu", String(r.mtu));
  return parts.join(" ");
}

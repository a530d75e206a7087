// NetNamespace: one Linux network namespace's host stack. It owns the interfaces, addresses, routing
// tables, neighbour table, sockets, counters, sysctls and the namespace's Netfilter, and implements the
// device-facing StackPort (input) and the netfilter-facing NetfilterHost (outputIp, address facts).
// The packet paths live in ip-input / ip-local / ip-forward / ip-output / arp / icmp-send.

import type { SkBuff } from "../../skb/skbuff.js";
import { TracePoint } from "../../../datapath/reasons.js";
import { ok, type Result } from "../../util/result.js";
import { writeMac } from "../../util/mac.js";
import type { SeededRng } from "../../util/rng.js";
import { read32, write16 } from "../../wire/bytes.js";
import { DeviceKind, type NetDevice, type StackPort } from "../device.js";
import type { DropSite, NetWorld } from "../world.js";
import type { NetfilterHost } from "../netfilter/host.js";
import { Netfilter, type NetfilterOptions } from "../netfilter/netfilter.js";
import { AddrScope, AddressTable, type InterfaceAddress } from "./addresses.js";
import { StackCounters } from "./counters.js";
import { configError, type StackConfigError } from "./errors.js";
import { IcmpRateLimiter } from "./icmp-ratelimit.js";
import { stackInput } from "./ip-input.js";
import { runSocketDelivery, SocketDelivery } from "./socket-delivery.js";
import { TunnelInfos } from "./tunnel-delivery.js";
import { IpIdentGenerator } from "./ip-ident.js";
import { outputIp } from "./ip-output.js";
import { ETH_HEADER, ETHERTYPE_IPV4, IPPROTO_ICMP, IPPROTO_TCP, IPPROTO_UDP } from "./ip-packet.js";
import { LoopbackDevice } from "./loopback.js";
import { NeighbourTable } from "./neighbour.js";
import { NamespaceNeighbourHost } from "./neighbour-host.js";
import { Reassembler } from "./reassembly.js";
import { InputRouteCache } from "./input-route-cache.js";
import { InputRouteResult } from "./route-input.js";
import { RouteTable, RouteType, type Route } from "./route-table.js";
import { SocketMode, SocketTable, type Binding, type ProtocolHandler, type SocketHandler } from "./sockets.js";
import { defaultSysctl, type StackSysctl } from "./sysctl.js";
import { jiffiesAt } from "./time.js";

export interface NetNamespaceOptions {
  readonly netfilter?: NetfilterOptions;
  /** Name of the loopback device (default "lo"). */
  readonly loopbackName?: string;
}

export class NetNamespace implements StackPort, NetfilterHost {
  readonly sysctl: StackSysctl = defaultSysctl();
  readonly counters = new StackCounters();
  readonly addresses = new AddressTable();
  readonly routes: RouteTable;
  readonly neigh: NeighbourTable;
  readonly sockets = new SocketTable();
  readonly netfilter: Netfilter;
  /** lo: up, 127.0.0.1/8; carries every packet the namespace sends to its own addresses. */
  readonly loopback: LoopbackDevice;
  /** This namespace's random stream (forked from the simulator's). */
  readonly rng: SeededRng;
  readonly icmpLimiter: IcmpRateLimiter;
  readonly ipIdent: IpIdentGenerator;
  readonly reassembler: Reassembler;
  /** Scratch result of routeInput: read it right after each call. */
  readonly inputRoute = new InputRouteResult();
  /** routeInput's decisions per flow, valid while the tables, addresses and sysctls they used are unchanged. */
  readonly inputRoutes = new InputRouteCache();
  /** ARP requests waiting in the proxy queue (proxy_delay). */
  proxyQueued = 0;
  /** The SocketInfo objects TUNNEL and IP protocol deliveries reuse (their handlers run synchronously). */
  private readonly tunnelInfos = new TunnelInfos();
  private readonly devices = new Map<number, NetDevice>();
  private readonly byName = new Map<string, NetDevice>();

  constructor(
    readonly world: NetWorld,
    readonly name: string,
    readonly nodeName: string,
    options: NetNamespaceOptions = {},
  ) {
    this.rng = world.sim.rng.fork();
    this.routes = new RouteTable(name);
    this.neigh = new NeighbourTable(new NamespaceNeighbourHost(this), this.rng);
    this.icmpLimiter = new IcmpRateLimiter(this.sysctl, this.rng, jiffiesAt(world.sim.now));
    this.ipIdent = new IpIdentGenerator(this.rng);
    this.reassembler = new Reassembler(this);
    this.netfilter = new Netfilter(this, options.netfilter ?? {});
    this.loopback = new LoopbackDevice(world, options.loopbackName ?? "lo");
    this.addDevice(this.loopback);
    this.addAddress(this.loopback, 0x7f000001, 8, AddrScope.HOST);
  }

  // ---- interfaces and addresses (`ip link`, `ip addr`) ---------------------------------------

  /** Moves dev into this namespace (sets dev.stack). Names are unique per namespace. */
  addDevice(dev: NetDevice): Result<NetDevice, StackConfigError> {
    const clash = this.byName.get(dev.name);
    if (clash !== undefined && clash !== dev) return configError(this.name, "link", "name", `device ${dev.name} already exists`);
    dev.stack = this;
    this.devices.set(dev.ifindex, dev);
    this.byName.set(dev.name, dev);
    return ok(dev);
  }

  /** Takes dev out of the namespace with its addresses, routes and neighbours. */
  removeDevice(dev: NetDevice): boolean {
    if (this.devices.get(dev.ifindex) !== dev || dev === this.loopback) return false;
    for (const a of [...this.addresses.ofDevice(dev)]) this.removeAddress(dev, a.addr, a.prefixLen);
    this.routes.removeDevice(dev);
    this.neigh.flushDevice(dev);
    this.devices.delete(dev.ifindex);
    this.byName.delete(dev.name);
    if (dev.stack === this) dev.stack = null;
    return true;
  }

  deviceByIndex(ifindex: number): NetDevice | undefined {
    return this.devices.get(ifindex);
  }

  deviceByName(name: string): NetDevice | undefined {
    return this.byName.get(name);
  }

  /** Interfaces in the order they joined the namespace (lo first), as the kernel walks them. */
  devicesInOrder(): IterableIterator<NetDevice> {
    return this.devices.values();
  }

  /** devicesInOrder as a long-lived function, for lookups that walk the devices only when they must. */
  readonly listDevices = (): IterableIterator<NetDevice> => this.devices.values();

  /**
   * `ip addr add addr/prefixLen dev DEV`: also adds the kernel's routes for it (local /32 and, for a
   * primary address, the connected prefix route and the subnet broadcast in the local table).
   */
  addAddress(dev: NetDevice, addr: number, prefixLen: number, scope: number = AddrScope.UNIVERSE): Result<InterfaceAddress, StackConfigError> {
    if (this.devices.get(dev.ifindex) !== dev) return configError(this.name, "address", "dev", `device ${dev.name} is not in namespace ${this.name}`);
    if (!Number.isInteger(prefixLen) || prefixLen < 0 || prefixLen > 32) return configError(this.name, "address", "prefixLen", `prefix length ${prefixLen} not in 0..32`);
    const entry = this.addresses.add(dev, addr >>> 0, prefixLen, scope);
    if (entry === null) return configError(this.name, "address", "addr", "RTNETLINK answers: File exists");
    const local = entry.addr;
    const prim = entry.secondary ? (this.addresses.subnetOf(dev, local)?.addr ?? local) : local;
    const kernel = { proto: "kernel", table: "local" as const, dev };
    if (!this.routes.list("local").some((r) => r.type === RouteType.LOCAL && r.dst === local && r.prefixLen === 32)) {
      this.routes.add({ ...kernel, dst: local, prefixLen: 32, type: RouteType.LOCAL, src: prim });
    }
    const mask = prefixLen === 0 ? 0 : (0xffffffff << (32 - prefixLen)) >>> 0;
    const prefix = (local & mask) >>> 0;
    if (!entry.secondary && prefix >>> 24 !== 0 && (prefix !== local || prefixLen < 32)) {
      const loop = dev.kind === DeviceKind.LOOPBACK;
      this.routes.replace({
        dst: prefix,
        prefixLen,
        dev,
        src: local,
        proto: "kernel",
        type: loop ? RouteType.LOCAL : RouteType.UNICAST,
        table: loop ? "local" : "main",
        scope: loop ? AddrScope.HOST : AddrScope.LINK,
      });
      if (prefixLen < 31) this.routes.replace({ ...kernel, dst: entry.broadcast, prefixLen: 32, type: RouteType.BROADCAST, src: local });
    }
    return ok(entry);
  }

  /** `ip addr del`: removes the address and the routes the kernel added for it. */
  removeAddress(dev: NetDevice, addr: number, prefixLen: number): boolean {
    const removed = this.addresses.remove(dev, addr >>> 0, prefixLen);
    for (const a of removed) {
      if (!this.addresses.isAssigned(a.addr)) this.routes.remove({ dst: a.addr, prefixLen: 32, table: "local", type: RouteType.LOCAL });
      if (a.secondary) continue;
      const mask = a.prefixLen === 0 ? 0 : (0xffffffff << (32 - a.prefixLen)) >>> 0;
      this.routes.remove({ dst: (a.addr & mask) >>> 0, prefixLen: a.prefixLen, dev });
      if (a.broadcast !== 0) this.routes.remove({ dst: a.broadcast, prefixLen: 32, table: "local", type: RouteType.BROADCAST, dev });
    }
    return removed.length > 0;
  }

  /** First IPv4 address of dev, 0 if none. */
  primaryAddress(dev: NetDevice): number {
    return this.addresses.primary(dev);
  }

  isLocalAddress(addr: number): boolean {
    return this.routes.isLocal(addr);
  }

  /** NetfilterHost: every IPv4 address on the namespace's interfaces, interfaces in order (lo first). */
  localAddresses(): number[] {
    const out: number[] = [];
    for (const dev of this.devicesInOrder()) for (const a of this.addresses.ofDevice(dev)) out.push(a.addr);
    return out;
  }

  /** The kernel's source choice toward dst: on dev (inet_select_addr, universe scope), or via the route. */
  selectSourceAddress(dst: number, dev: NetDevice | null): number {
    if (dev !== null) return this.addresses.select(dev, dst, AddrScope.UNIVERSE, this.listDevices);
    const route = this.routes.lookup(dst);
    return route === null ? 0 : this.routeSource(route, dst);
  }

  /** Source address for a packet to dst leaving by route: its src hint, else inet_select_addr on its device. */
  routeSource(route: Route, dst: number): number {
    if (route.src !== 0) return route.src;
    if (route.type === RouteType.LOCAL) return dst >>> 0;
    return this.addresses.select(route.dev, route.via, route.scope, this.listDevices);
  }

  /** dst_mtu of a route: its mtu, else its device's (lo's for local routes). */
  routeMtu(route: Route): number {
    if (route.mtu !== 0) return route.mtu;
    if (route.type === RouteType.LOCAL || route.dev === null) return this.loopback.mtu;
    return route.dev.mtu;
  }

  // ---- sockets ----------------------------------------------------------------------------------

  /** Binds a handler to a UDP port (see SocketMode: workloads use SOCKET, tunnel devices TUNNEL). */
  bindUdp(port: number, handler: SocketHandler, mode: SocketMode = SocketMode.SOCKET): Result<number, StackConfigError> {
    return this.bind(this.sockets.udp, "udp", port, handler, mode);
  }

  unbindUdp(port: number): boolean {
    return this.sockets.udp.delete(port);
  }

  /** Receives every TCP segment to the port (the model's TCP endpoints live in the workloads). */
  listenTcp(port: number, handler: SocketHandler, mode: SocketMode = SocketMode.SOCKET): Result<number, StackConfigError> {
    return this.bind(this.sockets.tcp, "tcp", port, handler, mode);
  }

  unlistenTcp(port: number): boolean {
    return this.sockets.tcp.delete(port);
  }

  /**
   * Handles an IP protocol locally (e.g. 4 for IPIP decapsulation). The handler runs synchronously
   * with skb.head after the IPv4 header and owns the packet: it must deliver, drop or forward it. Its
   * SocketInfo is valid during the call only (the next delivery reuses it).
   */
  registerIpProtocol(proto: number, handler: ProtocolHandler): Result<number, StackConfigError> {
    if (proto === IPPROTO_ICMP || proto === IPPROTO_TCP || proto === IPPROTO_UDP || !Number.isInteger(proto) || proto < 0 || proto > 255) {
      return configError(this.name, "protocol", "proto", `IP protocol ${proto} cannot take a handler`);
    }
    if (this.sockets.protocols.has(proto)) return configError(this.name, "protocol", "proto", `IP protocol ${proto} already has a handler`);
    this.sockets.protocols.set(proto, handler);
    return ok(proto);
  }

  unregisterIpProtocol(proto: number): boolean {
    return this.sockets.protocols.delete(proto);
  }

  /** The ICMP listener (ping clients): echo replies and errors delivered here; null to stop. */
  listenIcmp(handler: SocketHandler | null): void {
    this.sockets.icmp = handler;
  }

  private bind(table: Map<number, Binding>, proto: string, port: number, handler: SocketHandler, mode: SocketMode): Result<number, StackConfigError> {
    if (!Number.isInteger(port) || port <= 0 || port > 65535) return configError(this.name, proto, "port", `port ${port} not in 1..65535`);
    if (table.has(port)) return configError(this.name, proto, "port", `${proto} port ${port}: Address already in use`);
    table.set(port, { handler, mode });
    return ok(port);
  }

  // ---- packet paths -------------------------------------------------------------------------------

  /** StackPort: a frame arrived on dev (head at the Ethernet header; at the IPv4 header on L3 devices). */
  input(dev: NetDevice, skb: SkBuff): void {
    stackInput(this, dev, skb);
  }

  /** Sends a locally generated IPv4 packet (head at the IPv4 header; src 0 = let the route choose). */
  outputIp(skb: SkBuff): void {
    outputIp(this, skb);
  }

  /** /proc/net/snmp of this namespace. */
  snmp(): string {
    return this.counters.formatSnmp(this.sysctl.ipForward, this.sysctl.ipDefaultTtl);
  }

  // ---- helpers for the packet paths ------------------------------------------------------------

  site(dev: NetDevice | null, hook: string): DropSite {
    return { node: this.nodeName, device: dev?.name ?? "", hook };
  }

  /**
   * Drops a packet inside the stack (head at the IPv4 header, or at the ARP header when `arp`: its
   * Ethernet header is restored so the record parses it).
   */
  dropPacket(skb: SkBuff, dev: NetDevice | null, hook: string, reason: number, site: string, explanation?: string, arp = false): void {
    if (arp) skb.push(ETH_HEADER);
    this.world.drop(skb, this.site(dev, hook), reason, site, arp, explanation !== undefined ? { explanation } : undefined);
  }

  /** Drops a frame whose head is still at the Ethernet header. */
  dropFrame(skb: SkBuff, dev: NetDevice, reason: number, site: string, explanation: string): void {
    this.world.drop(skb, this.site(dev, "rx"), reason, site, true, { explanation });
  }

  /** Hands the packet at skb.head (IPv4) to a bound handler with head moved to the transport header. */
  deliverToSocket(binding: Binding, skb: SkBuff, dev: NetDevice, srcPort: number, dstPort: number): void {
    const world = this.world;
    const b = skb.data;
    const ip = skb.head;
    if (world.tracer.hops) world.hop(skb, this.site(dev, "socket"), TracePoint.TO_SOCKET, `${binding.mode} port ${dstPort}`, false);
    if (binding.mode === SocketMode.TUNNEL) {
      this.deliverToTunnel(binding.handler, skb, dev, srcPort, dstPort);
      return;
    }
    const delivery = new SocketDelivery(read32(b, ip + 12), read32(b, ip + 16), srcPort, dstPort, dev, b[ip + 9]!, ip, binding.handler, skb, world.ledger);
    skb.pull((b[ip]! & 0x0f) * 4);
    world.sim.schedule(0, runSocketDelivery, delivery);
  }

  /** A TUNNEL handler runs now, with a reused info (it reads it during the call only). */
  private deliverToTunnel(handler: SocketHandler, skb: SkBuff, dev: NetDevice, srcPort: number, dstPort: number): void {
    const infos = this.tunnelInfos;
    const info = infos.enter(skb, dev, srcPort, dstPort);
    skb.pull((skb.data[skb.head]! & 0x0f) * 4);
    try {
      handler(skb, info);
    } finally {
      infos.leave();
    }
  }

  /** Hands the packet at skb.head (IPv4) to an IP protocol handler, now, with head after the IPv4 header. */
  deliverToProtocol(handler: ProtocolHandler, skb: SkBuff, dev: NetDevice): void {
    const infos = this.tunnelInfos;
    const info = infos.enter(skb, dev, 0, 0);
    skb.pull((skb.data[skb.head]! & 0x0f) * 4);
    try {
      handler(skb, dev, info);
    } finally {
      infos.leave();
    }
  }

  /** Prepends an Ethernet header (dstMac, dev's MAC, IPv4) and transmits on dev. */
  transmitEthernet(dev: NetDevice, skb: SkBuff, dstMac: number): void {
    const at = skb.push(ETH_HEADER);
    const b = skb.data;
    writeMac(b, at, dstMac);
    writeMac(b, at + 6, dev.mac);
    write16(b, at + 12, ETHERTYPE_IPV4);
    dev.transmit(skb);
  }
}

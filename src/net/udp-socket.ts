// UdpSocket: a small datagram socket over a namespace's stack for workloads (DNS, UDP echo): bind a
// port (or an ephemeral one, random in ip_local_port_range as udp_lib_get_port picks it), send
// IPv4/UDP datagrams with Linux's defaults (DF set, TTL 64, IP ID 0 on an unconnected socket),
// receive through ns.bindUdp, and hear ICMP errors that quote what it sent.

import type { SkBuff } from "../skb/skbuff.js";
import { read16, write16 } from "../wire/bytes.js";
import { setL4ChecksumV4 } from "../wire/checksum.js";
import { err, ok, type Result } from "../util/result.js";
import type { SeededRng } from "../util/rng.js";
import { IPPROTO_UDP, IP_DF, newPacket, writeIpv4Header } from "./stack/ip-packet.js";
import { RouteType, SocketMode, type NetNamespace, type SocketInfo } from "./stack/index.js";
import { IcmpMux, type IcmpErrorInfo } from "./tcp/icmp-mux.js";

const UDP_HEADER = 8;
const IPV4_HEADER = 20;

export interface UdpDatagram {
  readonly src: number;
  readonly srcPort: number;
  readonly dst: number;
  readonly dstPort: number;
  /** Payload view, valid during the callback. */
  readonly data: Uint8Array;
  readonly ttl: number;
}

export interface UdpSocketEvents {
  onMessage?(sock: UdpSocket, msg: UdpDatagram): void;
  /** An ICMP error about a datagram this socket sent (port unreachable = ECONNREFUSED on Linux). */
  onError?(sock: UdpSocket, error: IcmpErrorInfo): void;
}

export interface UdpSendError {
  readonly errno: string;
  readonly detail: string;
}

interface NamespaceUdp {
  readonly sockets: Map<number, UdpSocket>;
  readonly rng: SeededRng;
  /** Payload bytes the namespace's sockets sent and received (what sendmsg / recvmsg copy). */
  readonly payload: { sent: number; received: number };
}

const perNamespace = new WeakMap<NetNamespace, NamespaceUdp>();

/** The namespace's UDP sockets (routing ICMP errors to them) and its port-choice random stream. */
function udpOf(ns: NetNamespace): NamespaceUdp {
  let state = perNamespace.get(ns);
  if (state === undefined) {
    const fresh: NamespaceUdp = { sockets: new Map(), rng: ns.rng.fork(), payload: { sent: 0, received: 0 } };
    perNamespace.set(ns, fresh);
    IcmpMux.of(ns).onError(IPPROTO_UDP, (e) => fresh.sockets.get(e.srcPort)?.icmpError(e));
    state = fresh;
  }
  return state;
}

export class UdpSocket {
  private closed = false;

  private constructor(
    readonly ns: NetNamespace,
    readonly port: number,
    public events: UdpSocketEvents,
  ) {}

  /** Binds `port` (0 = an ephemeral port). */
  static bind(ns: NetNamespace, port: number, events: UdpSocketEvents = {}): Result<UdpSocket, UdpSendError> {
    const state = udpOf(ns);
    const chosen = port === 0 ? ephemeral(ns, state.rng) : port;
    if (chosen === 0) return err({ errno: "EADDRINUSE", detail: "no free ephemeral UDP port" });
    const sock = new UdpSocket(ns, chosen, events);
    const bound = ns.bindUdp(chosen, (skb, info) => sock.receive(skb, info), SocketMode.SOCKET);
    if (!bound.ok) return err({ errno: "EADDRINUSE", detail: bound.error.reason });
    state.sockets.set(chosen, sock);
    return ok(sock);
  }

  /** sendto(): one datagram to dst:dstPort from the route's source address (or `src`). */
  send(dst: number, dstPort: number, payload: Uint8Array, src = 0): Result<number, UdpSendError> {
    if (this.closed) return err({ errno: "EBADF", detail: "socket is closed" });
    const ns = this.ns;
    const route = ns.routes.lookup(dst);
    if (route === null) return err({ errno: "ENETUNREACH", detail: "Network is unreachable" });
    if (route.type !== RouteType.UNICAST && route.type !== RouteType.LOCAL && route.type !== RouteType.BROADCAST) {
      return err({ errno: "EHOSTUNREACH", detail: `${route.type} route` });
    }
    const from = src !== 0 ? src : ns.routeSource(route, dst);
    const udpLen = UDP_HEADER + payload.length;
    const skb = newPacket(ns.world, IPV4_HEADER + udpLen);
    const b = skb.data;
    const at = skb.head;
    writeIpv4Header(b, at, 0, IPV4_HEADER + udpLen, 0, IP_DF, ns.sysctl.ipDefaultTtl, IPPROTO_UDP, from, dst);
    const u = at + IPV4_HEADER;
    write16(b, u, this.port);
    write16(b, u + 2, dstPort);
    write16(b, u + 4, udpLen);
    b.set(payload, u + UDP_HEADER);
    setL4ChecksumV4(b, u, udpLen, IPPROTO_UDP, from, dst);
    ns.outputIp(skb);
    // udp_send_skb counts UDP_MIB_OUTDATAGRAMS for every datagram handed to IP.
    ns.counters.udp.OutDatagrams++;
    udpOf(ns).payload.sent += payload.length;
    return ok(payload.length);
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.ns.unbindUdp(this.port);
    perNamespace.get(this.ns)?.sockets.delete(this.port);
  }

  /** @internal ICMP errors quoting our datagrams. */
  icmpError(e: IcmpErrorInfo): void {
    if (!this.closed) this.events.onError?.(this, e);
  }

  private receive(skb: SkBuff, info: SocketInfo): void {
    if (this.closed) return;
    const b = skb.data;
    const at = skb.head;
    const len = read16(b, at + 4);
    udpOf(this.ns).payload.received += Math.max(0, len - UDP_HEADER);
    this.events.onMessage?.(this, {
      src: info.src,
      srcPort: info.srcPort,
      dst: info.dst,
      dstPort: info.dstPort,
      data: b.subarray(at + UDP_HEADER, at + len),
      ttl: b[info.ipOffset + 8]!,
    });
  }
}

/** Payload bytes the namespace's UDP sockets sent and received so far (the bytes their syscalls copy). */
export function udpPayloadBytes(ns: NetNamespace): { readonly sent: number; readonly received: number } {
  return perNamespace.get(ns)?.payload ?? NO_PAYLOAD;
}

const NO_PAYLOAD = Object.freeze({ sent: 0, received: 0 });

/** udp_lib_get_port for port 0: a random start in the local range, then the next free port. */
function ephemeral(ns: NetNamespace, rng: SeededRng): number {
  const low = 32768;
  const high = 60999;
  const span = high - low + 1;
  const start = rng.nextInt(span);
  for (let i = 0; i < span; i++) {
    const port = low + ((start + i) % span);
    if (!ns.sockets.udp.has(port)) return port;
  }
  return 0;
}

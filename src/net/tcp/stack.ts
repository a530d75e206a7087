// TcpStack: the TCP of one network namespace. It binds the ports it uses through ns.listenTcp,
// demultiplexes arriving segments by 4-tuple to connections (else to a listener, else answers with
// a reset), opens connections (route, source address, MTU, ephemeral port chosen as Linux's
// __inet_hash_connect does: per-destination offset, even ports first, step 2), and turns ICMP
// errors into connection errors or path-MTU updates.

import { consumeSkb } from "../../skb/buffer-pool.js";
import type { SkBuff } from "../../skb/skbuff.js";
import { formatIPv4 } from "../../util/ip.js";
import type { SeededRng } from "../../util/rng.js";
import { err, ok, type Result } from "../../util/result.js";
import type { Simulator } from "../../engine/simulator.js";
import type { NetWorld } from "../world.js";
import { RouteType, SocketMode, type NetNamespace, type SocketInfo } from "../stack/index.js";
import { buildTcpReset } from "../stack/tcp-reset.js";
import { TcpCounters, type TcpCostObserver } from "./counters.js";
import { IcmpKind, IcmpMux, type IcmpErrorInfo } from "./icmp-mux.js";
import { TcpListener, type TcpListenOptions } from "./listener.js";
import { startActiveOpen } from "./open.js";
import { Sacked } from "./rtx-queue.js";
import { groAdmit, holdPendingSkb, segmentArrived } from "./rx.js";
import { ConnectionSlots } from "./connection-slots.js";
import { Segment } from "./segment.js";
import { seqBetween } from "./seq.js";
import { TcpSocket, type TcpEvents, type TcpSocketOptions } from "./socket.js";
import { CaState, tcpError, TcpError, TcpState, type TcpErrorInfo } from "./states.js";
import { defaultTcpSysctl, type TcpSysctl } from "./sysctl.js";
import { armConnectTimeout } from "./timers.js";
import { pushPending, TcpFlags } from "./tx.js";

export interface TcpConnectOptions extends TcpSocketOptions {
  /** Source address (default: the route's choice). */
  readonly src?: number;
  /** Source port (default: an ephemeral port). */
  readonly srcPort?: number;
  /** Give up if not connected after this many ns (curl --connect-timeout); default: TCP's SYN retries. */
  readonly timeoutNs?: number;
}

interface PortBinding {
  listener: TcpListener | null;
  readonly conns: Map<number, TcpSocket>;
  /** Connections recent segments went to: a lookup cache, cleared whenever conns changes. */
  readonly recent: ConnectionSlots;
}

const stacks = new WeakMap<NetNamespace, TcpStack>();
const remoteKey = (addr: number, port: number): number => addr * 65536 + port;

/** icmp_err_convert: the errno an ICMP destination-unreachable code gives a TCP socket. */
const UNREACH_ERRNO = [
  "ENETUNREACH", "EHOSTUNREACH", "ENOPROTOOPT", "ECONNREFUSED", "EMSGSIZE", "EOPNOTSUPP", "ENETUNREACH", "EHOSTDOWN",
  "ENONET", "ENETUNREACH", "EHOSTUNREACH", "ENETUNREACH", "EHOSTUNREACH", "EHOSTUNREACH", "EHOSTUNREACH", "EHOSTUNREACH",
] as const;

export class TcpStack {
  readonly sysctl: TcpSysctl = defaultTcpSysctl();
  readonly counters = new TcpCounters();
  /** Set by the metrics layer to charge CPU per batch. */
  costObserver: TcpCostObserver | null = null;
  readonly rng: SeededRng;
  readonly world: NetWorld;
  readonly sim: Simulator;
  private readonly ports = new Map<number, PortBinding>();
  private readonly seg = new Segment();
  private readonly perturb = new Map<number, number>();
  private readonly portSecret: number;
  private readonly handler = (skb: SkBuff, info: SocketInfo): void => this.input(skb, info);
  private curSkb: SkBuff | null = null;
  private curInfo: SocketInfo | null = null;
  /** The connection the segment being processed went to, null for a listener or none. */
  private curSock: TcpSocket | null = null;
  /**
   * Set while processing a segment when its payload is kept by reference beyond the call (the
   * out-of-order queue); then its buffer is not recycled.
   */
  payloadKept = false;

  private constructor(readonly ns: NetNamespace) {
    this.world = ns.world;
    this.sim = ns.world.sim;
    this.rng = ns.rng.fork();
    this.portSecret = this.rng.nextU32();
    IcmpMux.of(ns).onError(6, (e) => this.icmpError(e));
  }

  /** The namespace's TCP (created on first use). */
  static of(ns: NetNamespace): TcpStack {
    let stack = stacks.get(ns);
    if (stack === undefined) {
      stack = new TcpStack(ns);
      stacks.set(ns, stack);
    }
    return stack;
  }

  /** listen(): accepts connections on port; onAccept runs when a handshake completes. */
  listen(port: number, onAccept: (sock: TcpSocket) => void, options: TcpListenOptions = {}): Result<TcpListener, TcpErrorInfo> {
    const existing = this.ports.get(port);
    if (existing?.listener != null || (existing === undefined && this.ns.sockets.tcp.has(port))) {
      return err(tcpError(TcpError.REFUSED, "EADDRINUSE", `tcp port ${port}: Address already in use`));
    }
    const binding = existing ?? this.bind(port);
    if (binding === null) return err(tcpError(TcpError.REFUSED, "EADDRINUSE", `tcp port ${port} cannot be bound`));
    const listener = new TcpListener(this, port, onAccept, options);
    binding.listener = listener;
    return ok(listener);
  }

  /** connect(): sends the SYN; the outcome arrives as events.onConnect or events.onClose(error). */
  connect(dst: number, dstPort: number, events: TcpEvents = {}, options: TcpConnectOptions = {}): Result<TcpSocket, TcpErrorInfo> {
    const route = this.ns.routes.lookup(dst);
    if (route === null) return err(tcpError(TcpError.UNREACHABLE, "ENETUNREACH", "Network is unreachable (no route)"));
    if (route.type === RouteType.UNREACHABLE) return err(tcpError(TcpError.UNREACHABLE, "EHOSTUNREACH", "No route to host (unreachable route)"));
    if (route.type === RouteType.PROHIBIT) return err(tcpError(TcpError.UNREACHABLE, "EACCES", "Permission denied (prohibit route)"));
    if (route.type !== RouteType.UNICAST && route.type !== RouteType.LOCAL) return err(tcpError(TcpError.UNREACHABLE, "EINVAL", `Invalid argument (${route.type} route)`));
    const src = options.src ?? this.ns.routeSource(route, dst);
    if (src === 0) return err(tcpError(TcpError.UNREACHABLE, "EADDRNOTAVAIL", "no source address for the route"));
    const port = options.srcPort ?? this.ephemeralPort(dst, dstPort);
    if (port === 0) return err(tcpError(TcpError.UNREACHABLE, "EADDRNOTAVAIL", "Cannot assign requested address (no free local port)"));
    const binding = this.ports.get(port) ?? this.bind(port);
    if (binding === null || binding.conns.has(remoteKey(dst, dstPort))) return err(tcpError(TcpError.UNREACHABLE, "EADDRINUSE", `local port ${port} in use`));
    const sock = new TcpSocket(this, src, port, dst, dstPort, this.ns.routeMtu(route), options, events);
    binding.conns.set(remoteKey(dst, dstPort), sock);
    binding.recent.clear();
    startActiveOpen(sock);
    if (options.timeoutNs !== undefined && sock.state === TcpState.SYN_SENT) armConnectTimeout(sock, options.timeoutNs);
    return ok(sock);
  }

  /** Every connection of the namespace (like `ss -t -a` without listeners). */
  connections(): TcpSocket[] {
    const out: TcpSocket[] = [];
    for (const b of this.ports.values()) for (const s of b.conns.values()) out.push(s);
    return out;
  }

  // ---- used by sockets and listeners ----------------------------------------------------------------

  /** Registers a listener's new half-open connection. */
  hash(sock: TcpSocket): void {
    const binding = this.ports.get(sock.localPort);
    if (binding === undefined) return;
    binding.conns.set(remoteKey(sock.remoteAddr, sock.remotePort), sock);
    binding.recent.clear();
  }

  /** Forgets a closed connection and frees its port when nothing else uses it. */
  unhash(sock: TcpSocket): void {
    const binding = this.ports.get(sock.localPort);
    if (binding === undefined) return;
    const key = remoteKey(sock.remoteAddr, sock.remotePort);
    if (binding.conns.get(key) === sock) binding.conns.delete(key);
    binding.recent.clear();
    sock.listener?.forget(sock);
    this.releaseIfUnused(sock.localPort);
  }

  /** A listener's connection completed its handshake. */
  accepted(sock: TcpSocket): void {
    sock.listener?.accepted(sock);
  }

  releaseIfUnused(port: number): void {
    const binding = this.ports.get(port);
    if (binding !== undefined && binding.listener === null && binding.conns.size === 0) {
      this.ports.delete(port);
      this.ns.unlistenTcp(port);
    }
  }

  removeListener(listener: TcpListener): void {
    const binding = this.ports.get(listener.port);
    if (binding?.listener === listener) binding.listener = null;
    this.releaseIfUnused(listener.port);
  }

  /** The packet being processed (its payload views are valid during the call), or null. */
  get currentSkb(): SkBuff | null {
    return this.curSkb;
  }

  /** Answers the segment being processed with a reset (tcp_v4_send_reset). */
  resetForSegment(seg: Segment): void {
    const skb = this.curSkb;
    const info = this.curInfo;
    if (skb === null || info === null || (seg.flags & TcpFlags.RST) !== 0) return;
    const rst = buildTcpReset(this.world, skb, info.ipOffset, skb.head, this.ns.sysctl.ipDefaultTtl);
    this.counters.resetsSent++;
    this.ns.counters.tcp.OutSegs++;
    this.ns.counters.tcp.OutRsts++;
    this.ns.outputIp(rst);
  }

  /** Runs the segment being processed through the demultiplexer again (a SYN that ended a TIME_WAIT). */
  redeliver(seg: Segment): void {
    const skb = this.curSkb;
    const info = this.curInfo;
    if (skb !== null && info !== null) this.dispatch(seg, info);
  }

  // ---- internals --------------------------------------------------------------------------------------

  private bind(port: number): PortBinding | null {
    if (!this.ns.listenTcp(port, this.handler, SocketMode.SOCKET).ok) return null;
    const binding: PortBinding = { listener: null, conns: new Map(), recent: new ConnectionSlots() };
    this.ports.set(port, binding);
    return binding;
  }

  private input(skb: SkBuff, info: SocketInfo): void {
    const seg = this.seg;
    seg.parse(skb.data, skb.head, skb.tail, info.src, info.dst, skb.data[info.ipOffset + 8]!);
    seg.gsoSize = skb.gsoSize;
    seg.gsoSegs = skb.gsoSize !== 0 && skb.gsoSegs > 1 ? skb.gsoSegs : 1;
    this.curSkb = skb;
    this.curInfo = info;
    this.curSock = null;
    this.payloadKept = false;
    this.dispatch(seg, info);
    this.curSkb = null;
    this.curInfo = null;
    // The socket is the skb's last holder: its buffer is recycled now, or once an open GRO batch has
    // handed its in-order payload to the application; never when the out-of-order queue keeps a view.
    const sock = this.curSock as TcpSocket | null;
    this.curSock = null;
    if (this.payloadKept) return;
    if (sock !== null && sock.pendingCount > 0 && !sock.closed) holdPendingSkb(sock, skb);
    else consumeSkb(skb);
  }

  private dispatch(seg: Segment, info: SocketInfo): void {
    const binding = this.ports.get(info.dstPort);
    const sock = binding === undefined ? undefined : connectionFor(binding, info.src, info.srcPort);
    if (sock !== undefined && sock.localAddr === info.dst) {
      this.curSock = sock;
      this.counters.rxSegments += seg.gsoSegs;
      groAdmit(sock, seg);
      segmentArrived(sock, seg);
      return;
    }
    const listener = binding?.listener;
    if (listener != null && (listener.addr === 0 || listener.addr === info.dst)) {
      this.counters.rxSegments += seg.gsoSegs;
      this.counters.rxBatches++;
      this.costObserver?.rxBatch(seg.gsoSegs, seg.payloadLen);
      listener.receive(seg);
      return;
    }
    this.counters.noSocket++;
    this.resetForSegment(seg);
  }

  /** __inet_hash_connect: a free even port first (per-destination offset, step 2), then odd ones. */
  private ephemeralPort(dst: number, dstPort: number): number {
    const [low, high] = this.sysctl.localPortRange;
    const remaining = high - low + 1;
    if (remaining <= 0) return 0;
    const bucket = mix(dst ^ Math.imul(dstPort, 0x9e3779b1) ^ this.portSecret) & 0xff;
    const base = (mix(dst + dstPort * 131 + this.portSecret) + (this.perturb.get(bucket) ?? 0)) >>> 0;
    const used = this.ns.sockets.tcp;
    for (const parity of [0, 1]) {
      const offset = ((base % remaining) & ~1) + parity;
      for (let i = 0; i < remaining; i += 2) {
        const port = low + ((offset + i) % remaining);
        if (used.has(port)) continue;
        this.perturb.set(bucket, (this.perturb.get(bucket) ?? 0) + i + 2);
        return port;
      }
    }
    return 0;
  }

  /** tcp_v4_err for the connection an ICMP error quotes. */
  private icmpError(e: IcmpErrorInfo): void {
    const sock = this.ports.get(e.srcPort)?.conns.get(remoteKey(e.dst, e.dstPort));
    if (sock === undefined || sock.localAddr !== e.src || sock.state === TcpState.TIME_WAIT || sock.state === TcpState.CLOSED) return;
    if (!seqBetween(e.seq, sock.sndUna, sock.sndNxt)) return;
    if (e.type === IcmpKind.DEST_UNREACH && e.code === 4) {
      pmtuShrink(sock, e.mtu);
      return;
    }
    if (e.type !== IcmpKind.DEST_UNREACH && e.type !== IcmpKind.TIME_EXCEEDED) return;
    const errno = e.type === IcmpKind.TIME_EXCEEDED ? "EHOSTUNREACH" : (UNREACH_ERRNO[e.code] ?? "EHOSTUNREACH");
    const kind = errno === "ECONNREFUSED" ? TcpError.REFUSED : TcpError.UNREACHABLE;
    const detail = `ICMP ${e.type === IcmpKind.TIME_EXCEEDED ? "time exceeded" : `destination unreachable code ${e.code}`} from ${formatIPv4(e.from)}`;
    const error = tcpError(kind, errno, detail);
    if (sock.state === TcpState.SYN_SENT) {
      this.counters.attemptFails++;
      sock.destroy(error);
    } else if (sock.state === TcpState.SYN_RECEIVED) {
      sock.destroy(null);
    } else {
      sock.softError = error;
    }
  }
}

/** tcp_v4_mtu_reduced + tcp_simple_retransmit: a smaller MSS and the too-big segments resent. */
function pmtuShrink(sock: TcpSocket, mtu: number): void {
  const next = Math.max(mtu, 68);
  if (next >= sock.pmtu || sock.state === TcpState.SYN_SENT) return;
  sock.pmtu = next;
  sock.syncMss();
  const q = sock.rtx;
  for (let i = 0; i < q.count; i++) {
    const s = q.slot(i);
    const f = q.flags[s]!;
    if ((f & Sacked.SACKED) !== 0 || ((q.end[s]! - q.seq[s]!) | 0) - ((f & Sacked.FIN) !== 0 ? 1 : 0) <= sock.mss) continue;
    if ((f & Sacked.RETRANS) !== 0) sock.retransOut--;
    if ((f & Sacked.LOST) === 0) sock.lostOut++;
    q.flags[s] = (f | Sacked.LOST) & ~Sacked.RETRANS;
  }
  if (sock.caState !== CaState.LOSS) {
    sock.highSeq = sock.sndNxt;
    sock.caState = CaState.LOSS;
  }
  pushPending(sock);
}

/** The binding's connection with that remote end, recently used ones found first. */
function connectionFor(binding: PortBinding, remoteAddr: number, remotePort: number): TcpSocket | undefined {
  const recent = binding.recent.find(remoteAddr, remotePort);
  if (recent !== null) return recent;
  const sock = binding.conns.get(remoteKey(remoteAddr, remotePort));
  if (sock !== undefined) binding.recent.remember(sock);
  return sock;
}

function mix(x: number): number {
  let h = x >>> 0;
  h = Math.imul(h ^ (h >>> 16), 0x85ebca6b);
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35);
  return (h ^ (h >>> 16)) >>> 0;
}

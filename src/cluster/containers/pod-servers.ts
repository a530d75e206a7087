// The servers a pod's containers run on its network namespace: nginx on TCP 80 (files from the
// container's document root /usr/share/nginx/html), CoreDNS on 53 (UDP, and TCP with length-prefixed
// messages), and on every other declared port a generic server (TCP: accept and hold the connection
// until the peer closes; UDP: echo each datagram; SCTP: answer association setup, INIT to COOKIE ACK).
import type { NetNamespace } from "../../net/stack/namespace.js";
import { TcpStack } from "../../net/tcp/stack.js";
import type { TcpListener } from "../../net/tcp/listener.js";
import type { TcpSocket } from "../../net/tcp/socket.js";
import { DnsServer, type ClusterDnsData } from "../workloads/dns/server.js";
import { HttpServer } from "../workloads/http/server.js";
import { SctpEndpoint } from "../workloads/sctp-endpoint.js";
import { UdpEcho } from "../workloads/udp-echo.js";
import { TcpWriter } from "../workloads/tcp-writer.js";
import { normalizePath, type ContainerFiles } from "./files.js";
import { ImageKind } from "./image.js";
import { PortProtocol, type ServedPort } from "./ports.js";

export const NGINX_ROOT = "/usr/share/nginx/html";

export interface PodServerContext {
  readonly ns: NetNamespace;
  /** Files of each container by name. */
  readonly files: (container: string) => ContainerFiles | undefined;
  /** What the cluster DNS knows (CoreDNS containers). */
  readonly dns: ClusterDnsData;
}

export class PodServers {
  private readonly http: HttpServer[] = [];
  private readonly dns: DnsServer[] = [];
  private readonly echoes: UdpEcho[] = [];
  private readonly sctp: SctpEndpoint[] = [];
  private readonly listeners: TcpListener[] = [];
  private readonly held = new Set<TcpSocket>();
  /** The ports actually listening ("TCP/80"). */
  readonly listening = new Set<string>();

  constructor(
    private readonly ctx: PodServerContext,
    readonly ports: readonly ServedPort[],
  ) {}

  /** Starts every server; returns the problems (a port that could not be opened), each naming it. */
  start(): string[] {
    const problems: string[] = [];
    for (const p of this.ports) {
      const why = this.open(p);
      if (why === null) this.listening.add(`${p.protocol}/${p.port}`);
      else problems.push(`container ${p.container}: ${p.protocol} port ${p.port}: ${why}`);
    }
    return problems;
  }

  private open(p: ServedPort): string | null {
    const ns = this.ctx.ns;
    if (p.protocol === PortProtocol.TCP && p.port === 80 && p.image === ImageKind.NGINX) {
      const files = this.ctx.files(p.container);
      // Resolved inside the root, as nginx does: "/../x" cannot leave it.
      const server = new HttpServer(ns, { root: (path) => files?.read(`${NGINX_ROOT}${normalizePath(path)}`) });
      const r = server.start();
      if (!r.ok) return r.error.detail;
      this.http.push(server);
      return null;
    }
    if (p.port === 53 && p.image === ImageKind.COREDNS) {
      const server = this.dnsServer();
      if (p.protocol === PortProtocol.UDP) {
        const r = server.start();
        return r.ok ? null : r.error;
      }
      if (p.protocol === PortProtocol.TCP) {
        const r = TcpStack.of(ns).listen(53, (sock) => this.dnsOverTcp(sock, server));
        if (!r.ok) return r.error.detail;
        this.listeners.push(r.value);
        return null;
      }
    }
    if (p.protocol === PortProtocol.TCP) {
      const r = TcpStack.of(ns).listen(p.port, (sock) => this.hold(sock));
      if (!r.ok) return r.error.detail;
      this.listeners.push(r.value);
      return null;
    }
    if (p.protocol === PortProtocol.UDP) {
      const echo = new UdpEcho(ns, p.port);
      const r = echo.start();
      if (!r.ok) return r.error;
      this.echoes.push(echo);
      return null;
    }
    const endpoint = new SctpEndpoint(ns, p.port);
    const r = endpoint.start();
    if (!r.ok) return r.error;
    this.sctp.push(endpoint);
    return null;
  }

  /** The pod's one CoreDNS (UDP and TCP 53 share it and its counters). */
  private dnsServer(): DnsServer {
    const have = this.dns[0];
    if (have !== undefined) return have;
    const server = new DnsServer(this.ctx.ns, this.ctx.dns);
    this.dns.push(server);
    return server;
  }

  /** DNS over TCP (RFC 1035 4.2.2, RFC 7766): each message behind a 2-byte length, answered in order. */
  private dnsOverTcp(sock: TcpSocket, server: DnsServer): void {
    this.held.add(sock);
    const out = new TcpWriter(sock);
    let buffered = new Uint8Array(0);
    sock.events = {
      onData: (_s, data) => {
        const all = new Uint8Array(buffered.length + data.length);
        all.set(buffered, 0);
        all.set(data, buffered.length);
        let at = 0;
        while (all.length - at >= 2) {
          const length = (all[at]! << 8) | all[at + 1]!;
          if (all.length - at - 2 < length) break;
          const reply = server.respond(all.subarray(at + 2, at + 2 + length));
          at += 2 + length;
          if (reply === null) continue;
          const framed = new Uint8Array(reply.length + 2);
          framed[0] = reply.length >> 8;
          framed[1] = reply.length & 0xff;
          framed.set(reply, 2);
          out.write(framed);
        }
        buffered = all.slice(at);
      },
      onWritable: () => out.flush(),
      onEnd: () => out.close(),
      onClose: (s) => {
        this.held.delete(s);
      },
    };
  }

  /** A generic TCP server: keeps the connection open, closes when the peer does. */
  private hold(sock: TcpSocket): void {
    this.held.add(sock);
    sock.events = {
      onEnd: (s) => s.close(),
      onClose: (s) => {
        this.held.delete(s);
      },
    };
  }

  /** HTTP requests answered + DNS queries answered + datagrams echoed. */
  /** What the pod's nginx wrote to its access log (stdout in the image), oldest first. */
  accessLog(): string[] {
    return this.http.flatMap((h) => h.accessLog);
  }

  requestsServed(): number {
    let n = 0;
    for (const h of this.http) n += h.stats.requests;
    for (const d of this.dns) for (const c of d.stats.byRcode.values()) n += c;
    for (const e of this.echoes) n += e.echoed;
    return n;
  }

  stop(): void {
    for (const h of this.http) h.stop();
    for (const d of this.dns) d.stop();
    for (const e of this.echoes) e.stop();
    for (const e of this.sctp) e.stop();
    for (const l of this.listeners) l.close();
    for (const s of this.held) s.abort();
    this.held.clear();
    this.listening.clear();
  }
}

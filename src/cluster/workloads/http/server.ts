// HttpServer: an nginx-like static server on a namespace's TCP. GET/HEAD of "/" (or "/index.html")
// answers 200 with nginx's headers and the configured body (nginx's welcome page by default), or with
// the file at the path from a document root (a container's /usr/share/nginx/html); other paths 404
// and other methods 405, with nginx's error pages. HTTP/1.1 keep-alive (closed after keepalive_timeout,
// 75 s) unless the client asks for "Connection: close", when nginx closes first. Every answered request
// is written to the access log in nginx's default `combined` format (the image sends it to stdout, so
// it is what `kubectl logs` shows), the client address being the one the server's socket saw.

import type { NetNamespace } from "../../../net/stack/index.js";
import { TcpStack, type TcpErrorInfo, type TcpListener, type TcpSocket } from "../../../net/tcp/index.js";
import type { Result } from "../../../util/result.js";
import { formatIPv4 } from "../../../util/ip.js";
import { DEFAULT_EPOCH_MS, httpDate, nginxLocalTime } from "../sim-clock.js";
import { NGINX_VERSION, NGINX_WELCOME_PAGE, nginxErrorPage } from "./nginx-pages.js";
import { header, HeadReader, type HttpHead } from "./parse.js";
import { TcpWriter } from "../tcp-writer.js";

export interface HttpServerOptions {
  readonly port?: number;
  /** Body of "/" (default: nginx's welcome page). */
  readonly body?: string;
  /**
   * Document root (nginx `root /usr/share/nginx/html`): the file at a request path ("/index.html"
   * for "/"), undefined when there is none (404). When given, `body` is not used.
   */
  readonly root?: (path: string) => Uint8Array | undefined;
  readonly contentType?: string;
  readonly serverVersion?: string;
  /** keepalive_timeout in ns (nginx default 75 s). */
  readonly keepAliveNs?: number;
  /** Epoch of simulated time 0 for Date / Last-Modified. */
  readonly epochMs?: number;
}

export interface HttpServerStats {
  connections: number;
  requests: number;
  byStatus: Map<number, number>;
}

const encoder = new TextEncoder();

/** Access-log lines kept (the oldest are dropped first, as a rotated log would lose them). */
const ACCESS_LOG_LINES = 1000;

/** One request as the access log records it. */
interface LoggedRequest {
  readonly sock: TcpSocket;
  readonly head: HttpHead;
}

export class HttpServer {
  readonly stats: HttpServerStats = { connections: 0, requests: 0, byStatus: new Map() };
  /** nginx's access log, `combined` format, the most recent ACCESS_LOG_LINES lines. */
  readonly accessLog: string[] = [];
  private current: LoggedRequest | null = null;
  private listener: TcpListener | null = null;
  private readonly body: Uint8Array;
  private readonly version: string;
  private readonly epochMs: number;
  private readonly keepAliveNs: number;
  readonly port: number;

  constructor(
    readonly ns: NetNamespace,
    private readonly options: HttpServerOptions = {},
  ) {
    this.port = options.port ?? 80;
    this.body = encoder.encode(options.body ?? NGINX_WELCOME_PAGE);
    this.version = options.serverVersion ?? NGINX_VERSION;
    this.epochMs = options.epochMs ?? DEFAULT_EPOCH_MS;
    this.keepAliveNs = options.keepAliveNs ?? 75e9;
  }

  /** Starts listening (nginx: listen 80, backlog 511, tcp_nodelay on). */
  start(): Result<TcpListener, TcpErrorInfo> {
    const r = TcpStack.of(this.ns).listen(this.port, (sock) => this.accept(sock), { backlog: 511, noDelay: true });
    if (r.ok) this.listener = r.value;
    return r;
  }

  stop(): void {
    this.listener?.close();
    this.listener = null;
  }

  private accept(sock: TcpSocket): void {
    this.stats.connections++;
    const sim = this.ns.world.sim;
    const out = new TcpWriter(sock);
    let reader = new HeadReader();
    let idle = 0;
    const armIdle = (): void => {
      if (idle !== 0) sim.cancel(idle);
      idle = sim.schedule(this.keepAliveNs, () => {
        idle = 0;
        out.close();
      });
    };
    armIdle();
    sock.events = {
      onData: (s, data) => {
        let bytes: Uint8Array = data;
        while (bytes.length > 0 && !s.closed) {
          const r = reader.push(bytes);
          if (r === null) return;
          reader = new HeadReader();
          if ("error" in r) {
            this.respond(out, 400, "Bad Request", true, false);
            out.close();
            return;
          }
          this.current = { sock: s, head: r.head };
          const close = this.handle(out, r.head);
          this.current = null;
          if (close) {
            if (idle !== 0) sim.cancel(idle);
            out.close();
            return;
          }
          armIdle();
          bytes = r.rest;
        }
      },
      onWritable: () => out.flush(),
      onEnd: () => {
        if (idle !== 0) sim.cancel(idle);
        out.close();
      },
      onClose: () => {
        if (idle !== 0) sim.cancel(idle);
      },
    };
  }

  /** Answers one request; returns true when the connection is to be closed afterwards. */
  private handle(sock: TcpWriter, head: HttpHead): boolean {
    this.stats.requests++;
    const [method, target, version] = head.startLine;
    const connection = header(head, "connection")?.toLowerCase();
    const close = connection === "close" || (version === "HTTP/1.0" && connection !== "keep-alive");
    if (method !== "GET" && method !== "HEAD") return this.respond(sock, 405, "Not Allowed", close, false) || close;
    const path = target.split("?")[0]!;
    const body = this.fileAt(path);
    if (body === undefined) return this.respond(sock, 404, "Not Found", close, method === "HEAD") || close;
    const now = this.ns.world.sim.now;
    const type = this.options.contentType ?? "text/html";
    const mtimeSec = Math.floor(this.epochMs / 1000);
    const lines = [
      "HTTP/1.1 200 OK",
      `Server: nginx/${this.version}`,
      `Date: ${httpDate(now, this.epochMs)}`,
      `Content-Type: ${type}`,
      `Content-Length: ${body.length}`,
      `Last-Modified: ${new Date(this.epochMs).toUTCString()}`,
      `Connection: ${close ? "close" : "keep-alive"}`,
      `ETag: "${mtimeSec.toString(16)}-${body.length.toString(16)}"`,
      "Accept-Ranges: bytes",
    ];
    this.count(200, method === "HEAD" ? 0 : body.length);
    this.write(sock, lines, method === "HEAD" ? null : body);
    return close;
  }

  /** The body for a request path: the document root's file (index.html for a directory), else the fixed body at "/". */
  private fileAt(path: string): Uint8Array | undefined {
    const root = this.options.root;
    if (root === undefined) return path === "/" || path === "/index.html" ? this.body : undefined;
    return root(path.endsWith("/") ? `${path}index.html` : path);
  }

  /** An nginx error response; returns false (the caller decides about closing). */
  private respond(sock: TcpWriter, status: number, reason: string, close: boolean, headOnly: boolean): boolean {
    const page = encoder.encode(nginxErrorPage(`${status} ${reason}`, this.version));
    const lines = [
      `HTTP/1.1 ${status} ${reason}`,
      `Server: nginx/${this.version}`,
      `Date: ${httpDate(this.ns.world.sim.now, this.epochMs)}`,
      "Content-Type: text/html",
      `Content-Length: ${page.length}`,
      `Connection: ${close ? "close" : "keep-alive"}`,
    ];
    this.count(status, headOnly ? 0 : page.length);
    this.write(sock, lines, headOnly ? null : page);
    return false;
  }

  private count(status: number, bodyBytes: number): void {
    this.stats.byStatus.set(status, (this.stats.byStatus.get(status) ?? 0) + 1);
    const req = this.current;
    if (req === null) return;
    const [method, target, version] = req.head.startLine;
    const quoted = (v: string | undefined): string => (v === undefined || v === "" ? "-" : v.replace(/["\\]/g, (c) => `\\x${c.charCodeAt(0).toString(16).toUpperCase()}`));
    const when = nginxLocalTime(this.ns.world.sim.now, this.epochMs);
    const line = `${formatIPv4(req.sock.remoteAddr)} - - [${when}] "${method} ${target} ${version}" ${status} ${bodyBytes} "${quoted(header(req.head, "referer"))}" "${quoted(header(req.head, "user-agent"))}"`;
    if (this.accessLog.length >= ACCESS_LOG_LINES) this.accessLog.shift();
    this.accessLog.push(line);
  }

  private write(sock: TcpWriter, lines: string[], body: Uint8Array | null): void {
    const head = encoder.encode(`${lines.join("\r\n")}\r\n\r\n`);
    const out = new Uint8Array(head.length + (body?.length ?? 0));
    out.set(head, 0);
    if (body !== null) out.set(body, head.length);
    sock.write(out);
  }
}

// HttpClient: one GET the way curl or busybox wget does it: resolve a name with the pod's resolver
// (when given a name), connect (TCP's SYN retries, or the caller's connect timeout; curl's own
// default is 300 s, busybox wget has none), send the request (curl: keep-alive and User-Agent
// curl/x; wget: "Connection: close"), read the response head and body, close. The result is the
// body, or why there is none (refused / timeout / reset / unreachable / name resolution failure),
// with the error line the real tool prints.

import type { NetNamespace } from "../../../net/stack/index.js";
import { TcpError, TcpStack, type TcpErrorInfo, type TcpSocket } from "../../../net/tcp/index.js";
import { formatIPv4, parseIPv4 } from "../../../util/ip.js";
import type { Resolver, ResolveResult } from "../dns/resolver.js";
import { BodyReader, HeadReader, header, type HttpHead } from "./parse.js";

export const HttpTool = { CURL: "curl", WGET: "wget" } as const;
export type HttpTool = (typeof HttpTool)[keyof typeof HttpTool];

export interface HttpGetOptions {
  /** Host name or dotted IPv4 address. */
  readonly host: string;
  readonly port?: number;
  readonly path?: string;
  readonly tool?: HttpTool;
  /** Needed when host is a name. */
  readonly resolver?: Resolver;
  /** curl --connect-timeout / wget -T, in ns. */
  readonly connectTimeoutNs?: number;
  /** curl -m: the whole transfer, in ns. */
  readonly maxTimeNs?: number;
  readonly userAgent?: string;
  /** Called with the address right before the connection attempt (busybox wget prints "Connecting to"). */
  readonly onConnecting?: (address: number) => void;
}

export type HttpResult =
  | { readonly kind: "response"; readonly status: number; readonly headers: HttpHead["headers"]; readonly body: Uint8Array; readonly address: number; readonly timings: HttpTimings }
  | { readonly kind: "refused" | "timeout" | "reset" | "unreachable"; readonly error: TcpErrorInfo; readonly address: number; readonly message: string }
  | { readonly kind: "dns"; readonly resolution: ResolveResult; readonly message: string };

export interface HttpTimings {
  readonly resolvedNs: number;
  readonly connectedNs: number;
  readonly firstByteNs: number;
  readonly doneNs: number;
}

const CURL_VERSION = "8.11.1";
const encoder = new TextEncoder();

/** Runs one GET; `done` is called once with the result. */
export function httpGet(ns: NetNamespace, options: HttpGetOptions, done: (result: HttpResult) => void): void {
  const tool = options.tool ?? HttpTool.CURL;
  const sim = ns.world.sim;
  const start = sim.now;
  const literal = parseIPv4(options.host);
  if (literal !== null) {
    fetch(literal, start);
    return;
  }
  const resolver = options.resolver;
  if (resolver === undefined) {
    // No nameserver configured: the tools print the same line as for a name that does not resolve.
    done({ kind: "dns", resolution: { kind: "nxdomain", name: options.host, queries: 0 }, message: dnsMessage(tool, options.host) });
    return;
  }
  resolver.resolve(options.host, (r) => {
    if (r.kind === "address") fetch(r.addresses[0]!, sim.now);
    else done({ kind: "dns", resolution: r, message: dnsMessage(tool, options.host) });
  });

  function fetch(address: number, resolvedAt: number): void {
    const port = options.port ?? 80;
    options.onConnecting?.(address);
    let finished = false;
    let connectedAt = -1;
    let firstByte = -1;
    let maxTimer = 0;
    const finish = (result: HttpResult): void => {
      if (finished) return;
      finished = true;
      if (maxTimer !== 0) sim.cancel(maxTimer);
      done(result);
    };
    const failed = (kind: "refused" | "timeout" | "reset" | "unreachable", error: TcpErrorInfo): void =>
      finish({ kind, error, address, message: tcpMessage(tool, options, address, port, error, sim.now - start) });
    let headReader: HeadReader | null = new HeadReader();
    let head: HttpHead | null = null;
    let body: BodyReader | null = null;
    const complete = (sock: TcpSocket): void => {
      finish({
        kind: "response",
        status: Number(head!.startLine[1]),
        headers: head!.headers,
        body: body!.body(),
        address,
        timings: { resolvedNs: resolvedAt - start, connectedNs: connectedAt - start, firstByteNs: firstByte - start, doneNs: sim.now - start },
      });
      sock.close();
    };
    const r = TcpStack.of(ns).connect(address, port, {
      onConnect: (sock) => {
        connectedAt = sim.now;
        sock.send(encoder.encode(request(tool, options, port)));
      },
      onData: (sock, data) => {
        if (firstByte < 0) firstByte = sim.now;
        let bytes = data;
        if (headReader !== null) {
          const h = headReader.push(bytes);
          if (h === null) return;
          if ("error" in h) {
            sock.abort();
            return;
          }
          headReader = null;
          head = h.head;
          body = new BodyReader(head, false);
          bytes = h.rest;
        }
        body!.push(bytes);
        if (body!.done) complete(sock);
      },
      onEnd: (sock) => {
        if (body?.end() === true) complete(sock);
        else sock.close();
      },
      onClose: (_sock, error) => {
        if (error === null) {
          if (!finished) failed("reset", { kind: TcpError.RESET, errno: "ECONNRESET", detail: "the server closed before a complete response" });
          return;
        }
        failed(error.kind === TcpError.REFUSED ? "refused" : error.kind === TcpError.RESET ? "reset" : error.kind === TcpError.TIMEOUT ? "timeout" : "unreachable", error);
      },
    }, { noDelay: true, ...(options.connectTimeoutNs !== undefined ? { timeoutNs: options.connectTimeoutNs } : {}) });
    if (!r.ok) {
      sim.schedule(0, () => failed("unreachable", r.error));
      return;
    }
    if (options.maxTimeNs !== undefined) {
      maxTimer = sim.schedule(options.maxTimeNs, () => {
        maxTimer = 0;
        r.value.abort();
        failed("timeout", { kind: TcpError.TIMEOUT, errno: "ETIMEDOUT", detail: "operation timed out (curl -m)" });
      });
    }
  }
}

function request(tool: HttpTool, options: HttpGetOptions, port: number): string {
  const host = port === 80 ? options.host : `${options.host}:${port}`;
  const path = options.path ?? "/";
  if (tool === HttpTool.WGET) {
    return `GET ${path} HTTP/1.1\r\nHost: ${host}\r\nUser-Agent: ${options.userAgent ?? "Wget"}\r\nConnection: close\r\n\r\n`;
  }
  return `GET ${path} HTTP/1.1\r\nHost: ${host}\r\nUser-Agent: ${options.userAgent ?? `curl/${CURL_VERSION}`}\r\nAccept: */*\r\n\r\n`;
}

const STRERROR: Record<string, string> = {
  ECONNREFUSED: "Connection refused",
  ETIMEDOUT: "Connection timed out",
  ECONNRESET: "Connection reset by peer",
  EHOSTUNREACH: "No route to host",
  ENETUNREACH: "Network is unreachable",
  EACCES: "Permission denied",
};

function tcpMessage(tool: HttpTool, options: HttpGetOptions, address: number, port: number, error: TcpErrorInfo, elapsedNs: number): string {
  const reason = STRERROR[error.errno] ?? error.errno;
  const ip = formatIPv4(address);
  if (tool === HttpTool.WGET) {
    if (error.kind === TcpError.RESET) return `wget: error getting response: ${reason}`;
    return `wget: can't connect to remote host (${ip}): ${reason}`;
  }
  const ms = Math.round(elapsedNs / 1e6);
  if (error.kind === TcpError.RESET) return `curl: (56) Recv failure: ${reason}`;
  if (error.kind === TcpError.TIMEOUT && error.errno === "ETIMEDOUT" && options.connectTimeoutNs !== undefined) {
    return `curl: (28) Failed to connect to ${options.host} port ${port} after ${ms} ms: Timeout was reached`;
  }
  // curl 7.88+ reports every failed connect() the same way (verified against curl 7.88.1).
  return `curl: (7) Failed to connect to ${options.host} port ${port} after ${ms} ms: Couldn't connect to server`;
}

function dnsMessage(tool: HttpTool, host: string): string {
  return tool === HttpTool.WGET ? `wget: bad address '${host}'` : `curl: (6) Could not resolve host: ${host}`;
}

export { header };

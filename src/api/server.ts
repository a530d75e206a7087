// The HTTP server: binds (127.0.0.1 unless told otherwise), bounds header size and slow clients,
// answers protocol-level failures (oversized headers, timeouts, garbage) with Status bodies before
// closing, and hands every request to handleRequest. Errors never take the server down.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { Socket } from "node:net";
import type { ApiBackend } from "./backend.js";
import { handleRequest, type ApiResponse } from "./handler.js";
import { ApiError, StatusReason } from "./status.js";

export interface ApiServerOptions {
  readonly port?: number;
  /** Default 127.0.0.1; anything else exposes the API beyond this machine. */
  readonly address?: string;
  /** Largest request head accepted (default 16 KiB, Node's default); larger gets 431. */
  readonly maxHeaderBytes?: number;
  /** A client must send its whole head within this (default 10 s), else 408. */
  readonly headersTimeoutMs?: number;
  /** ... and its whole request within this (default 30 s). */
  readonly requestTimeoutMs?: number;
  /** How often timeouts are checked (default 1 s). */
  readonly checkIntervalMs?: number;
  /** Runs before each request (e.g. bring the emulation up to wall-clock time). */
  readonly beforeRequest?: () => void;
}

export const DEFAULT_ADDRESS = "127.0.0.1";

const REASON_TEXT: Readonly<Record<number, string>> = { 400: "Bad Request", 408: "Request Timeout", 431: "Request Header Fields Too Large" };

/** The Status a connection-level error is answered with. */
function clientErrorStatus(code: string | undefined): ApiError {
  if (code === "HPE_HEADER_OVERFLOW") return new ApiError(431, StatusReason.REQUEST_HEADER_FIELDS_TOO_LARGE, "request header fields too large");
  if (code === "ERR_HTTP_REQUEST_TIMEOUT") return new ApiError(408, StatusReason.TIMEOUT, "request timed out: the client did not send a complete request in time");
  return new ApiError(400, StatusReason.BAD_REQUEST, `malformed HTTP request (${code ?? "parse error"})`);
}

function writeResponse(req: IncomingMessage, res: ServerResponse, r: ApiResponse): void {
  res.writeHead(r.status, { "Content-Type": r.contentType, "Content-Length": Buffer.byteLength(r.body), "Cache-Control": "no-cache, private" });
  res.end(req.method === "HEAD" ? undefined : r.body);
}

export class ApiServer {
  private constructor(
    private readonly server: Server,
    readonly address: string,
    readonly port: number,
  ) {}

  /** Starts listening; resolves once bound (port 0 picks a free port, see `.port`). */
  static listen(backend: ApiBackend, options: ApiServerOptions = {}): Promise<ApiServer> {
    const address = options.address ?? DEFAULT_ADDRESS;
    let boundPort = 0;
    const server = createServer(
      {
        maxHeaderSize: options.maxHeaderBytes ?? 16 * 1024,
        headersTimeout: options.headersTimeoutMs ?? 10_000,
        requestTimeout: options.requestTimeoutMs ?? 30_000,
        connectionsCheckingInterval: options.checkIntervalMs ?? 1_000,
      },
      (req, res) => {
        req.resume();
        try {
          options.beforeRequest?.();
        } catch {
          // The emulation's failure must not fail the request; it answers with the state it has.
        }
        const raw = req.url ?? "/";
        const q = raw.indexOf("?");
        const request = {
          method: req.method ?? "GET",
          path: q < 0 ? raw : raw.slice(0, q),
          query: new URLSearchParams(q < 0 ? "" : raw.slice(q + 1)),
          accept: req.headers.accept,
          host: req.headers.host ?? `${address}:${boundPort}`,
        };
        handleRequest(backend, request)
          .then((r) => writeResponse(req, res, r))
          .catch(() => res.destroy());
      },
    );
    server.keepAliveTimeout = 5_000;
    server.on("clientError", (e: NodeJS.ErrnoException, socket: Socket) => {
      if (e.code === "ECONNRESET" || !socket.writable) {
        socket.destroy();
        return;
      }
      const status = clientErrorStatus(e.code);
      const body = JSON.stringify(status.body());
      socket.end(
        `HTTP/1.1 ${status.code} ${REASON_TEXT[status.code] ?? "Error"}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
      );
    });
    return new Promise((resolve, reject) => {
      server.once("error", reject);
      server.listen(options.port ?? 0, address, () => {
        server.off("error", reject);
        const bound = server.address();
        boundPort = bound !== null && typeof bound === "object" ? bound.port : 0;
        resolve(new ApiServer(server, address, boundPort));
      });
    });
  }

  /** Open client connections (for load tests). */
  connections(): Promise<number> {
    return new Promise((resolve) => this.server.getConnections((_e, n) => resolve(n)));
  }

  /** Stops accepting and closes every connection. */
  close(): Promise<void> {
    return new Promise((resolve) => {
      this.server.close(() => resolve());
      this.server.closeAllConnections();
    });
  }
}

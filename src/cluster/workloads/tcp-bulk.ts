// A bulk TCP transfer in the spirit of iperf3 (the full iperf-like tool comes with the performance
// issue): a sink that reads and discards, and a source that writes 128 KB blocks (iperf3's default
// TCP block) over one or more parallel streams (-P) for a byte count or a duration, then reports
// per-stream bytes, retransmissions and goodput.

import type { NetNamespace } from "../../net/stack/index.js";
import { TcpStack, type CongestionName, type TcpErrorInfo, type TcpListener, type TcpSocket } from "../../net/tcp/index.js";
import type { Result } from "../../util/result.js";

export interface BulkStreamResult {
  readonly bytesAcked: number;
  readonly retransmits: number;
  readonly startNs: number;
  readonly endNs: number;
  readonly error: TcpErrorInfo | null;
}

export interface BulkResult {
  readonly streams: readonly BulkStreamResult[];
  readonly bytes: number;
  /** Goodput of all streams over the run, bits per second. */
  readonly bitsPerSecond: number;
  readonly retransmits: number;
}

export interface BulkOptions {
  readonly port?: number;
  readonly streams?: number;
  /** Total bytes per stream; or run for durationNs. */
  readonly bytes?: number;
  readonly durationNs?: number;
  readonly blockSize?: number;
  readonly congestion?: CongestionName;
}

/** The receiving side: accepts, reads and counts. */
export class BulkSink {
  bytes = 0;
  private listener: TcpListener | null = null;

  constructor(
    readonly ns: NetNamespace,
    readonly port = 5201,
  ) {}

  start(): Result<TcpListener, TcpErrorInfo> {
    const r = TcpStack.of(this.ns).listen(this.port, (sock) => {
      sock.events = {
        onData: (_s, data) => {
          this.bytes += data.length;
        },
        onEnd: (s) => s.close(),
      };
    });
    if (r.ok) this.listener = r.value;
    return r;
  }

  stop(): void {
    this.listener?.close();
  }
}

/** Runs the sending side; `done` gets the result when every stream has finished. */
export function runBulk(ns: NetNamespace, dst: number, options: BulkOptions, done: (r: BulkResult) => void): void {
  const sim = ns.world.sim;
  const streams = options.streams ?? 1;
  const block = new Uint8Array(options.blockSize ?? 131072);
  for (let i = 0; i < block.length; i++) block[i] = (i * 31 + 7) & 0xff;
  const results: BulkStreamResult[] = [];
  const start = sim.now;
  let open = streams;
  const finishStream = (sock: TcpSocket | null, startNs: number, error: TcpErrorInfo | null): void => {
    results.push({ bytesAcked: sock?.stats.bytesAcked ?? 0, retransmits: sock?.stats.retransmits ?? 0, startNs, endNs: sim.now, error });
    if (--open > 0) return;
    const bytes = results.reduce((a, r) => a + r.bytesAcked, 0);
    const span = Math.max(1, Math.max(...results.map((r) => r.endNs)) - start);
    done({ streams: results, bytes, bitsPerSecond: (bytes * 8 * 1e9) / span, retransmits: results.reduce((a, r) => a + r.retransmits, 0) });
  };
  for (let i = 0; i < streams; i++) {
    let sent = 0;
    let startNs = 0;
    let stopped = false;
    const limit = options.bytes ?? Number.POSITIVE_INFINITY;
    const pump = (s: TcpSocket): void => {
      while (!stopped && sent < limit) {
        const n = s.send(block, 0, Math.min(block.length, limit - sent));
        sent += n;
        if (n === 0) return;
      }
      if (sent >= limit) s.end();
    };
    const r = TcpStack.of(ns).connect(dst, options.port ?? 5201, {
      onConnect: (s) => {
        startNs = sim.now;
        if (options.durationNs !== undefined) {
          sim.schedule(options.durationNs, () => {
            stopped = true;
            s.end();
          });
        }
        pump(s);
      },
      onWritable: (s) => pump(s),
      onClose: (s, e) => finishStream(s, startNs, e),
    }, options.congestion !== undefined ? { congestion: options.congestion } : {});
    if (!r.ok) sim.schedule(0, () => finishStream(null, sim.now, r.error));
  }
}

// A netperf TCP_RR-like test: one connection, the client sends a request (1 byte by default), waits
// for the whole response (1 byte) and sends the next; transactions per second over the measured
// window and the latency of each transaction (p50/p90/p99, as netperf's -o P50_LATENCY,... report).

import type { NetNamespace } from "../../../net/stack/index.js";
import { TcpStack, type TcpSocket } from "../../../net/tcp/index.js";
import { err, ok, type Result } from "../../../util/result.js";
import { defaultOmitNs, measureWindow, type MeasureWindow } from "../iperf/timing.js";
import { percentile } from "./percentile.js";

export const NETPERF_DATA_PORT = 12866;

export interface TcpRrOptions {
  readonly port?: number;
  /** The port the client connects to when it differs from the server's (a NodePort in front of it). */
  readonly dstPort?: number;
  readonly durationNs: number;
  readonly omitNs?: number;
  readonly requestBytes?: number;
  readonly responseBytes?: number;
  /**
   * CPU time each side spends per transaction (receive path, wakeup, the next send), added to the
   * transaction's critical path: the server answers that long after the request arrived, the client
   * sees the response that long after it arrived. Default none (network time only).
   */
  readonly serverCpuNs?: () => number;
  readonly clientCpuNs?: () => number;
}

export interface TcpRrResult {
  readonly transactions: number;
  readonly transactionsPerSecond: number;
  readonly p50Ns: number;
  readonly p90Ns: number;
  readonly p99Ns: number;
  readonly meanNs: number;
  readonly window: MeasureWindow;
}

export class TcpRrTest {
  private result_: Result<TcpRrResult, string> | null = null;
  private window: MeasureWindow | null = null;
  private readonly latencies: number[] = [];
  private stopped = false;
  /** Transactions completed since the start (warm-up included). */
  completed = 0;

  constructor(
    readonly client: NetNamespace,
    readonly server: NetNamespace,
    readonly dst: number,
    readonly options: TcpRrOptions,
  ) {}

  get result(): Result<TcpRrResult, string> | null {
    return this.result_;
  }

  /** The measurement window, known once connected. */
  get measureWindow(): MeasureWindow | null {
    return this.window;
  }

  start(): Result<void, string> {
    const port = this.options.port ?? NETPERF_DATA_PORT;
    const reqBytes = this.options.requestBytes ?? 1;
    const respBytes = this.options.responseBytes ?? 1;
    const response = new Uint8Array(respBytes);
    const request = new Uint8Array(reqBytes);
    const sim = this.client.world.sim;
    const listened = TcpStack.of(this.server).listen(port, (sock) => {
      let got = 0;
      sock.events = {
        onData: (s, data) => {
          got += data.length;
          while (got >= reqBytes) {
            got -= reqBytes;
            const cpu = Math.max(0, Math.round(this.options.serverCpuNs?.() ?? 0));
            if (cpu > 0) sim.schedule(cpu, () => s.send(response));
            else s.send(response);
          }
        },
        onEnd: (s) => s.close(),
      };
    });
    if (!listened.ok) return err(`netserver: ${listened.error.detail}`);
    let sentAt = 0;
    let got = 0;
    const ask = (s: TcpSocket): void => {
      if (this.stopped) {
        s.end();
        return;
      }
      sentAt = sim.now;
      got = 0;
      s.send(request);
    };
    const r = TcpStack.of(this.client).connect(this.dst, this.options.dstPort ?? port, {
      onConnect: (s) => {
        const w = measureWindow(sim.now, this.options.omitNs ?? defaultOmitNs(this.options.durationNs), this.options.durationNs);
        this.window = w;
        sim.scheduleAt(w.endNs, () => this.finish(w));
        ask(s);
      },
      onData: (s, data) => {
        got += data.length;
        if (got < respBytes) return;
        got = 0;
        const cpu = Math.max(0, Math.round(this.options.clientCpuNs?.() ?? 0));
        if (cpu > 0) sim.schedule(cpu, () => this.complete(s, sentAt, ask));
        else this.complete(s, sentAt, ask);
      },
      onClose: (_s, e) => {
        if (e !== null && this.result_ === null) this.result_ = err(`netperf: ${e.detail}`);
      },
    });
    if (!r.ok) return err(`netperf: ${r.error.detail}`);
    return ok(undefined);
  }

  private complete(s: TcpSocket, sentAt: number, ask: (s: TcpSocket) => void): void {
    const now = this.client.world.sim.now;
    const w = this.window;
    this.completed++;
    if (w !== null && sentAt >= w.startNs && now <= w.endNs) this.latencies.push(now - sentAt);
    ask(s);
  }

  private finish(w: MeasureWindow): void {
    this.stopped = true;
    if (this.result_ !== null) return;
    const sorted = Float64Array.from(this.latencies).sort();
    const n = sorted.length;
    const seconds = (w.endNs - w.startNs) / 1e9;
    const mean = n === 0 ? 0 : this.latencies.reduce((a, b) => a + b, 0) / n;
    this.result_ = ok({
      transactions: n,
      transactionsPerSecond: n / seconds,
      p50Ns: percentile(sorted, 50),
      p90Ns: percentile(sorted, 90),
      p99Ns: percentile(sorted, 99),
      meanNs: mean,
      window: w,
    });
  }
}

// An iperf3-like TCP test: -P parallel streams from a client namespace to a server, writes of 128 KB
// blocks (iperf3's default -l), the bytes the server's application read counted over the measured
// window after the warm-up (receiver side, as iperf3's sum_received), and retransmissions from the
// senders' TCP counters over the same window (sum_sent.retransmits).

import type { NetNamespace } from "../../../net/stack/index.js";
import { F64_ZERO, TcpStack, type CongestionName, type TcpSocket } from "../../../net/tcp/index.js";
import { err, ok, type Result } from "../../../util/result.js";
import { OPEN_GATE, type AppGate } from "./gate.js";
import { defaultOmitNs, measureWindow, type MeasureWindow } from "./timing.js";

export const IPERF_PORT = 5201;
const IPERF_TCP_BLOCK = 128 * 1024;

export interface IperfTcpOptions {
  readonly port?: number;
  /** The port the client connects to when it differs from the server's (a NodePort in front of it). */
  readonly dstPort?: number;
  /** -P: parallel streams. */
  readonly streams?: number;
  /** -t: measured duration. */
  readonly durationNs: number;
  /** -O: warm-up omitted before the measurement (default: defaultOmitNs). */
  readonly omitNs?: number;
  /** -l: bytes per write. */
  readonly blockSize?: number;
  readonly congestion?: CongestionName;
  /** -N: TCP_NODELAY on the client sockets. */
  readonly noDelay?: boolean;
  /** When the client may write and the server may read (CPU budget); default always. */
  readonly sender?: AppGate;
  readonly receiver?: AppGate;
}

export interface IperfTcpStreamResult {
  readonly bytes: number;
  readonly retransmits: number;
  /** The sender's MSS at the end of the test. */
  readonly mss: number;
}

export interface IperfTcpResult {
  /** Receiver-side goodput over the window, bit/s. */
  readonly bitsPerSecond: number;
  readonly bytes: number;
  readonly retransmits: number;
  readonly mss: number;
  readonly window: MeasureWindow;
  readonly streams: readonly IperfTcpStreamResult[];
}

interface StreamState {
  sock: TcpSocket | null;
  received: number;
  retransAtStart: number;
  /** Resumes writing once the sender's gate opens (one function per stream, handed to every wait). */
  resume: () => void;
}

export class IperfTcpTest {
  private result_: Result<IperfTcpResult, string> | null = null;
  private readonly streams: StreamState[] = [];
  private window: MeasureWindow | null = null;
  private stopped = false;
  /** Bytes the server has read over all streams since the start, window or not (a double: see F64_ZERO). */
  private read = F64_ZERO;
  private readonly block: Uint8Array;
  private readonly sender: AppGate;
  private readonly receiver: AppGate;

  constructor(
    readonly client: NetNamespace,
    readonly server: NetNamespace,
    readonly dst: number,
    readonly options: IperfTcpOptions,
  ) {
    this.block = new Uint8Array(options.blockSize ?? IPERF_TCP_BLOCK);
    this.sender = options.sender ?? OPEN_GATE;
    this.receiver = options.receiver ?? OPEN_GATE;
  }

  /** The outcome once the window has closed (or the test failed), else null. */
  get result(): Result<IperfTcpResult, string> | null {
    return this.result_;
  }

  /** Bytes the server has read so far over all streams (the receiving application's share of the work). */
  get bytesRead(): number {
    return this.read;
  }

  /** The measurement window, known once every stream is connected. */
  get measureWindow(): MeasureWindow | null {
    return this.window;
  }

  start(): Result<void, string> {
    const port = this.options.port ?? IPERF_PORT;
    const count = this.options.streams ?? 1;
    let accepted = 0;
    const listened = TcpStack.of(this.server).listen(port, (sock) => this.serve(sock, this.streams[accepted++]));
    if (!listened.ok) return err(`iperf server: ${listened.error.detail}`);
    let connected = 0;
    for (let i = 0; i < count; i++) {
      // received passes 2^30 bytes within seconds at 40G: a double from the start (see F64_ZERO).
      const state: StreamState = { sock: null, received: F64_ZERO, retransAtStart: 0, resume: () => this.pump(state) };
      this.streams.push(state);
      const r = TcpStack.of(this.client).connect(
        this.dst,
        this.options.dstPort ?? port,
        {
          onConnect: (s) => {
            state.sock = s;
            if (++connected === count) this.begin();
          },
          onWritable: () => this.pump(state),
          onClose: (_s, e) => {
            if (e !== null && this.result_ === null) this.result_ = err(`iperf stream ${i + 1}: ${e.detail}`);
          },
        },
        {
          ...(this.options.congestion === undefined ? {} : { congestion: this.options.congestion }),
          ...(this.options.noDelay === true ? { noDelay: true } : {}),
        },
      );
      if (!r.ok) return err(`iperf client: ${r.error.detail}`);
    }
    return ok(undefined);
  }

  private serve(sock: TcpSocket, state: StreamState | undefined): void {
    let waiting = false;
    const resume = (): void => {
      waiting = false;
      sock.setAutoRead(true);
    };
    sock.events = {
      // The server only counts what it reads (no view of the bytes is made for it).
      onReceive: (s, bytes) => {
        const w = this.window;
        const now = s.now;
        this.read += bytes;
        if (state !== undefined && w !== null && now >= w.startNs && now < w.endNs) state.received += bytes;
        if (!this.receiver.open() && !waiting) {
          waiting = true;
          s.setAutoRead(false);
          this.receiver.whenOpen(resume);
        }
      },
      onEnd: (s) => s.close(),
    };
  }

  private begin(): void {
    const sim = this.client.world.sim;
    const omit = this.options.omitNs ?? defaultOmitNs(this.options.durationNs);
    const w = measureWindow(sim.now, omit, this.options.durationNs);
    this.window = w;
    sim.scheduleAt(w.startNs, () => {
      for (const s of this.streams) s.retransAtStart = s.sock?.stats.retransmits ?? 0;
    });
    sim.scheduleAt(w.endNs, () => this.finish(w));
    for (const s of this.streams) if (s.sock !== null) this.pump(s);
  }

  private pump(state: StreamState): void {
    const sock = state.sock;
    if (this.stopped || sock === null) return;
    while (this.sender.open()) {
      const n = sock.sendZeroCopy(this.block); // iperf3 -Z: the block is never written again
      if (n === 0) return;
      this.sender.consume?.(n);
    }
    this.sender.whenOpen(state.resume);
  }

  private finish(w: MeasureWindow): void {
    this.stopped = true;
    const streams = this.streams.map((s) => ({
      bytes: s.received,
      retransmits: (s.sock?.stats.retransmits ?? 0) - s.retransAtStart,
      mss: s.sock?.mss ?? 0,
    }));
    for (const s of this.streams) s.sock?.end();
    if (this.result_ !== null) return;
    const bytes = streams.reduce((a, s) => a + s.bytes, 0);
    const seconds = (w.endNs - w.startNs) / 1e9;
    this.result_ = ok({
      bitsPerSecond: (bytes * 8) / seconds,
      bytes,
      retransmits: streams.reduce((a, s) => a + s.retransmits, 0),
      mss: streams[0]?.mss ?? 0,
      window: w,
      streams,
    });
  }
}

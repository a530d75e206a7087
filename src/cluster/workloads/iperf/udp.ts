// An iperf3-like UDP test: -P streams of datagrams (iperf3's 12-byte header: seconds, microseconds,
// sequence number) at a target rate per stream (-b), or unlimited (-b 0: as fast as the socket takes
// them, i.e. all streams together at most the NIC's line rate, and as fast as the sender's CPU gate allows). The receiver
// holds datagrams in a socket buffer while its application may not run; a full buffer drops them.
// Loss, jitter (RFC 1889, as iperf3) and both rates are measured over the window after the warm-up.

import type { NetNamespace } from "../../../net/stack/index.js";
import { UdpSocket, type UdpDatagram } from "../../../net/udp-socket.js";
import { read32, write32 } from "../../../wire/bytes.js";
import { err, ok, type Result } from "../../../util/result.js";
import { OPEN_GATE, type AppGate } from "./gate.js";
import { JitterEstimator } from "./jitter.js";
import { defaultOmitNs, measureWindow, type MeasureWindow } from "./timing.js";
import { IPERF_PORT } from "./tcp.js";

/** iperf3's UDP payload header: tv_sec, tv_usec, 32-bit packet count. */
const HEADER = 12;
/** Ethernet framing + IPv4 + UDP around a datagram's payload on the wire (for the line-rate gap). */
const WIRE_OVERHEAD = 24 + 14 + 20 + 8;
/**
 * How long the server keeps reading after the senders stop (iperf3's server reads until the client's
 * end-of-test message), so datagrams in flight at the end are not counted as lost.
 */
export const UDP_TAIL_NS = 5_000_000;
/** net.core.rmem_default: a UDP socket's receive buffer. */
export const UDP_RMEM_DEFAULT = 212992;

export interface IperfUdpOptions {
  readonly port?: number;
  /** The port the client sends to when it differs from the server's (a NodePort in front of it). */
  readonly dstPort?: number;
  readonly streams?: number;
  readonly durationNs: number;
  readonly omitNs?: number;
  /** Payload bytes per datagram (iperf3 uses the path's TCP MSS). */
  readonly datagramBytes: number;
  /** -b per stream in bit/s; 0 = unlimited. */
  readonly rateBps: number;
  /** The sender NIC's line rate: an unlimited socket cannot send faster. */
  readonly nicBps: number;
  readonly rcvbufBytes?: number;
  readonly sender?: AppGate;
  readonly receiver?: AppGate;
}

export interface IperfUdpResult {
  /** What the clients pushed into their sockets during the window, bit/s. */
  readonly sentBitsPerSecond: number;
  /** What the server's application read during the window, bit/s. */
  readonly receivedBitsPerSecond: number;
  readonly sent: number;
  readonly received: number;
  /** Lost datagrams in percent of those sent in the window. */
  readonly lostPercent: number;
  readonly jitterNs: number;
  /** Datagrams the receive buffer refused (the application could not keep up). */
  readonly bufferDrops: number;
  readonly window: MeasureWindow;
}

interface Queued {
  sentNs: number;
  bytes: number;
}

export class IperfUdpTest {
  private result_: Result<IperfUdpResult, string> | null = null;
  private window: MeasureWindow | null = null;
  private stopped = false;
  private sentInWindow = 0;
  private receivedInWindow = 0;
  private bytesSentInWindow = 0;
  private bytesReadInWindow = 0;
  /** Datagrams the clients sent since the start. */
  datagramsSent = 0;
  /** Datagrams that reached the server socket since the start, and those its full buffer refused. */
  arrived = 0;
  bufferDrops = 0;
  private readonly queue: Queued[] = [];
  private queuedBytes = 0;
  private draining = false;
  private readonly jitter = new JitterEstimator();
  private readonly payload: Uint8Array;
  private readonly sender: AppGate;
  private readonly receiver: AppGate;

  constructor(
    readonly client: NetNamespace,
    readonly server: NetNamespace,
    readonly dst: number,
    readonly options: IperfUdpOptions,
  ) {
    this.payload = new Uint8Array(Math.max(HEADER, options.datagramBytes));
    this.sender = options.sender ?? OPEN_GATE;
    this.receiver = options.receiver ?? OPEN_GATE;
  }

  get result(): Result<IperfUdpResult, string> | null {
    return this.result_;
  }

  get measureWindow(): MeasureWindow | null {
    return this.window;
  }

  start(): Result<void, string> {
    const port = this.options.port ?? IPERF_PORT;
    const bound = UdpSocket.bind(this.server, port, { onMessage: (_s, m) => this.arrive(m) });
    if (!bound.ok) return err(`iperf server: ${bound.error.detail}`);
    const sim = this.client.world.sim;
    const omit = this.options.omitNs ?? defaultOmitNs(this.options.durationNs);
    const w = measureWindow(sim.now, omit, this.options.durationNs);
    this.window = w;
    sim.scheduleAt(w.endNs, () => {
      this.stopped = true;
      sim.schedule(UDP_TAIL_NS, () => this.finish(w));
    });
    const streams = this.options.streams ?? 1;
    for (let i = 0; i < streams; i++) {
      const sock = UdpSocket.bind(this.client, 0);
      if (!sock.ok) return err(`iperf client: ${sock.error.detail}`);
      this.runStream(sock.value, this.options.dstPort ?? port);
    }
    return ok(undefined);
  }

  /** Gap between datagrams of one stream: the target rate, and never faster than its share of the NIC. */
  private gapNs(): number {
    const bytes = this.payload.length;
    const streams = this.options.streams ?? 1;
    const line = Math.ceil(((bytes + WIRE_OVERHEAD) * 8e9 * streams) / this.options.nicBps);
    const rate = this.options.rateBps > 0 ? Math.ceil((bytes * 8e9) / this.options.rateBps) : 0;
    return Math.max(line, rate);
  }

  private runStream(sock: UdpSocket, port: number): void {
    const sim = this.client.world.sim;
    const gap = this.gapNs();
    let seq = 0;
    const step = (): void => {
      if (this.stopped) return;
      if (!this.sender.open()) {
        this.sender.whenOpen(step);
        return;
      }
      const now = sim.now;
      const us = Math.floor(now / 1000);
      write32(this.payload, 0, Math.floor(us / 1e6));
      write32(this.payload, 4, us % 1e6);
      write32(this.payload, 8, ++seq);
      const sent = sock.send(this.dst, port, this.payload);
      this.sender.consume?.(this.payload.length);
      if (sent.ok) this.datagramsSent++;
      const w = this.window;
      if (sent.ok && w !== null && now >= w.startNs && now < w.endNs) {
        this.sentInWindow++;
        this.bytesSentInWindow += this.payload.length;
      }
      sim.schedule(gap, step);
    };
    step();
  }

  private arrive(m: UdpDatagram): void {
    if (m.data.length < HEADER) return;
    const sentNs = (read32(m.data, 0) * 1e6 + read32(m.data, 4)) * 1000;
    this.arrived++;
    const rcvbuf = this.options.rcvbufBytes ?? UDP_RMEM_DEFAULT;
    if (this.queuedBytes + m.data.length > rcvbuf) {
      this.bufferDrops++;
      return;
    }
    this.queue.push({ sentNs, bytes: m.data.length });
    this.queuedBytes += m.data.length;
    this.drain();
  }

  /** The application reads queued datagrams while its gate is open. */
  private drain(): void {
    const now = this.server.world.sim.now;
    const w = this.window;
    while (this.queue.length > 0) {
      if (!this.receiver.open()) {
        if (!this.draining) {
          this.draining = true;
          this.receiver.whenOpen(() => {
            this.draining = false;
            this.drain();
          });
        }
        return;
      }
      const d = this.queue.shift()!;
      this.queuedBytes -= d.bytes;
      if (w === null) continue;
      if (d.sentNs >= w.startNs && d.sentNs < w.endNs) {
        this.receivedInWindow++;
        this.jitter.add(d.sentNs, now);
      }
      if (now >= w.startNs && now < w.endNs) this.bytesReadInWindow += d.bytes;
    }
  }

  private finish(w: MeasureWindow): void {
    const seconds = (w.endNs - w.startNs) / 1e9;
    const sent = this.sentInWindow;
    this.result_ = ok({
      sentBitsPerSecond: (this.bytesSentInWindow * 8) / seconds,
      receivedBitsPerSecond: (this.bytesReadInWindow * 8) / seconds,
      sent,
      received: this.receivedInWindow,
      lostPercent: sent === 0 ? 0 : (100 * Math.max(0, sent - this.receivedInWindow)) / sent,
      jitterNs: this.jitter.jitterNs,
      bufferDrops: this.bufferDrops,
      window: w,
    });
  }
}

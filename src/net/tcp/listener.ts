// TcpListener: a passive socket on a port (listen()). A SYN creates a connection in SYN-RECEIVED
// (the kernel's request socket) unless the backlog of half-open connections is full; when the
// handshake completes the application's onAccept receives the established socket.

import type { Segment } from "./segment.js";
import { TcpSocket, type TcpSocketOptions } from "./socket.js";
import { startPassiveOpen } from "./open.js";
import type { TcpStack } from "./stack.js";
import { TcpFlags } from "./tx.js";

export interface TcpListenOptions extends TcpSocketOptions {
  /** Local address to accept on (0 = any, the default). */
  readonly addr?: number;
  /** listen() backlog, capped by net.core.somaxconn (default 511, nginx's). */
  readonly backlog?: number;
}

export class TcpListener {
  readonly addr: number;
  readonly backlog: number;
  private halfOpen = 0;
  /** Connections accepted so far, and SYNs dropped because the backlog was full. */
  acceptedCount = 0;
  overflows = 0;
  closed = false;

  constructor(
    readonly stack: TcpStack,
    readonly port: number,
    private readonly onAccept: (sock: TcpSocket) => void,
    private readonly options: TcpListenOptions,
  ) {
    this.addr = options.addr ?? 0;
    this.backlog = Math.min(options.backlog ?? 511, stack.sysctl.somaxconn);
  }

  /** A segment for this port that no connection claimed. */
  receive(seg: Segment): void {
    const f = seg.flags;
    if ((f & TcpFlags.RST) !== 0) return;
    if ((f & TcpFlags.ACK) !== 0) {
      this.stack.resetForSegment(seg);
      return;
    }
    if ((f & TcpFlags.SYN) === 0 || this.closed) return;
    if (this.halfOpen >= this.backlog) {
      this.overflows++;
      return;
    }
    const ns = this.stack.ns;
    const route = ns.routes.lookup(seg.src);
    if (route === null) return;
    const sock = new TcpSocket(this.stack, seg.dst, this.port, seg.src, seg.srcPort, ns.routeMtu(route), this.options, {});
    sock.listener = this;
    this.halfOpen++;
    this.stack.hash(sock);
    startPassiveOpen(sock, seg);
  }

  /** The handshake of one of our connections completed. */
  accepted(sock: TcpSocket): void {
    if (!sock.accepted) {
      sock.accepted = true;
      this.halfOpen--;
      this.acceptedCount++;
    }
    this.onAccept(sock);
  }

  /** A connection went away (possibly before the handshake completed). */
  forget(sock: TcpSocket): void {
    if (!sock.accepted) {
      sock.accepted = true;
      this.halfOpen--;
    }
  }

  /** Stops listening; established connections continue. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.stack.removeListener(this);
  }
}

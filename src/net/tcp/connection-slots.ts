// A port binding's recently used connections, direct-mapped by the remote end: the segment
// demultiplexer's first try before the binding's map. Several streams sharing one server port
// (iperf -P 8) interleave their segments, so remembering only the last connection missed most of
// the time, and the map's key (address * 65536 + port) is a double hashed per lookup. A slot is
// only a shortcut: the binding clears the slots whenever its map changes, so a connection found
// here is the one the map holds for that remote end.

import type { TcpSocket } from "./socket.js";

/** Slots per binding (a power of two). */
const SLOTS = 16;

export class ConnectionSlots {
  private readonly socks: (TcpSocket | null)[] = new Array<TcpSocket | null>(SLOTS).fill(null);

  /** The remembered connection with that remote end, or null. */
  find(remoteAddr: number, remotePort: number): TcpSocket | null {
    const sock = this.socks[slotOf(remoteAddr, remotePort)]!;
    return sock !== null && sock.remotePort === remotePort && sock.remoteAddr === remoteAddr ? sock : null;
  }

  /** Remembers a connection the binding's map holds for its remote end. */
  remember(sock: TcpSocket): void {
    this.socks[slotOf(sock.remoteAddr, sock.remotePort)] = sock;
  }

  /** Forgets every connection (the binding's map changed). */
  clear(): void {
    this.socks.fill(null);
  }
}

/** Ephemeral ports go up in steps of two (even first), so the port's bits above the lowest spread streams apart. */
function slotOf(remoteAddr: number, remotePort: number): number {
  return ((remotePort >>> 1) ^ remoteAddr) & (SLOTS - 1);
}

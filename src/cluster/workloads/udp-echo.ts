// UdpEcho: answers every datagram on a UDP port with the same bytes (the echo service, RFC 862).

import type { NetNamespace } from "../../net/stack/index.js";
import { UdpSocket } from "../../net/udp-socket.js";
import { err, ok, type Result } from "../../util/result.js";

export class UdpEcho {
  echoed = 0;
  private socket: UdpSocket | null = null;

  constructor(
    readonly ns: NetNamespace,
    readonly port = 7,
  ) {}

  start(): Result<UdpSocket, string> {
    const r = UdpSocket.bind(this.ns, this.port, {
      onMessage: (sock, msg) => {
        this.echoed++;
        sock.send(msg.src, msg.srcPort, msg.data.slice(), msg.dst);
      },
    });
    if (!r.ok) return err(r.error.detail);
    this.socket = r.value;
    return ok(r.value);
  }

  stop(): void {
    this.socket?.close();
    this.socket = null;
  }
}

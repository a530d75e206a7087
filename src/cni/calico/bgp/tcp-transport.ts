// BGP over the model's TCP: each node's speaker listens on port 179 of the node's namespace and opens
// connections from its underlay address, so sessions, UPDATEs and KEEPALIVEs are real segments on the
// underlay (handshake, acknowledgements, retransmissions) and convergence takes the time they take.
import type { NetNamespace } from "../../../net/stack/namespace.js";
import { TcpStack } from "../../../net/tcp/stack.js";
import type { TcpSocket } from "../../../net/tcp/socket.js";
import { BGP_PORT } from "./message.js";
import type { BgpConnection, BgpConnectionEvents, BgpTransport } from "./transport.js";

class TcpBgpConnection implements BgpConnection {
  constructor(private readonly sock: TcpSocket | null) {}
  send(bytes: Uint8Array): void {
    this.sock?.send(bytes);
  }
  close(): void {
    this.sock?.close();
  }
}

const bind = (sock: TcpSocket, events: BgpConnectionEvents): void => {
  sock.events = {
    onConnect: () => events.onOpen(),
    onData: (_s, data) => events.onData(data),
    onEnd: (s) => s.close(),
    onClose: (_s, error) => events.onClose(error === null ? "closed" : `${error.errno}: ${error.detail}`),
  };
};

export function tcpBgpTransport(ns: NetNamespace): BgpTransport {
  const tcp = TcpStack.of(ns);
  return {
    connect(local, remote, events) {
      const opened = tcp.connect(remote, BGP_PORT, {}, { src: local, noDelay: true });
      if (!opened.ok) {
        const why = `${opened.error.errno}: ${opened.error.detail}`;
        ns.world.sim.schedule(0, () => events.onClose(why));
        return new TcpBgpConnection(null);
      }
      bind(opened.value, events);
      return new TcpBgpConnection(opened.value);
    },
    listen(accept) {
      tcp.listen(BGP_PORT, (sock) => {
        const conn = new TcpBgpConnection(sock);
        const events = accept(sock.remoteAddr, conn);
        if (events === null) sock.abort();
        else bind(sock, events);
      });
    },
  };
}

// The byte-stream transport a BGP session runs over (TCP port 179 in the node's namespace), as an
// interface so the speaker does not depend on the TCP implementation, plus the framer that cuts the
// stream into BGP messages by their length field.
import { BGP_HEADER, BGP_MAX_MESSAGE, peekLength } from "./message.js";

export interface BgpConnection {
  send(bytes: Uint8Array): void;
  /** Closes the connection (FIN); no more events are delivered. */
  close(): void;
}

export interface BgpConnectionEvents {
  /** The active open completed (three-way handshake done). */
  onOpen(): void;
  onData(bytes: Uint8Array): void;
  /** The connection failed or the peer closed it. */
  onClose(reason: string): void;
}

export interface BgpTransport {
  /** Opens a connection from `local` to `remote`:179. */
  connect(local: number, remote: number, events: BgpConnectionEvents): BgpConnection;
  /** Accepts connections to port 179; `accept` returns the events of the new connection, or null to refuse it. */
  listen(accept: (remote: number, conn: BgpConnection) => BgpConnectionEvents | null): void;
}

/** Reassembles BGP messages from stream chunks. */
export class BgpFramer {
  private buf = new Uint8Array(0);

  /** Adds bytes; returns the complete messages now available, or a length error (the stream is unusable). */
  push(chunk: Uint8Array): { messages: Uint8Array[]; badLength: number | null } {
    const joined = new Uint8Array(this.buf.length + chunk.length);
    joined.set(this.buf);
    joined.set(chunk, this.buf.length);
    const messages: Uint8Array[] = [];
    let at = 0;
    for (;;) {
      const rest = joined.subarray(at);
      const length = peekLength(rest);
      if (length === 0) break;
      if (length < BGP_HEADER || length > BGP_MAX_MESSAGE) {
        this.buf = new Uint8Array(0);
        return { messages, badLength: length };
      }
      if (rest.length < length) break;
      messages.push(rest.slice(0, length));
      at += length;
    }
    this.buf = joined.slice(at);
    return { messages, badLength: null };
  }
}

// TcpWriter: write() for workloads that must send more than the socket buffer takes at once, as a
// blocking write() would: the rest waits and goes out as the buffer drains (call flush() from the
// socket's onWritable). close()/end() take effect after everything queued was handed over.

import type { TcpSocket } from "../../net/tcp/index.js";

export class TcpWriter {
  private readonly queue: Uint8Array[] = [];
  private after: "none" | "end" | "close" = "none";

  constructor(private readonly sock: TcpSocket) {}

  get pending(): number {
    let n = 0;
    for (const q of this.queue) n += q.length;
    return n;
  }

  write(bytes: Uint8Array): void {
    if (this.queue.length === 0) {
      const n = this.sock.send(bytes);
      if (n === bytes.length) return;
      this.queue.push(bytes.subarray(n));
    } else {
      this.queue.push(bytes);
    }
  }

  /** Hands queued bytes to the socket; runs the deferred end/close once all are in. */
  flush(): void {
    while (this.queue.length > 0) {
      const head = this.queue[0]!;
      const n = this.sock.send(head);
      if (n < head.length) {
        this.queue[0] = head.subarray(n);
        return;
      }
      this.queue.shift();
    }
    if (this.after === "end") this.sock.end();
    else if (this.after === "close") this.sock.close();
    this.after = "none";
  }

  /** shutdown(SHUT_WR) after the queued bytes. */
  end(): void {
    this.after = "end";
    this.flush();
  }

  /** close() after the queued bytes. */
  close(): void {
    this.after = "close";
    this.flush();
  }
}

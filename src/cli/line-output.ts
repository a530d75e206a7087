// LineOutput: batched line writes to stdout/stderr that wait for the stream to drain, so that printing a
// huge capture holds only a small buffer in memory.

import type { Writable } from "node:stream";

const FLUSH_AT = 64 * 1024;

export class LineOutput {
  private pending = "";

  constructor(private readonly stream: Writable) {}

  async line(text: string): Promise<void> {
    this.pending += text + "\n";
    if (this.pending.length >= FLUSH_AT) await this.flush();
  }

  async flush(): Promise<void> {
    if (this.pending === "") return;
    const chunk = this.pending;
    this.pending = "";
    if (this.stream.write(chunk)) return;
    await new Promise<void>((resolve, reject) => {
      const onDrain = (): void => {
        this.stream.off("error", onError);
        resolve();
      };
      const onError = (e: Error): void => {
        this.stream.off("drain", onDrain);
        reject(e);
      };
      this.stream.once("drain", onDrain);
      this.stream.once("error", onError);
    });
  }
}

// ByteSink: the output side of the capture writers, over a Node Writable or a file path, with backpressure
// (write returns false when the caller should await drain()) and stream errors surfaced on the next call.

import { createWriteStream } from "node:fs";
import type { Writable } from "node:stream";
import { CaptureError } from "./errors.js";

export type SinkOptions = {
  /** End the stream on close() (default true; pass false for process.stdout or a shared stream). */
  readonly endStream?: boolean;
};

export class ByteSink {
  private failure: Error | null = null;
  private written = 0;

  constructor(
    private readonly out: Writable,
    /** Name used in error messages: the file path or "<stream>". */
    readonly name: string,
    private readonly options: SinkOptions = {},
  ) {
    out.on("error", (e: Error) => {
      this.failure ??= e;
    });
  }

  static toFile(path: string): ByteSink {
    return new ByteSink(createWriteStream(path), path);
  }

  /** Bytes handed to the stream so far (= file offset of the next write). */
  get offset(): number {
    return this.written;
  }

  write(chunk: Uint8Array): boolean {
    this.throwIfFailed();
    this.written += chunk.length;
    return this.out.write(chunk);
  }

  /** Resolves once the stream wants more data (immediately if it is not backed up). */
  async drain(): Promise<void> {
    this.throwIfFailed();
    if (!this.out.writableNeedDrain) return;
    await new Promise<void>((resolve, reject) => {
      const onDrain = (): void => {
        this.out.off("error", onError);
        resolve();
      };
      const onError = (e: Error): void => {
        this.out.off("drain", onDrain);
        reject(this.wrap(e));
      };
      this.out.once("drain", onDrain);
      this.out.once("error", onError);
    });
  }

  /** Flushes and (unless endStream is false) ends the stream, resolving when everything is written. */
  async close(): Promise<void> {
    this.throwIfFailed();
    if (this.options.endStream === false) {
      await this.drain();
      return;
    }
    await new Promise<void>((resolve, reject) => {
      this.out.once("error", (e: Error) => reject(this.wrap(e)));
      this.out.end(() => resolve());
    });
    this.throwIfFailed();
  }

  private throwIfFailed(): void {
    if (this.failure !== null) throw this.wrap(this.failure);
  }

  private wrap(e: Error): CaptureError {
    return new CaptureError(this.name, this.written, `write failed: ${e.message}`);
  }
}

// openCapture: the streaming reader for classic pcap and pcapng files. It sniffs the format from the
// first bytes, hands out records through an async iterator (one await per file chunk, not per record)
// and keeps a summary of everything read or skipped.

import { open, type FileHandle } from "node:fs/promises";
import { classicMagic, readClassic } from "./classic-reader.js";
import { CaptureError, CaptureOpenError } from "./errors.js";
import { FileWindow } from "./file-window.js";
import { BlockType } from "./pcapng-blocks.js";
import { readPcapng } from "./pcapng-reader.js";
import { type FormatReader, ReadContext } from "./read-context.js";
import type { CaptureFormat, CaptureRecord, CaptureSummary, OpenCaptureOptions } from "./types.js";

const DEFAULT_CHUNK_SIZE = 64 * 1024;
const DONE: IteratorReturnResult<undefined> = { done: true, value: undefined };

export class CaptureReader implements AsyncIterable<CaptureRecord> {
  readonly summary: CaptureSummary = {
    format: null,
    read: 0,
    decoded: 0,
    skipped: [],
    interfaces: [],
    otherBlocks: {},
    stopped: null,
  };
  private started = false;
  private handle: FileHandle | null = null;
  private window: FileWindow | null = null;
  private context: ReadContext | null = null;
  private format: FormatReader | null = null;
  private finished = false;

  constructor(
    readonly path: string,
    private readonly options: OpenCaptureOptions = {},
  ) {}

  /** Bytes of read buffer currently held (for memory checks). */
  get bufferCapacity(): number {
    return this.window?.capacity ?? 0;
  }

  [Symbol.asyncIterator](): AsyncIterator<CaptureRecord> {
    if (this.started) throw new CaptureError(this.path, 0, "a CaptureReader can be iterated only once");
    this.started = true;
    return {
      next: () => this.next(),
      return: async () => {
        await this.finish();
        return DONE;
      },
    };
  }

  private async next(): Promise<IteratorResult<CaptureRecord>> {
    if (this.finished) return DONE;
    try {
      const format = this.format ?? (await this.start());
      if (format === null) {
        await this.finish();
        return DONE;
      }
      const ctx = this.context!;
      let loaded = 0;
      for (;;) {
        const step = format.next(loaded);
        if (step.done === true) {
          await this.finish();
          return DONE;
        }
        const value = step.value;
        if (value === ctx.loadRequest) {
          loaded = await this.window!.load(value.offset, value.length);
          continue;
        }
        this.summary.decoded++;
        return { done: false, value: value as CaptureRecord };
      }
    } catch (e) {
      await this.finish();
      throw e;
    }
  }

  /** Opens the file and picks the format reader; null when the file is not a capture (lenient mode). */
  private async start(): Promise<FormatReader | null> {
    try {
      this.handle = await open(this.path, "r");
    } catch (e) {
      throw new CaptureOpenError(this.path, `cannot open: ${describeOpenError(e)}`);
    }
    const size = (await this.handle.stat()).size;
    const win = new FileWindow(this.handle, size, this.options.chunkSize ?? DEFAULT_CHUNK_SIZE);
    this.window = win;
    const ctx = new ReadContext(this.path, win, this.summary, this.options.lenient === true);
    this.context = ctx;
    const format = await sniffFormat(win);
    if (typeof format !== "string") {
      ctx.fail({ offset: 0, reason: format.reason, resync: false }, 0);
      return null;
    }
    this.summary.format = format;
    this.format = format === "pcap" ? readClassic(ctx) : readPcapng(ctx);
    return this.format;
  }

  private async finish(): Promise<void> {
    this.finished = true;
    const handle = this.handle;
    this.handle = null;
    await handle?.close();
  }
}

export function openCapture(path: string, options: OpenCaptureOptions = {}): CaptureReader {
  return new CaptureReader(path, options);
}

async function sniffFormat(win: FileWindow): Promise<CaptureFormat | { reason: string }> {
  const got = await win.load(0, 4);
  if (got === 0) return { reason: "empty file: no capture header" };
  if (got < 4) return { reason: `file too short for a capture header (${got} bytes)` };
  const magic = win.u32(0, true);
  if (magic === BlockType.SHB) return "pcapng";
  if (classicMagic(magic) !== null) return "pcap";
  if (win.u8(0) === 0x1f && win.u8(1) === 0x8b) return { reason: "gzip-compressed file: decompress it first" };
  return { reason: `not a pcap or pcapng file: unknown magic number 0x${magic.toString(16).padStart(8, "0")}` };
}

function describeOpenError(e: unknown): string {
  if (e instanceof Error && "code" in e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === "ENOENT") return "no such file";
    if (code === "EACCES") return "permission denied";
    if (code === "EISDIR") return "is a directory";
    return `${code}: ${e.message}`;
  }
  return String(e);
}

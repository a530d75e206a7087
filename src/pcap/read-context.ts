// Shared state of one pass over a capture file: the window, the summary, the strict/lenient policy
// that turns a parse problem into a thrown CaptureError or a skipped entry, and the load requests.

import { CaptureError, type CaptureProblem } from "./errors.js";
import type { FileWindow } from "./file-window.js";
import type { CaptureRecord, CaptureSummary } from "./types.js";

/** What a format reader yields when it needs bytes that are not in the window yet. */
export type LoadRequest = { offset: number; length: number };

/**
 * A format reader is a synchronous generator: it yields records, or a load request after which it is
 * resumed with the number of bytes now available (see FileWindow.load). Keeping the parsing synchronous
 * leaves one await per file chunk instead of several per record.
 */
export type FormatReader = Generator<CaptureRecord | LoadRequest, void, number>;

export class ReadContext {
  /** The one request object format readers yield (reused: no allocation per load). */
  readonly loadRequest: LoadRequest = { offset: 0, length: 0 };

  constructor(
    readonly file: string,
    readonly window: FileWindow,
    readonly summary: CaptureSummary,
    private readonly lenient: boolean,
  ) {}

  /**
   * Handles a bad record or block. Strict: throws. Lenient: records it as skipped and returns true when
   * reading may go on, or false (after noting where it stopped) when the file cannot be resynchronised.
   * `index` is the packet record number, or 0 for a non-packet block.
   */
  fail(problem: CaptureProblem, index: number): boolean {
    if (!this.lenient) throw new CaptureError(this.file, problem.offset, problem.reason);
    this.summary.skipped.push({ index, offset: problem.offset, reason: problem.reason });
    if (problem.resync) return true;
    this.summary.stopped = {
      offset: problem.offset,
      reason: `cannot resynchronise after this error, stopped reading: ${problem.reason}`,
    };
    return false;
  }

  /** The load request to yield for [offset, offset + length). */
  request(offset: number, length: number): LoadRequest {
    this.loadRequest.offset = offset;
    this.loadRequest.length = length;
    return this.loadRequest;
  }

  countOtherBlock(name: string): void {
    this.summary.otherBlocks[name] = (this.summary.otherBlocks[name] ?? 0) + 1;
  }
}

// Shared state of one pass over a capture file: the window, the summary, and the strict/lenient policy
// that turns a parse problem into a thrown CaptureError or a skipped entry.

import { CaptureError, type CaptureProblem } from "./errors.js";
import type { FileWindow } from "./file-window.js";
import type { CaptureSummary } from "./types.js";

export class ReadContext {
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

  countOtherBlock(name: string): void {
    this.summary.otherBlocks[name] = (this.summary.otherBlocks[name] ?? 0) + 1;
  }
}

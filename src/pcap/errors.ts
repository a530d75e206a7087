// CaptureError: a capture file problem with the file name and the byte offset where it was found.
// Thrown by the capture reader in strict mode and by the writers on bad arguments; the CLI prints it.

export class CaptureError extends Error {
  readonly file: string;
  readonly offset: number;
  readonly reason: string;

  constructor(file: string, offset: number, reason: string) {
    super(`${file}: offset ${offset}: ${reason}`);
    this.name = "CaptureError";
    this.file = file;
    this.offset = offset;
    this.reason = reason;
  }
}

/** The file could not be opened at all (missing, unreadable, a directory). */
export class CaptureOpenError extends CaptureError {
  constructor(file: string, reason: string) {
    super(file, 0, reason);
    this.name = "CaptureOpenError";
  }
}

/** A problem found while parsing, before it becomes a CaptureError (strict) or a skipped entry (lenient). */
export type CaptureProblem = {
  readonly offset: number;
  readonly reason: string;
  /** True when the framing is still trustworthy, so reading can continue after the bad record or block. */
  readonly resync: boolean;
};

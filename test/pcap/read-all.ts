// Reads a whole capture for a test: the records, the summary, and the CaptureError that ended it (if any).
import { writeFileSync } from "node:fs";
import path from "node:path";
import { CaptureError } from "../../src/pcap/errors.js";
import { openCapture } from "../../src/pcap/open-capture.js";
import type { CaptureRecord, CaptureSummary, OpenCaptureOptions } from "../../src/pcap/types.js";
import { scratchDir } from "./paths.js";

export type ReadOutcome = { records: CaptureRecord[]; summary: CaptureSummary; error: CaptureError | null };

export async function readAll(file: string, options: OpenCaptureOptions = {}): Promise<ReadOutcome> {
  const reader = openCapture(file, options);
  const records: CaptureRecord[] = [];
  try {
    for await (const record of reader) records.push(record);
  } catch (e) {
    if (!(e instanceof CaptureError)) throw e;
    return { records, summary: reader.summary, error: e };
  }
  return { records, summary: reader.summary, error: null };
}

let dir: string | null = null;

/** Writes bytes to a file in this run's scratch directory and returns its path. */
export function scratchFile(name: string, bytes: Uint8Array): string {
  dir ??= scratchDir();
  const file = path.join(dir, name);
  writeFileSync(file, bytes);
  return file;
}

// The option list at the end of pcapng blocks: code, length, value padded to 32 bits, ended by
// opt_endofopt or by the end of the block body. Checks that no option overruns its block.

import type { CaptureProblem } from "./errors.js";
import type { FileWindow } from "./file-window.js";

export const OPT_ENDOFOPT = 0;

export function pad4(length: number): number {
  return (length + 3) & ~3;
}

/**
 * Visits each option of a loaded block between start and end (absolute file offsets).
 * The visitor gets the option code, the offset of its value and the value length, and may return a problem.
 * `trusted` says whether the block's framing was verified (its two length fields agree).
 */
export function walkOptions(
  win: FileWindow,
  start: number,
  end: number,
  littleEndian: boolean,
  blockName: string,
  trusted: boolean,
  visit: (code: number, valueOffset: number, length: number) => string | null,
): CaptureProblem | null {
  let at = start;
  while (at < end) {
    if (at + 4 > end) {
      return { offset: at, reason: `${blockName} option header runs past the end of the block options (offset ${end})`, resync: trusted };
    }
    const code = win.u16(at, littleEndian);
    const length = win.u16(at + 2, littleEndian);
    if (code === OPT_ENDOFOPT) return null;
    if (at + 4 + length > end) {
      const reason =
        `${blockName} option code ${code} has length ${length}, overrunning its block ` +
        `(${end - at - 4} bytes of option data left before offset ${end})`;
      return { offset: at, reason, resync: trusted };
    }
    const bad = visit(code, at + 4, length);
    if (bad !== null) return { offset: at, reason: `${blockName} option code ${code}: ${bad}`, resync: trusted };
    at += 4 + pad4(length);
  }
  return null;
}

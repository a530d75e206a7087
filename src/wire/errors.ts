// Typed decode errors of the wire layer: which layer, which field, at which byte offset, and why.
// Offsets count from the start of the buffer given to the parser (the frame), not from the header.
import { err, type Err } from "../util/result.js";

export type WireError = { layer: string; field: string; offset: number; reason: string };

export function wireError(layer: string, field: string, offset: number, reason: string): Err<WireError> {
  return err({ layer, field, offset, reason });
}

/** Error for a header that does not fit: `needed` bytes from `offset`, but the range ends at `end`. */
export function truncated(layer: string, field: string, offset: number, needed: number, end: number): Err<WireError> {
  const available = end > offset ? end - offset : 0;
  return err({ layer, field, offset, reason: `truncated: needs ${needed} bytes, ${available} available` });
}

/** Checks that [offset, offset + needed) lies inside [0, end); returns the error to pass up, or null. */
export function checkSpace(
  layer: string,
  field: string,
  offset: number,
  needed: number,
  end: number,
): Err<WireError> | null {
  if (!Number.isInteger(offset) || offset < 0) return wireError(layer, field, offset, "offset out of range");
  return offset + needed > end ? truncated(layer, field, offset, needed, end) : null;
}

export function formatWireError(e: WireError): string {
  return `${e.layer}.${e.field} at byte ${e.offset}: ${e.reason}`;
}

// The options Linux writes (tcp_options_write), in its order and packing: MSS; SACK-permitted
// folded with timestamps (4,2,8,10) or NOP,NOP,timestamps; NOP,NOP,SACK-permitted when there are
// no timestamps; NOP + window scale; NOP,NOP,SACK blocks. Every option word is 32-bit aligned.

import { write16, write32 } from "../../wire/bytes.js";

export interface SynOptions {
  mss: number;
  sackPermitted: boolean;
  timestamps: boolean;
  tsVal: number;
  tsEcr: number;
  /** -1 = no window scale option. */
  wscale: number;
}

export function synOptionsLength(o: SynOptions): number {
  let n = 4;
  if (o.timestamps) n += 12;
  else if (o.sackPermitted) n += 4;
  if (o.wscale >= 0) n += 4;
  return n;
}

/** Writes SYN / SYN-ACK options at `at`; returns their length. */
export function writeSynOptions(b: Uint8Array, at: number, o: SynOptions): number {
  let p = at;
  b[p] = 2;
  b[p + 1] = 4;
  write16(b, p + 2, o.mss);
  p += 4;
  if (o.timestamps) {
    if (o.sackPermitted) {
      b[p] = 4;
      b[p + 1] = 2;
    } else {
      b[p] = 1;
      b[p + 1] = 1;
    }
    b[p + 2] = 8;
    b[p + 3] = 10;
    write32(b, p + 4, o.tsVal);
    write32(b, p + 8, o.tsEcr);
    p += 12;
  } else if (o.sackPermitted) {
    b[p] = 1;
    b[p + 1] = 1;
    b[p + 2] = 4;
    b[p + 3] = 2;
    p += 4;
  }
  if (o.wscale >= 0) {
    b[p] = 1;
    b[p + 1] = 3;
    b[p + 2] = 3;
    b[p + 3] = o.wscale;
    p += 4;
  }
  return p - at;
}

/** Length of a non-SYN segment's options: timestamps (12) and n SACK blocks (4 + 8n). */
export function dataOptionsLength(timestamps: boolean, sackBlocks: number): number {
  return (timestamps ? 12 : 0) + (sackBlocks > 0 ? 4 + 8 * sackBlocks : 0);
}

/** Writes NOP,NOP,TS and NOP,NOP,SACK(left/right pairs); returns the length. */
export function writeDataOptions(
  b: Uint8Array,
  at: number,
  timestamps: boolean,
  tsVal: number,
  tsEcr: number,
  sackBlocks: number,
  left: Uint32Array,
  right: Uint32Array,
): number {
  let p = at;
  if (timestamps) {
    b[p] = 1;
    b[p + 1] = 1;
    b[p + 2] = 8;
    b[p + 3] = 10;
    write32(b, p + 4, tsVal);
    write32(b, p + 8, tsEcr);
    p += 12;
  }
  if (sackBlocks > 0) {
    b[p] = 1;
    b[p + 1] = 1;
    b[p + 2] = 5;
    b[p + 3] = 2 + 8 * sackBlocks;
    p += 4;
    for (let i = 0; i < sackBlocks; i++) {
      write32(b, p, left[i]!);
      write32(b, p + 4, right[i]!);
      p += 8;
    }
  }
  return p - at;
}

// An arriving TCP segment as the connection code reads it: header fields and the options Linux
// acts on (MSS, window scale, SACK-permitted, timestamps, SACK blocks), parsed into one reused
// scratch object without allocation. Malformed options end parsing, as tcp_parse_options does.

import { read16, read32 } from "../../wire/bytes.js";
import { F64_ZERO } from "./constants.js";

const MAX_SACK_BLOCKS = 4;

const OPT_EOL = 0;
const OPT_NOP = 1;
const OPT_MSS = 2;
const OPT_WSCALE = 3;
const OPT_SACK_PERM = 4;
const OPT_SACK = 5;
const OPT_TIMESTAMP = 8;

export class Segment {
  src = F64_ZERO;
  dst = F64_ZERO;
  srcPort = 0;
  dstPort = 0;
  seq = F64_ZERO;
  ack = F64_ZERO;
  flags = 0;
  window = 0;
  /** Payload bytes: data[payloadStart, payloadStart + payloadLen). */
  data: Uint8Array = new Uint8Array(0);
  payloadStart = 0;
  payloadLen = 0;
  ipTtl = 0;
  /** GRO: the segments this one stands for (1 = a lone segment) and their size (0 = not merged). */
  gsoSegs = 1;
  gsoSize = 0;
  // options (present flags reset on every parse)
  mss = 0;
  wscale = -1;
  sackPermitted = false;
  hasTimestamp = false;
  tsVal = F64_ZERO;
  tsEcr = F64_ZERO;
  sackCount = 0;
  readonly sackLeft = new Uint32Array(MAX_SACK_BLOCKS);
  readonly sackRight = new Uint32Array(MAX_SACK_BLOCKS);

  /** Sequence space the segment occupies: payload + SYN + FIN. */
  get seqLen(): number {
    return this.payloadLen + (this.flags & 0x02 ? 1 : 0) + (this.flags & 0x01 ? 1 : 0);
  }

  /** Fills the fields from the TCP header at l4 (checksum and data offset already checked by the stack). */
  parse(bytes: Uint8Array, l4: number, end: number, src: number, dst: number, ttl: number): void {
    this.src = src;
    this.dst = dst;
    this.srcPort = read16(bytes, l4);
    this.dstPort = read16(bytes, l4 + 2);
    this.seq = read32(bytes, l4 + 4);
    this.ack = read32(bytes, l4 + 8);
    this.flags = bytes[l4 + 13]!;
    this.window = read16(bytes, l4 + 14);
    const doff = (bytes[l4 + 12]! >>> 4) * 4;
    this.data = bytes;
    this.payloadStart = l4 + doff;
    this.payloadLen = end - l4 - doff;
    this.ipTtl = ttl;
    this.parseOptions(bytes, l4 + 20, l4 + doff);
  }

  private parseOptions(b: Uint8Array, start: number, end: number): void {
    this.mss = 0;
    this.wscale = -1;
    this.sackPermitted = false;
    this.hasTimestamp = false;
    this.sackCount = 0;
    // Every data segment and ACK of a timestamp connection: NOP, NOP, timestamps, nothing else.
    if (end - start === 12 && b[start] === OPT_NOP && b[start + 1] === OPT_NOP && b[start + 2] === OPT_TIMESTAMP && b[start + 3] === 10) {
      this.hasTimestamp = true;
      this.tsVal = read32(b, start + 4);
      this.tsEcr = read32(b, start + 8);
      return;
    }
    let i = start;
    while (i < end) {
      const kind = b[i]!;
      if (kind === OPT_EOL) return;
      if (kind === OPT_NOP) {
        i++;
        continue;
      }
      if (i + 1 >= end) return;
      const len = b[i + 1]!;
      if (len < 2 || i + len > end) return;
      switch (kind) {
        case OPT_MSS:
          if (len === 4) this.mss = read16(b, i + 2);
          break;
        case OPT_WSCALE:
          if (len === 3) this.wscale = Math.min(b[i + 2]!, 14);
          break;
        case OPT_SACK_PERM:
          if (len === 2) this.sackPermitted = true;
          break;
        case OPT_TIMESTAMP:
          if (len === 10) {
            this.hasTimestamp = true;
            this.tsVal = read32(b, i + 2);
            this.tsEcr = read32(b, i + 6);
          }
          break;
        case OPT_SACK:
          if (len >= 10 && (len - 2) % 8 === 0) {
            let n = 0;
            for (let at = i + 2; at < i + len && n < MAX_SACK_BLOCKS; at += 8, n++) {
              this.sackLeft[n] = read32(b, at);
              this.sackRight[n] = read32(b, at + 4);
            }
            this.sackCount = n;
          }
          break;
      }
      i += len;
    }
  }
}

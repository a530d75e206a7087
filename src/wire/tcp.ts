// TCP header (RFC 9293) with options: MSS, window scale, SACK-permitted, SACK, timestamps, NOP, EOL;
// any other option, or a known kind with an unexpected length, is kept as "unknown" with its bytes.
// Views, Repr, parse, emit; the checksum is written as given and filled with setL4ChecksumV4/V6.
import { ok, type Result } from "../util/result.js";
import { read16, read32, write16, write32, clampEnd } from "./bytes.js";
import { checkSpace, truncated, wireError, type WireError } from "./errors.js";

export const TCP_MIN_HEADER_LENGTH = 20;

export const TcpFlag = {
  FIN: 0x01,
  SYN: 0x02,
  RST: 0x04,
  PSH: 0x08,
  ACK: 0x10,
  URG: 0x20,
  ECE: 0x40,
  CWR: 0x80,
  /** NS (RFC 3540), now AE (accurate ECN): the low bit of the data-offset byte. */
  AE: 0x100,
} as const;

export type TcpSackBlock = { left: number; right: number };

export type TcpOption =
  | { kind: "eol" }
  | { kind: "nop" }
  | { kind: "mss"; value: number }
  | { kind: "windowScale"; shift: number }
  | { kind: "sackPermitted" }
  | { kind: "sack"; blocks: TcpSackBlock[] }
  | { kind: "timestamps"; value: number; echo: number }
  | { kind: "unknown"; type: number; data: Uint8Array };

export type TcpRepr = {
  srcPort: number;
  dstPort: number;
  seq: number;
  ack: number;
  /** 9 bits: TcpFlag values. */
  flags: number;
  window: number;
  checksum: number;
  urgentPointer: number;
  options: TcpOption[];
};

export const tcpSrcPort = (bytes: Uint8Array, offset: number): number => read16(bytes, offset);
export const tcpDstPort = (bytes: Uint8Array, offset: number): number => read16(bytes, offset + 2);
export const tcpSeq = (bytes: Uint8Array, offset: number): number => read32(bytes, offset + 4);
export const tcpAck = (bytes: Uint8Array, offset: number): number => read32(bytes, offset + 8);
export const tcpDataOffset = (bytes: Uint8Array, offset: number): number => (bytes[offset + 12]! >>> 4) * 4;
export const tcpFlags = (bytes: Uint8Array, offset: number): number => read16(bytes, offset + 12) & 0x1ff;
export const tcpWindow = (bytes: Uint8Array, offset: number): number => read16(bytes, offset + 14);
export const tcpChecksum = (bytes: Uint8Array, offset: number): number => read16(bytes, offset + 16);
export const tcpUrgentPointer = (bytes: Uint8Array, offset: number): number => read16(bytes, offset + 18);

const OPTION_KIND = { EOL: 0, NOP: 1, MSS: 2, WSCALE: 3, SACK_PERMITTED: 4, SACK: 5, TIMESTAMPS: 8 } as const;

function decodeOption(bytes: Uint8Array, at: number, type: number, len: number): TcpOption {
  if (type === OPTION_KIND.MSS && len === 4) return { kind: "mss", value: read16(bytes, at + 2) };
  if (type === OPTION_KIND.WSCALE && len === 3) return { kind: "windowScale", shift: bytes[at + 2]! };
  if (type === OPTION_KIND.SACK_PERMITTED && len === 2) return { kind: "sackPermitted" };
  if (type === OPTION_KIND.TIMESTAMPS && len === 10) {
    return { kind: "timestamps", value: read32(bytes, at + 2), echo: read32(bytes, at + 6) };
  }
  if (type === OPTION_KIND.SACK && len >= 10 && (len - 2) % 8 === 0) {
    const blocks: TcpSackBlock[] = [];
    for (let i = at + 2; i < at + len; i += 8) blocks.push({ left: read32(bytes, i), right: read32(bytes, i + 4) });
    return { kind: "sack", blocks };
  }
  return { kind: "unknown", type, data: bytes.slice(at + 2, at + len) };
}

/** Decodes the option list in bytes[start, end); an EOL ends it (the rest is padding). */
export function parseTcpOptions(bytes: Uint8Array, start: number, end: number): Result<TcpOption[], WireError> {
  const options: TcpOption[] = [];
  let i = start;
  while (i < end) {
    const type = bytes[i]!;
    if (type === OPTION_KIND.EOL) {
      options.push({ kind: "eol" });
      break;
    }
    if (type === OPTION_KIND.NOP) {
      options.push({ kind: "nop" });
      i++;
      continue;
    }
    if (i + 1 >= end) return wireError("tcp", "options", i, `option ${type} has no length byte`);
    const len = bytes[i + 1]!;
    if (len < 2 || i + len > end) return wireError("tcp", "options", i, `option ${type} length ${len} does not fit`);
    options.push(decodeOption(bytes, i, type, len));
    i += len;
  }
  return ok(options);
}

export function parseTcp(bytes: Uint8Array, offset: number, end: number): Result<TcpRepr, WireError> {
  const limit = clampEnd(bytes, end);
  const bad = checkSpace("tcp", "header", offset, TCP_MIN_HEADER_LENGTH, limit);
  if (bad) return bad;
  const headerLength = tcpDataOffset(bytes, offset);
  if (headerLength < TCP_MIN_HEADER_LENGTH) {
    return wireError("tcp", "dataOffset", offset + 12, `header length ${headerLength} below 20`);
  }
  if (offset + headerLength > limit) return truncated("tcp", "options", offset, headerLength, limit);
  const options = parseTcpOptions(bytes, offset + TCP_MIN_HEADER_LENGTH, offset + headerLength);
  if (!options.ok) return options;
  return ok({
    srcPort: tcpSrcPort(bytes, offset),
    dstPort: tcpDstPort(bytes, offset),
    seq: tcpSeq(bytes, offset),
    ack: tcpAck(bytes, offset),
    flags: tcpFlags(bytes, offset),
    window: tcpWindow(bytes, offset),
    checksum: tcpChecksum(bytes, offset),
    urgentPointer: tcpUrgentPointer(bytes, offset),
    options: options.value,
  });
}

export function tcpOptionLength(option: TcpOption): number {
  switch (option.kind) {
    case "eol":
    case "nop":
      return 1;
    case "mss":
      return 4;
    case "windowScale":
      return 3;
    case "sackPermitted":
      return 2;
    case "sack":
      return 2 + 8 * option.blocks.length;
    case "timestamps":
      return 10;
    case "unknown":
      return 2 + option.data.length;
  }
}

export function tcpHeaderLength(repr: TcpRepr): number {
  let length = 0;
  for (const option of repr.options) length += tcpOptionLength(option);
  return TCP_MIN_HEADER_LENGTH + ((length + 3) & ~3);
}

function emitOption(option: TcpOption, bytes: Uint8Array, at: number): number {
  const len = tcpOptionLength(option);
  switch (option.kind) {
    case "eol":
      bytes[at] = OPTION_KIND.EOL;
      return len;
    case "nop":
      bytes[at] = OPTION_KIND.NOP;
      return len;
    case "mss":
      bytes[at] = OPTION_KIND.MSS;
      write16(bytes, at + 2, option.value);
      break;
    case "windowScale":
      bytes[at] = OPTION_KIND.WSCALE;
      bytes[at + 2] = option.shift;
      break;
    case "sackPermitted":
      bytes[at] = OPTION_KIND.SACK_PERMITTED;
      break;
    case "sack":
      bytes[at] = OPTION_KIND.SACK;
      option.blocks.forEach((block, i) => {
        write32(bytes, at + 2 + 8 * i, block.left);
        write32(bytes, at + 6 + 8 * i, block.right);
      });
      break;
    case "timestamps":
      bytes[at] = OPTION_KIND.TIMESTAMPS;
      write32(bytes, at + 2, option.value);
      write32(bytes, at + 6, option.echo);
      break;
    case "unknown":
      bytes[at] = option.type;
      bytes.set(option.data, at + 2);
      break;
  }
  bytes[at + 1] = len;
  return len;
}

/** Writes header and options (zero padding to a multiple of 4); returns the header length. */
export function emitTcp(repr: TcpRepr, bytes: Uint8Array, offset: number): number {
  const headerLength = tcpHeaderLength(repr);
  write16(bytes, offset, repr.srcPort);
  write16(bytes, offset + 2, repr.dstPort);
  write32(bytes, offset + 4, repr.seq);
  write32(bytes, offset + 8, repr.ack);
  write16(bytes, offset + 12, ((headerLength >>> 2) << 12) | (repr.flags & 0x1ff));
  write16(bytes, offset + 14, repr.window);
  write16(bytes, offset + 16, repr.checksum);
  write16(bytes, offset + 18, repr.urgentPointer);
  let at = offset + TCP_MIN_HEADER_LENGTH;
  for (const option of repr.options) at += emitOption(option, bytes, at);
  bytes.fill(0, at, offset + headerLength);
  return headerLength;
}

/** Options as tcpdump prints them inside "options [...]". */
export function formatTcpOptions(options: readonly TcpOption[]): string {
  return options
    .map((o) => {
      switch (o.kind) {
        case "eol":
          return "eol";
        case "nop":
          return "nop";
        case "mss":
          return `mss ${o.value}`;
        case "windowScale":
          return `wscale ${o.shift}`;
        case "sackPermitted":
          return "sackOK";
        case "sack":
          return `sack ${o.blocks.length} ${o.blocks.map((b) => `{${b.left}:${b.right}}`).join("")}`;
        case "timestamps":
          return `TS val ${o.value} ecr ${o.echo}`;
        case "unknown":
          return `unknown-${o.type} 0x${Array.from(o.data, (b) => b.toString(16).padStart(2, "0")).join("")}`;
      }
    })
    .join(",");
}

/** Set flags as letters from "SAFRPUEC" in that order (the JSON form of the issue). */
export function tcpFlagLetters(flags: number): string {
  let text = "";
  if (flags & TcpFlag.SYN) text += "S";
  if (flags & TcpFlag.ACK) text += "A";
  if (flags & TcpFlag.FIN) text += "F";
  if (flags & TcpFlag.RST) text += "R";
  if (flags & TcpFlag.PSH) text += "P";
  if (flags & TcpFlag.URG) text += "U";
  if (flags & TcpFlag.ECE) text += "E";
  if (flags & TcpFlag.CWR) text += "C";
  return text;
}

/** The flag bits of a "SAFRPUEC" letter string (inverse of tcpFlagLetters). */
export function tcpFlagsFromLetters(letters: string): number {
  const bits: Record<string, number> = { S: TcpFlag.SYN, A: TcpFlag.ACK, F: TcpFlag.FIN, R: TcpFlag.RST, P: TcpFlag.PSH, U: TcpFlag.URG, E: TcpFlag.ECE, C: TcpFlag.CWR };
  let flags = 0;
  for (const letter of letters) flags |= bits[letter] ?? 0;
  return flags;
}

/** Flags as tcpdump prints them in "Flags [...]": F S R P . U E W in that order, "none" when empty. */
export function tcpdumpFlags(flags: number): string {
  let text = "";
  if (flags & TcpFlag.FIN) text += "F";
  if (flags & TcpFlag.SYN) text += "S";
  if (flags & TcpFlag.RST) text += "R";
  if (flags & TcpFlag.PSH) text += "P";
  if (flags & TcpFlag.ACK) text += ".";
  if (flags & TcpFlag.URG) text += "U";
  if (flags & TcpFlag.ECE) text += "E";
  if (flags & TcpFlag.CWR) text += "W";
  return text === "" ? "none" : text;
}

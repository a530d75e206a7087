// SCTP (RFC 4960): the 12-byte common header, its CRC32c checksum (RFC 4960 appendix B, RFC 3309;
// stored as Linux and tshark expect: the CRC's low byte first), and the chunks an association setup
// uses (INIT, INIT ACK, ABORT, COOKIE ECHO, COOKIE ACK) as Reprs with parse and emit. Other chunk types
// parse as "other" with their raw value, so a packet never fails for carrying them.
import { err, ok, type Result } from "../util/result.js";
import { clampEnd, read16, read32, write16, write32 } from "./bytes.js";
import { checkSpace, wireError, type WireError } from "./errors.js";

export const IPPROTO_SCTP = 132;
export const SCTP_HEADER_LENGTH = 12;
export const SCTP_CHUNK_HEADER_LENGTH = 4;
/** INIT and INIT ACK: chunk header + initiate tag, a_rwnd, streams, initial TSN (RFC 4960 3.3.2). */
export const SCTP_INIT_FIXED_LENGTH = 20;

export const SctpChunkType = {
  DATA: 0,
  INIT: 1,
  INIT_ACK: 2,
  SACK: 3,
  HEARTBEAT: 4,
  HEARTBEAT_ACK: 5,
  ABORT: 6,
  SHUTDOWN: 7,
  SHUTDOWN_ACK: 8,
  ERROR: 9,
  COOKIE_ECHO: 10,
  COOKIE_ACK: 11,
  SHUTDOWN_COMPLETE: 14,
} as const;

/** Chunk names as tshark's sctp.chunk_type shows them. */
export const SCTP_CHUNK_NAMES: Readonly<Record<number, string>> = {
  0: "DATA",
  1: "INIT",
  2: "INIT_ACK",
  3: "SACK",
  4: "HEARTBEAT",
  5: "HEARTBEAT_ACK",
  6: "ABORT",
  7: "SHUTDOWN",
  8: "SHUTDOWN_ACK",
  9: "ERROR",
  10: "COOKIE_ECHO",
  11: "COOKIE_ACK",
  14: "SHUTDOWN_COMPLETE",
};

/** Parameter types of INIT / INIT ACK used here (RFC 4960 3.3.2.1, 3.3.3). */
export const SctpParamType = { IPV4_ADDRESS: 5, STATE_COOKIE: 7, SUPPORTED_ADDRESS_TYPES: 12 } as const;
/** ABORT's T bit: set when the sender had no association and reflects the received verification tag. */
export const SCTP_ABORT_T_BIT = 0x01;

export type SctpHeaderRepr = { srcPort: number; dstPort: number; verificationTag: number; checksum: number };

export type SctpInitRepr = {
  kind: "init" | "init-ack";
  initiateTag: number;
  aRwnd: number;
  outboundStreams: number;
  inboundStreams: number;
  initialTsn: number;
  /** The variable-length parameters, each TLV padded to 4 bytes (an INIT ACK's State Cookie among them). */
  params: Uint8Array;
};
export type SctpAbortRepr = { kind: "abort"; tBit: boolean; causes: Uint8Array };
export type SctpCookieEchoRepr = { kind: "cookie-echo"; cookie: Uint8Array };
export type SctpCookieAckRepr = { kind: "cookie-ack" };
export type SctpOtherChunkRepr = { kind: "other"; type: number; flags: number; value: Uint8Array };
export type SctpChunkRepr = SctpInitRepr | SctpAbortRepr | SctpCookieEchoRepr | SctpCookieAckRepr | SctpOtherChunkRepr;

// ---- CRC32c ---------------------------------------------------------------------------------------

const CRC32C_TABLE = new Uint32Array(256);
for (let n = 0; n < 256; n++) {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? (c >>> 1) ^ 0x82f63b78 : c >>> 1;
  CRC32C_TABLE[n] = c >>> 0;
}

/** CRC32c (Castagnoli, reflected polynomial 0x82F63B78) of bytes[start, end), initial and final inversion. */
export function crc32c(bytes: Uint8Array, start: number, end: number): number {
  let crc = 0xffffffff;
  for (let i = start; i < end; i++) crc = CRC32C_TABLE[(crc ^ bytes[i]!) & 0xff]! ^ (crc >>> 8);
  return ~crc >>> 0;
}

/** The packet's CRC32c with the checksum field taken as zero, without touching the bytes. */
function packetCrc(bytes: Uint8Array, offset: number, end: number): number {
  let crc = 0xffffffff;
  for (let i = offset; i < end; i++) {
    const b = i >= offset + 8 && i < offset + 12 ? 0 : bytes[i]!;
    crc = CRC32C_TABLE[(crc ^ b) & 0xff]! ^ (crc >>> 8);
  }
  return ~crc >>> 0;
}

/** The checksum field as a number: the CRC's low byte is the field's first byte (RFC 4960 appendix B). */
export function sctpStoredChecksum(bytes: Uint8Array, offset: number): number {
  return (bytes[offset + 8]! | (bytes[offset + 9]! << 8) | (bytes[offset + 10]! << 16) | (bytes[offset + 11]! << 24)) >>> 0;
}

/** Writes the CRC32c of the SCTP packet in [offset, end) into its checksum field. */
export function setSctpChecksum(bytes: Uint8Array, offset: number, end: number): void {
  if (offset < 0 || offset + SCTP_HEADER_LENGTH > clampEnd(bytes, end)) return;
  const crc = packetCrc(bytes, offset, clampEnd(bytes, end));
  bytes[offset + 8] = crc & 0xff;
  bytes[offset + 9] = (crc >>> 8) & 0xff;
  bytes[offset + 10] = (crc >>> 16) & 0xff;
  bytes[offset + 11] = crc >>> 24;
}

/** False also when [offset, end) does not hold a whole header inside the buffer. */
export function verifySctpChecksum(bytes: Uint8Array, offset: number, end: number): boolean {
  if (offset < 0 || offset + SCTP_HEADER_LENGTH > end || end > bytes.length) return false;
  return packetCrc(bytes, offset, end) === sctpStoredChecksum(bytes, offset);
}

// ---- common header ----------------------------------------------------------------------------------

export const sctpSrcPort = (bytes: Uint8Array, offset: number): number => read16(bytes, offset);
export const sctpDstPort = (bytes: Uint8Array, offset: number): number => read16(bytes, offset + 2);
export const sctpVerificationTag = (bytes: Uint8Array, offset: number): number => read32(bytes, offset + 4);

export function parseSctpHeader(bytes: Uint8Array, offset: number, end: number): Result<SctpHeaderRepr, WireError> {
  const bad = checkSpace("sctp", "header", offset, SCTP_HEADER_LENGTH, clampEnd(bytes, end));
  if (bad) return bad;
  return ok({ srcPort: sctpSrcPort(bytes, offset), dstPort: sctpDstPort(bytes, offset), verificationTag: sctpVerificationTag(bytes, offset), checksum: sctpStoredChecksum(bytes, offset) });
}

/** Writes the header with repr.checksum (fill the real one with setSctpChecksum after the chunks). */
export function emitSctpHeader(repr: SctpHeaderRepr, bytes: Uint8Array, offset: number): number {
  write16(bytes, offset, repr.srcPort);
  write16(bytes, offset + 2, repr.dstPort);
  write32(bytes, offset + 4, repr.verificationTag);
  bytes[offset + 8] = repr.checksum & 0xff;
  bytes[offset + 9] = (repr.checksum >>> 8) & 0xff;
  bytes[offset + 10] = (repr.checksum >>> 16) & 0xff;
  bytes[offset + 11] = repr.checksum >>> 24;
  return SCTP_HEADER_LENGTH;
}

// ---- chunks -----------------------------------------------------------------------------------------

const pad4 = (n: number): number => (n + 3) & ~3;

/** The chunk types in order, up to the first chunk that does not fit (dissect's summary of a packet). */
export function parseSctpChunkTypes(bytes: Uint8Array, offset: number, end: number): number[] {
  const stop = clampEnd(bytes, end);
  const types: number[] = [];
  let at = offset + SCTP_HEADER_LENGTH;
  while (at + SCTP_CHUNK_HEADER_LENGTH <= stop) {
    const length = read16(bytes, at + 2);
    types.push(bytes[at]!);
    if (length < SCTP_CHUNK_HEADER_LENGTH) break;
    at += pad4(length);
  }
  return types;
}

/** Every chunk after the common header at `offset` (cold path: copies each value). */
export function parseSctpChunks(bytes: Uint8Array, offset: number, end: number): Result<SctpChunkRepr[], WireError> {
  const stop = clampEnd(bytes, end);
  const out: SctpChunkRepr[] = [];
  let at = offset + SCTP_HEADER_LENGTH;
  while (at < stop) {
    const bad = checkSpace("sctp", "chunk", at, SCTP_CHUNK_HEADER_LENGTH, stop);
    if (bad) return bad;
    const length = read16(bytes, at + 2);
    if (length < SCTP_CHUNK_HEADER_LENGTH) return wireError("sctp", "chunk.length", at + 2, `length ${length} below 4`);
    if (at + length > stop) return wireError("sctp", "chunk.length", at + 2, `length ${length} runs past the packet (${stop - at} bytes left)`);
    const chunk = parseChunk(bytes, at, length);
    if (!chunk.ok) return chunk;
    out.push(chunk.value);
    at += pad4(length);
  }
  return ok(out);
}

function parseChunk(bytes: Uint8Array, at: number, length: number): Result<SctpChunkRepr, WireError> {
  const type = bytes[at]!;
  const flags = bytes[at + 1]!;
  const value = (from: number): Uint8Array => bytes.slice(at + from, at + length);
  switch (type) {
    case SctpChunkType.INIT:
    case SctpChunkType.INIT_ACK: {
      const name = type === SctpChunkType.INIT ? "init" : "init_ack";
      if (length < SCTP_INIT_FIXED_LENGTH) return wireError("sctp", `${name}.length`, at + 2, `length ${length} below ${SCTP_INIT_FIXED_LENGTH}`);
      const initiateTag = read32(bytes, at + 4);
      // RFC 4960 3.3.2: "If the value of the Initiate Tag in a received INIT chunk is found to be 0, the receiver MUST treat it as an error".
      if (initiateTag === 0) return wireError("sctp", `${name}.initiate_tag`, at + 4, "initiate tag 0");
      return ok({
        kind: type === SctpChunkType.INIT ? "init" : "init-ack",
        initiateTag,
        aRwnd: read32(bytes, at + 8),
        outboundStreams: read16(bytes, at + 12),
        inboundStreams: read16(bytes, at + 14),
        initialTsn: read32(bytes, at + 16),
        params: bytes.slice(at + SCTP_INIT_FIXED_LENGTH, at + pad4(length)),
      });
    }
    case SctpChunkType.ABORT:
      return ok({ kind: "abort", tBit: (flags & SCTP_ABORT_T_BIT) !== 0, causes: value(4) });
    case SctpChunkType.COOKIE_ECHO:
      return ok({ kind: "cookie-echo", cookie: value(4) });
    case SctpChunkType.COOKIE_ACK:
      return ok({ kind: "cookie-ack" });
    default:
      return ok({ kind: "other", type, flags, value: value(4) });
  }
}

/** Bytes the chunk occupies on the wire, padding included. */
export function sctpChunkLength(c: SctpChunkRepr): number {
  return pad4(chunkValueLength(c) + SCTP_CHUNK_HEADER_LENGTH);
}

function chunkValueLength(c: SctpChunkRepr): number {
  switch (c.kind) {
    case "init":
    case "init-ack":
      return SCTP_INIT_FIXED_LENGTH - SCTP_CHUNK_HEADER_LENGTH + c.params.length;
    case "abort":
      return c.causes.length;
    case "cookie-echo":
      return c.cookie.length;
    case "cookie-ack":
      return 0;
    case "other":
      return c.value.length;
  }
}

/** Writes the chunk (header, value, zero padding) at `at`; returns the bytes written. */
export function emitSctpChunk(c: SctpChunkRepr, bytes: Uint8Array, at: number): number {
  const length = chunkValueLength(c) + SCTP_CHUNK_HEADER_LENGTH;
  const padded = pad4(length);
  bytes.fill(0, at, at + padded);
  write16(bytes, at + 2, length);
  switch (c.kind) {
    case "init":
    case "init-ack":
      bytes[at] = c.kind === "init" ? SctpChunkType.INIT : SctpChunkType.INIT_ACK;
      write32(bytes, at + 4, c.initiateTag);
      write32(bytes, at + 8, c.aRwnd);
      write16(bytes, at + 12, c.outboundStreams);
      write16(bytes, at + 14, c.inboundStreams);
      write32(bytes, at + 16, c.initialTsn);
      bytes.set(c.params, at + SCTP_INIT_FIXED_LENGTH);
      // Parameters are padded individually; the chunk length leaves out the last one's padding.
      write16(bytes, at + 2, length - trailingPad(c.params));
      break;
    case "abort":
      bytes[at] = SctpChunkType.ABORT;
      bytes[at + 1] = c.tBit ? SCTP_ABORT_T_BIT : 0;
      bytes.set(c.causes, at + 4);
      break;
    case "cookie-echo":
      bytes[at] = SctpChunkType.COOKIE_ECHO;
      bytes.set(c.cookie, at + 4);
      break;
    case "cookie-ack":
      bytes[at] = SctpChunkType.COOKIE_ACK;
      break;
    case "other":
      bytes[at] = c.type;
      bytes[at + 1] = c.flags;
      bytes.set(c.value, at + 4);
      break;
  }
  return padded;
}

/** Padding after the last parameter of a TLV list (its length field says how much of it is value). */
function trailingPad(params: Uint8Array): number {
  let at = 0;
  let last = 0;
  while (at + 4 <= params.length) {
    const len = read16(params, at + 2);
    if (len < 4) return 0;
    last = pad4(len) - len;
    at += pad4(len);
  }
  return at === params.length ? last : 0;
}

/** One parameter TLV (type, length, value, zero padding to 4 bytes). */
export function sctpParam(type: number, value: Uint8Array): Uint8Array {
  const out = new Uint8Array(pad4(4 + value.length));
  write16(out, 0, type);
  write16(out, 2, 4 + value.length);
  out.set(value, 4);
  return out;
}

/** The value of the first parameter of `type` in a TLV list, or null. */
export function findSctpParam(params: Uint8Array, type: number): Uint8Array | null {
  let at = 0;
  while (at + 4 <= params.length) {
    const len = read16(params, at + 2);
    if (len < 4 || at + len > params.length) return null;
    if (read16(params, at) === type) return params.subarray(at + 4, at + len);
    at += pad4(len);
  }
  return null;
}

/** A whole SCTP packet (header + chunks) with its checksum. */
export function buildSctpPacket(header: Omit<SctpHeaderRepr, "checksum">, chunks: readonly SctpChunkRepr[]): Result<Uint8Array, WireError> {
  for (const p of [header.srcPort, header.dstPort]) if (!Number.isInteger(p) || p < 0 || p > 65535) return err({ layer: "sctp", field: "port", offset: 0, reason: `port ${p} not in 0..65535` });
  let size = SCTP_HEADER_LENGTH;
  for (const c of chunks) size += sctpChunkLength(c);
  const bytes = new Uint8Array(size);
  let at = emitSctpHeader({ ...header, checksum: 0 }, bytes, 0);
  for (const c of chunks) at += emitSctpChunk(c, bytes, at);
  setSctpChecksum(bytes, 0, size);
  return ok(bytes);
}

// Geneve (RFC 8926): 8-byte base header (version, options length, O and C bits, protocol type, VNI)
// followed by TLV options (class, type, 4-byte-unit length, data). Views, Repr, parse, emit.
import { ok, type Result } from "../util/result.js";
import { read16, read24, write16, write24, clampEnd } from "./bytes.js";
import { checkSpace, truncated, wireError, type WireError } from "./errors.js";

export const GENEVE_BASE_LENGTH = 8;
const OPTION_HEADER_LENGTH = 4;

/** `type` has the critical bit in 0x80; data length is a multiple of 4 (at most 124 bytes). */
export type GeneveOption = { optionClass: number; type: number; data: Uint8Array };

export type GeneveRepr = {
  version: number;
  oam: boolean;
  critical: boolean;
  /** EtherType of the payload: 0x6558 = Ethernet, 0x0800 = IPv4, 0x86dd = IPv6. */
  protocolType: number;
  vni: number;
  options: GeneveOption[];
};

export const geneveVersion = (bytes: Uint8Array, offset: number): number => bytes[offset]! >>> 6;
/** Length of the options in bytes. */
export const geneveOptionsLength = (bytes: Uint8Array, offset: number): number => (bytes[offset]! & 0x3f) * 4;
export const geneveHeaderLen = (bytes: Uint8Array, offset: number): number =>
  GENEVE_BASE_LENGTH + geneveOptionsLength(bytes, offset);
export const geneveProtocolType = (bytes: Uint8Array, offset: number): number => read16(bytes, offset + 2);
export const geneveVni = (bytes: Uint8Array, offset: number): number => read24(bytes, offset + 4);

export function parseGeneve(bytes: Uint8Array, offset: number, end: number): Result<GeneveRepr, WireError> {
  const limit = clampEnd(bytes, end);
  const bad = checkSpace("geneve", "header", offset, GENEVE_BASE_LENGTH, limit);
  if (bad) return bad;
  const version = geneveVersion(bytes, offset);
  if (version !== 0) return wireError("geneve", "version", offset, `version ${version}, expected 0`);
  const headerLength = geneveHeaderLen(bytes, offset);
  if (offset + headerLength > limit) return truncated("geneve", "options", offset, headerLength, limit);
  const options: GeneveOption[] = [];
  const optionsEnd = offset + headerLength;
  for (let at = offset + GENEVE_BASE_LENGTH; at < optionsEnd; ) {
    if (at + OPTION_HEADER_LENGTH > optionsEnd) return truncated("geneve", "option", at, OPTION_HEADER_LENGTH, optionsEnd);
    const dataLength = (bytes[at + 3]! & 0x1f) * 4;
    if (at + OPTION_HEADER_LENGTH + dataLength > optionsEnd) {
      return wireError("geneve", "option", at, `option data (${dataLength} bytes) overruns the options length`);
    }
    options.push({
      optionClass: read16(bytes, at),
      type: bytes[at + 2]!,
      data: bytes.slice(at + OPTION_HEADER_LENGTH, at + OPTION_HEADER_LENGTH + dataLength),
    });
    at += OPTION_HEADER_LENGTH + dataLength;
  }
  return ok({
    version,
    oam: (bytes[offset + 1]! & 0x80) !== 0,
    critical: (bytes[offset + 1]! & 0x40) !== 0,
    protocolType: geneveProtocolType(bytes, offset),
    vni: geneveVni(bytes, offset),
    options,
  });
}

export function geneveHeaderLength(repr: GeneveRepr): number {
  let length = GENEVE_BASE_LENGTH;
  for (const option of repr.options) length += OPTION_HEADER_LENGTH + option.data.length;
  return length;
}

export function emitGeneve(repr: GeneveRepr, bytes: Uint8Array, offset: number): number {
  const headerLength = geneveHeaderLength(repr);
  bytes[offset] = ((repr.version & 3) << 6) | (((headerLength - GENEVE_BASE_LENGTH) >>> 2) & 0x3f);
  bytes[offset + 1] = (repr.oam ? 0x80 : 0) | (repr.critical ? 0x40 : 0);
  write16(bytes, offset + 2, repr.protocolType);
  write24(bytes, offset + 4, repr.vni);
  bytes[offset + 7] = 0;
  let at = offset + GENEVE_BASE_LENGTH;
  for (const option of repr.options) {
    write16(bytes, at, option.optionClass);
    bytes[at + 2] = option.type;
    bytes[at + 3] = (option.data.length >>> 2) & 0x1f;
    bytes.set(option.data, at + OPTION_HEADER_LENGTH);
    at += OPTION_HEADER_LENGTH + option.data.length;
  }
  return headerLength;
}

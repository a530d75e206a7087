// ICMPv4 (RFC 792): 8-byte header (type, code, checksum, 32-bit rest-of-header), views, Repr, parse,
// emit. Echo messages carry id/sequence in the rest-of-header; error messages quote the offending datagram.
import { ok, type Result } from "../util/result.js";
import { read16, read32, write16, write32, clampEnd } from "./bytes.js";
import { checkSpace, type WireError } from "./errors.js";

export const ICMP_HEADER_LENGTH = 8;

export const IcmpType = {
  ECHO_REPLY: 0,
  DEST_UNREACHABLE: 3,
  SOURCE_QUENCH: 4,
  REDIRECT: 5,
  ECHO_REQUEST: 8,
  TIME_EXCEEDED: 11,
  PARAMETER_PROBLEM: 12,
} as const;

/** Both ICMPv4 and ICMPv6 share this shape. `rest` is bytes 4..7 as an unsigned 32-bit number. */
export type IcmpRepr = { type: number; code: number; checksum: number; rest: number };

export const icmpType = (bytes: Uint8Array, offset: number): number => bytes[offset]!;
export const icmpCode = (bytes: Uint8Array, offset: number): number => bytes[offset + 1]!;
export const icmpChecksum = (bytes: Uint8Array, offset: number): number => read16(bytes, offset + 2);
export const icmpEchoId = (bytes: Uint8Array, offset: number): number => read16(bytes, offset + 4);
export const icmpEchoSeq = (bytes: Uint8Array, offset: number): number => read16(bytes, offset + 6);

/** True for error messages that quote an IPv4 datagram after the 8-byte header. */
export function isIcmpError(type: number): boolean {
  return type === 3 || type === 4 || type === 5 || type === 11 || type === 12;
}

export function isIcmpEcho(type: number): boolean {
  return type === IcmpType.ECHO_REQUEST || type === IcmpType.ECHO_REPLY;
}

/** Shared by ICMPv4 and ICMPv6 (layer names the protocol in errors). */
export function parseIcmpHeader(
  layer: string,
  bytes: Uint8Array,
  offset: number,
  end: number,
): Result<IcmpRepr, WireError> {
  const bad = checkSpace(layer, "header", offset, ICMP_HEADER_LENGTH, clampEnd(bytes, end));
  if (bad) return bad;
  return ok({
    type: icmpType(bytes, offset),
    code: icmpCode(bytes, offset),
    checksum: icmpChecksum(bytes, offset),
    rest: read32(bytes, offset + 4),
  });
}

export function parseIcmp(bytes: Uint8Array, offset: number, end: number): Result<IcmpRepr, WireError> {
  return parseIcmpHeader("icmp", bytes, offset, end);
}

export function icmpHeaderLength(_repr: IcmpRepr): number {
  return ICMP_HEADER_LENGTH;
}

/** Writes the header with repr.checksum; fill the real checksum after the payload with setL4ChecksumV4. */
export function emitIcmp(repr: IcmpRepr, bytes: Uint8Array, offset: number): number {
  bytes[offset] = repr.type;
  bytes[offset + 1] = repr.code;
  write16(bytes, offset + 2, repr.checksum);
  write32(bytes, offset + 4, repr.rest);
  return ICMP_HEADER_LENGTH;
}

/** The rest-of-header word of an echo message. */
export function icmpEchoRest(identifier: number, sequence: number): number {
  return (((identifier & 0xffff) << 16) | (sequence & 0xffff)) >>> 0;
}

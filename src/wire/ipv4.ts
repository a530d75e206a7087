// IPv4 header (RFC 791): views, Repr with options, flags and fragment offset, parse and emit.
// parse validates the header itself (version, IHL, total length >= header, option TLVs); whether the
// whole datagram is present is the caller's question (a capture cut by snaplen still has a header).
import { ok, type Result } from "../util/result.js";
import { read16, read32, write16, write32, clampEnd } from "./bytes.js";
import { checkSpace, truncated, wireError, type WireError } from "./errors.js";
import { setIpv4HeaderChecksum } from "./checksum.js";

export const IPV4_MIN_HEADER_LENGTH = 20;
export const IPV4_FLAG_DF = 0x4000;
export const IPV4_FLAG_MF = 0x2000;

export type Ipv4Repr = {
  dscp: number;
  ecn: number;
  totalLength: number;
  identification: number;
  dontFragment: boolean;
  moreFragments: boolean;
  /** In bytes (the wire field counts 8-byte units). */
  fragmentOffset: number;
  ttl: number;
  protocol: number;
  /** As read; emit always computes a fresh header checksum. */
  checksum: number;
  src: number;
  dst: number;
  /** Raw option bytes; emit pads them with zeros (EOL) to a multiple of 4. */
  options: Uint8Array;
};

export const ipv4Version = (bytes: Uint8Array, offset: number): number => bytes[offset]! >>> 4;
export const ipv4HeaderLen = (bytes: Uint8Array, offset: number): number => (bytes[offset]! & 0x0f) * 4;
export const ipv4Tos = (bytes: Uint8Array, offset: number): number => bytes[offset + 1]!;
export const ipv4TotalLength = (bytes: Uint8Array, offset: number): number => read16(bytes, offset + 2);
export const ipv4Identification = (bytes: Uint8Array, offset: number): number => read16(bytes, offset + 4);
/** The 16-bit flags + fragment-offset word. */
export const ipv4FragWord = (bytes: Uint8Array, offset: number): number => read16(bytes, offset + 6);
export const ipv4FragmentOffsetBytes = (bytes: Uint8Array, offset: number): number =>
  (read16(bytes, offset + 6) & 0x1fff) * 8;
export const ipv4Ttl = (bytes: Uint8Array, offset: number): number => bytes[offset + 8]!;
export const ipv4Protocol = (bytes: Uint8Array, offset: number): number => bytes[offset + 9]!;
export const ipv4Checksum = (bytes: Uint8Array, offset: number): number => read16(bytes, offset + 10);
export const ipv4Src = (bytes: Uint8Array, offset: number): number => read32(bytes, offset + 12);
export const ipv4Dst = (bytes: Uint8Array, offset: number): number => read32(bytes, offset + 16);

/** Checks the option TLVs in bytes[start, end); returns the offending option's error or null. */
export function checkIpv4Options(bytes: Uint8Array, start: number, end: number): WireError | null {
  let i = start;
  while (i < end) {
    const type = bytes[i]!;
    if (type === 0) return null; // end of option list; the rest is padding
    if (type === 1) {
      i++;
      continue;
    }
    if (i + 1 >= end) return wireError("ipv4", "options", i, `option ${type} has no length byte`).error;
    const len = bytes[i + 1]!;
    if (len < 2 || i + len > end) return wireError("ipv4", "options", i, `option ${type} length ${len} does not fit`).error;
    i += len;
  }
  return null;
}

export function parseIpv4(bytes: Uint8Array, offset: number, end: number): Result<Ipv4Repr, WireError> {
  const limit = clampEnd(bytes, end);
  const bad = checkSpace("ipv4", "header", offset, IPV4_MIN_HEADER_LENGTH, limit);
  if (bad) return bad;
  const version = ipv4Version(bytes, offset);
  if (version !== 4) return wireError("ipv4", "version", offset, `version ${version}, expected 4`);
  const headerLength = ipv4HeaderLen(bytes, offset);
  if (headerLength < IPV4_MIN_HEADER_LENGTH) {
    return wireError("ipv4", "ihl", offset, `header length ${headerLength} below 20`);
  }
  if (offset + headerLength > limit) return truncated("ipv4", "options", offset, headerLength, limit);
  const totalLength = ipv4TotalLength(bytes, offset);
  if (totalLength < headerLength) {
    return wireError("ipv4", "totalLength", offset + 2, `total length ${totalLength} below header length ${headerLength}`);
  }
  const optionError = checkIpv4Options(bytes, offset + IPV4_MIN_HEADER_LENGTH, offset + headerLength);
  if (optionError) return { ok: false, error: optionError };
  const frag = ipv4FragWord(bytes, offset);
  const tos = ipv4Tos(bytes, offset);
  return ok({
    dscp: tos >>> 2,
    ecn: tos & 3,
    totalLength,
    identification: ipv4Identification(bytes, offset),
    dontFragment: (frag & IPV4_FLAG_DF) !== 0,
    moreFragments: (frag & IPV4_FLAG_MF) !== 0,
    fragmentOffset: (frag & 0x1fff) * 8,
    ttl: ipv4Ttl(bytes, offset),
    protocol: ipv4Protocol(bytes, offset),
    checksum: ipv4Checksum(bytes, offset),
    src: ipv4Src(bytes, offset),
    dst: ipv4Dst(bytes, offset),
    options: bytes.slice(offset + IPV4_MIN_HEADER_LENGTH, offset + headerLength),
  });
}

export function ipv4HeaderLength(repr: Ipv4Repr): number {
  return IPV4_MIN_HEADER_LENGTH + ((repr.options.length + 3) & ~3);
}

/** Writes the header with a freshly computed checksum (the reserved flag is written as 0). */
export function emitIpv4(repr: Ipv4Repr, bytes: Uint8Array, offset: number): number {
  const headerLength = ipv4HeaderLength(repr);
  bytes[offset] = 0x40 | (headerLength >>> 2);
  bytes[offset + 1] = ((repr.dscp & 0x3f) << 2) | (repr.ecn & 3);
  write16(bytes, offset + 2, repr.totalLength);
  write16(bytes, offset + 4, repr.identification);
  const flags = (repr.dontFragment ? IPV4_FLAG_DF : 0) | (repr.moreFragments ? IPV4_FLAG_MF : 0);
  write16(bytes, offset + 6, flags | ((repr.fragmentOffset >>> 3) & 0x1fff));
  bytes[offset + 8] = repr.ttl;
  bytes[offset + 9] = repr.protocol;
  write32(bytes, offset + 12, repr.src);
  write32(bytes, offset + 16, repr.dst);
  bytes.set(repr.options, offset + IPV4_MIN_HEADER_LENGTH);
  bytes.fill(0, offset + IPV4_MIN_HEADER_LENGTH + repr.options.length, offset + headerLength);
  setIpv4HeaderChecksum(bytes, offset, headerLength);
  return headerLength;
}

// IPv6 fixed header (RFC 8200) and its extension-header chain: hop-by-hop, routing, fragment,
// destination options and AH are walked to the upper-layer protocol. Views, Repr, parse, emit.
// As for IPv4, parse checks the headers; whether the whole payload was captured is the caller's question.
import { ok, type Result } from "../util/result.js";
import { read16, read32, write16, write32, clampEnd } from "./bytes.js";
import { checkSpace, truncated, wireError, type WireError } from "./errors.js";

export const IPV6_HEADER_LENGTH = 40;

export const Ipv6NextHeader = {
  HOP_BY_HOP: 0,
  ROUTING: 43,
  FRAGMENT: 44,
  ESP: 50,
  AH: 51,
  NO_NEXT_HEADER: 59,
  DESTINATION_OPTIONS: 60,
} as const;

/**
 * Extension headers; `body` is everything after the next-header and length octets, so 2 + body.length
 * must be a multiple of 8 (AH: of 4). The fragment header is decoded (offset in bytes).
 */
export type Ipv6ExtensionRepr =
  | { type: 0 | 43 | 60 | 51; body: Uint8Array }
  | { type: 44; fragmentOffset: number; moreFragments: boolean; identification: number };

export type Ipv6Repr = {
  trafficClass: number;
  flowLabel: number;
  payloadLength: number;
  hopLimit: number;
  src: Uint8Array;
  dst: Uint8Array;
  extensions: Ipv6ExtensionRepr[];
  /** The upper-layer protocol after the extension chain (59 = none; 50 = ESP, which ends the walk). */
  protocol: number;
};

export const ipv6Version = (bytes: Uint8Array, offset: number): number => bytes[offset]! >>> 4;
export const ipv6TrafficClass = (bytes: Uint8Array, offset: number): number => (read16(bytes, offset) >>> 4) & 0xff;
export const ipv6FlowLabel = (bytes: Uint8Array, offset: number): number => read32(bytes, offset) & 0xfffff;
export const ipv6PayloadLength = (bytes: Uint8Array, offset: number): number => read16(bytes, offset + 4);
export const ipv6NextHeader = (bytes: Uint8Array, offset: number): number => bytes[offset + 6]!;
export const ipv6HopLimit = (bytes: Uint8Array, offset: number): number => bytes[offset + 7]!;
export const ipv6SrcOffset = (offset: number): number => offset + 8;
export const ipv6DstOffset = (offset: number): number => offset + 24;

/** True for the next-header values this layer walks past to find the upper layer. */
export function isIpv6Extension(nextHeader: number): boolean {
  return nextHeader === 0 || nextHeader === 43 || nextHeader === 44 || nextHeader === 51 || nextHeader === 60;
}

/** Length in bytes of the extension header of `type` at offset (needs its first 2 bytes readable). */
export function ipv6ExtensionLengthAt(bytes: Uint8Array, offset: number, type: number): number {
  if (type === Ipv6NextHeader.FRAGMENT) return 8;
  if (type === Ipv6NextHeader.AH) return (bytes[offset + 1]! + 2) * 4;
  return (bytes[offset + 1]! + 1) * 8;
}

export function ipv6ExtensionLength(ext: Ipv6ExtensionRepr): number {
  return ext.type === Ipv6NextHeader.FRAGMENT ? 8 : 2 + ext.body.length;
}

function parseExtension(
  bytes: Uint8Array,
  at: number,
  type: number,
  length: number,
): Ipv6ExtensionRepr {
  if (type === Ipv6NextHeader.FRAGMENT) {
    const word = read16(bytes, at + 2);
    return { type: 44, fragmentOffset: word & 0xfff8, moreFragments: (word & 1) !== 0, identification: read32(bytes, at + 4) };
  }
  return { type: type as 0 | 43 | 60 | 51, body: bytes.slice(at + 2, at + length) };
}

export function parseIpv6(bytes: Uint8Array, offset: number, end: number): Result<Ipv6Repr, WireError> {
  const limit = clampEnd(bytes, end);
  const bad = checkSpace("ipv6", "header", offset, IPV6_HEADER_LENGTH, limit);
  if (bad) return bad;
  const version = ipv6Version(bytes, offset);
  if (version !== 6) return wireError("ipv6", "version", offset, `version ${version}, expected 6`);
  const payloadLength = ipv6PayloadLength(bytes, offset);
  const payloadEnd = offset + IPV6_HEADER_LENGTH + payloadLength;
  const extensions: Ipv6ExtensionRepr[] = [];
  let type = ipv6NextHeader(bytes, offset);
  let at = offset + IPV6_HEADER_LENGTH;
  while (isIpv6Extension(type)) {
    if (type === Ipv6NextHeader.HOP_BY_HOP && extensions.length > 0) {
      return wireError("ipv6", "nextHeader", at, "hop-by-hop options header not first in the chain");
    }
    const short = checkSpace("ipv6", "extension", at, 2, limit);
    if (short) return short;
    const length = ipv6ExtensionLengthAt(bytes, at, type);
    if (at + length > payloadEnd) {
      return wireError("ipv6", "extension", at, `extension header ${type} (${length} bytes) overruns payload length ${payloadLength}`);
    }
    if (at + length > limit) return truncated("ipv6", "extension", at, length, limit);
    const ext = parseExtension(bytes, at, type, length);
    extensions.push(ext);
    type = bytes[at]!;
    at += length;
    if (ext.type === Ipv6NextHeader.FRAGMENT && ext.fragmentOffset !== 0) break; // upper header is in fragment 0
  }
  return ok({
    trafficClass: ipv6TrafficClass(bytes, offset),
    flowLabel: ipv6FlowLabel(bytes, offset),
    payloadLength,
    hopLimit: ipv6HopLimit(bytes, offset),
    src: bytes.slice(offset + 8, offset + 24),
    dst: bytes.slice(offset + 24, offset + 40),
    extensions,
    protocol: type,
  });
}

/** Fixed header plus every extension header. */
export function ipv6HeaderLength(repr: Ipv6Repr): number {
  let length = IPV6_HEADER_LENGTH;
  for (const ext of repr.extensions) length += ipv6ExtensionLength(ext);
  return length;
}

/** Writes the fixed header and the extension chain, linking next-header fields down to repr.protocol. */
export function emitIpv6(repr: Ipv6Repr, bytes: Uint8Array, offset: number): number {
  write32(bytes, offset, (0x60000000 | ((repr.trafficClass & 0xff) << 20) | (repr.flowLabel & 0xfffff)) >>> 0);
  write16(bytes, offset + 4, repr.payloadLength);
  const first = repr.extensions[0];
  bytes[offset + 6] = first ? first.type : repr.protocol;
  bytes[offset + 7] = repr.hopLimit;
  bytes.set(repr.src.subarray(0, 16), offset + 8);
  bytes.set(repr.dst.subarray(0, 16), offset + 24);
  let at = offset + IPV6_HEADER_LENGTH;
  repr.extensions.forEach((ext, i) => {
    const next = repr.extensions[i + 1];
    bytes[at] = next ? next.type : repr.protocol;
    const length = ipv6ExtensionLength(ext);
    if (ext.type === Ipv6NextHeader.FRAGMENT) {
      bytes[at + 1] = 0;
      write16(bytes, at + 2, (ext.fragmentOffset & 0xfff8) | (ext.moreFragments ? 1 : 0));
      write32(bytes, at + 4, ext.identification);
    } else {
      bytes[at + 1] = ext.type === Ipv6NextHeader.AH ? length / 4 - 2 : length / 8 - 1;
      bytes.set(ext.body, at + 2);
    }
    at += length;
  });
  return at - offset;
}

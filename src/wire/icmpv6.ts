// ICMPv6 (RFC 4443) and the neighbour-discovery types (RFC 4861): same 8-byte header shape as
// ICMPv4 (shared Repr), but the checksum covers the IPv6 pseudo-header (setL4ChecksumV6).
import type { Result } from "../util/result.js";
import type { WireError } from "./errors.js";
import { ICMP_HEADER_LENGTH, emitIcmp, parseIcmpHeader, type IcmpRepr } from "./icmp.js";

export const ICMPV6_HEADER_LENGTH = ICMP_HEADER_LENGTH;

export const Icmpv6Type = {
  DEST_UNREACHABLE: 1,
  PACKET_TOO_BIG: 2,
  TIME_EXCEEDED: 3,
  PARAMETER_PROBLEM: 4,
  ECHO_REQUEST: 128,
  ECHO_REPLY: 129,
  ROUTER_SOLICITATION: 133,
  ROUTER_ADVERTISEMENT: 134,
  NEIGHBOR_SOLICITATION: 135,
  NEIGHBOR_ADVERTISEMENT: 136,
  REDIRECT: 137,
} as const;

export type Icmpv6Repr = IcmpRepr;

/** Error messages (types 1..4) quote the offending IPv6 packet after the 8-byte header. */
export function isIcmpv6Error(type: number): boolean {
  return type >= 1 && type <= 4;
}

export function isIcmpv6Echo(type: number): boolean {
  return type === Icmpv6Type.ECHO_REQUEST || type === Icmpv6Type.ECHO_REPLY;
}

/** Neighbour solicitation/advertisement and redirect carry a 16-byte target address at offset + 8. */
export function icmpv6HasTarget(type: number): boolean {
  return type === 135 || type === 136 || type === 137;
}

export function parseIcmpv6(bytes: Uint8Array, offset: number, end: number): Result<Icmpv6Repr, WireError> {
  return parseIcmpHeader("icmpv6", bytes, offset, end);
}

export function icmpv6HeaderLength(_repr: Icmpv6Repr): number {
  return ICMPV6_HEADER_LENGTH;
}

export function emitIcmpv6(repr: Icmpv6Repr, bytes: Uint8Array, offset: number): number {
  return emitIcmp(repr, bytes, offset);
}

// UDP header (RFC 768): views, Repr, parse, emit. parse checks the header and that length >= 8;
// the caller compares length with the IP payload (it may exceed a capture cut by snaplen).
import { ok, type Result } from "../util/result.js";
import { read16, write16, clampEnd } from "./bytes.js";
import { checkSpace, wireError, type WireError } from "./errors.js";

export const UDP_HEADER_LENGTH = 8;

/** Well-known UDP ports of the tunnels this layer decodes. */
export const UdpPort = { VXLAN: 4789, VXLAN_LINUX: 8472, GENEVE: 6081 } as const;

export type UdpRepr = { srcPort: number; dstPort: number; length: number; checksum: number };

export const udpSrcPort = (bytes: Uint8Array, offset: number): number => read16(bytes, offset);
export const udpDstPort = (bytes: Uint8Array, offset: number): number => read16(bytes, offset + 2);
export const udpLength = (bytes: Uint8Array, offset: number): number => read16(bytes, offset + 4);
export const udpChecksum = (bytes: Uint8Array, offset: number): number => read16(bytes, offset + 6);

export function parseUdp(bytes: Uint8Array, offset: number, end: number): Result<UdpRepr, WireError> {
  const bad = checkSpace("udp", "header", offset, UDP_HEADER_LENGTH, clampEnd(bytes, end));
  if (bad) return bad;
  const length = udpLength(bytes, offset);
  if (length < UDP_HEADER_LENGTH) return wireError("udp", "length", offset + 4, `length ${length} below 8`);
  return ok({ srcPort: udpSrcPort(bytes, offset), dstPort: udpDstPort(bytes, offset), length, checksum: udpChecksum(bytes, offset) });
}

export function udpHeaderLength(_repr: UdpRepr): number {
  return UDP_HEADER_LENGTH;
}

/** Writes the header with repr.checksum; fill the real one after the payload with setL4ChecksumV4/V6. */
export function emitUdp(repr: UdpRepr, bytes: Uint8Array, offset: number): number {
  write16(bytes, offset, repr.srcPort);
  write16(bytes, offset + 2, repr.dstPort);
  write16(bytes, offset + 4, repr.length);
  write16(bytes, offset + 6, repr.checksum);
  return UDP_HEADER_LENGTH;
}

// Linux "cooked" capture headers: SLL (link type 113, 16 bytes) and SLL2 (link type 276, 20 bytes),
// what `tcpdump -i any` writes. Views, Repr, parse and emit; `protocol` is an EtherType.
import { ok, type Result } from "../util/result.js";
import { read16, read32, write16, write32, clampEnd } from "./bytes.js";
import { checkSpace, type WireError } from "./errors.js";

export const SLL_HEADER_LENGTH = 16;
export const SLL2_HEADER_LENGTH = 20;
const MAX_ADDRESS_LENGTH = 8;

/** Packet types as the kernel's PACKET_* constants (0 host, 1 broadcast, 2 multicast, 3 other host, 4 outgoing). */
export type SllRepr = {
  packetType: number;
  arphrdType: number;
  /** Link-layer source address: the first 8 bytes at most, as libpcap stores it. */
  address: Uint8Array;
  protocol: number;
  /** SLL2 only (0 in SLL). */
  interfaceIndex: number;
};

export function parseSll(bytes: Uint8Array, offset: number, end: number): Result<SllRepr, WireError> {
  const bad = checkSpace("sll", "header", offset, SLL_HEADER_LENGTH, clampEnd(bytes, end));
  if (bad) return bad;
  const addressLength = Math.min(read16(bytes, offset + 4), MAX_ADDRESS_LENGTH);
  return ok({
    packetType: read16(bytes, offset),
    arphrdType: read16(bytes, offset + 2),
    address: bytes.slice(offset + 6, offset + 6 + addressLength),
    protocol: read16(bytes, offset + 14),
    interfaceIndex: 0,
  });
}

export function parseSll2(bytes: Uint8Array, offset: number, end: number): Result<SllRepr, WireError> {
  const bad = checkSpace("sll", "header", offset, SLL2_HEADER_LENGTH, clampEnd(bytes, end));
  if (bad) return bad;
  const addressLength = Math.min(bytes[offset + 11]!, MAX_ADDRESS_LENGTH);
  return ok({
    packetType: bytes[offset + 10]!,
    arphrdType: read16(bytes, offset + 8),
    address: bytes.slice(offset + 12, offset + 12 + addressLength),
    protocol: read16(bytes, offset),
    interfaceIndex: read32(bytes, offset + 4),
  });
}

export function emitSll(repr: SllRepr, bytes: Uint8Array, offset: number): number {
  bytes.fill(0, offset, offset + SLL_HEADER_LENGTH);
  write16(bytes, offset, repr.packetType);
  write16(bytes, offset + 2, repr.arphrdType);
  write16(bytes, offset + 4, repr.address.length);
  bytes.set(repr.address.subarray(0, MAX_ADDRESS_LENGTH), offset + 6);
  write16(bytes, offset + 14, repr.protocol);
  return SLL_HEADER_LENGTH;
}

export function emitSll2(repr: SllRepr, bytes: Uint8Array, offset: number): number {
  bytes.fill(0, offset, offset + SLL2_HEADER_LENGTH);
  write16(bytes, offset, repr.protocol);
  write32(bytes, offset + 4, repr.interfaceIndex);
  write16(bytes, offset + 8, repr.arphrdType);
  bytes[offset + 10] = repr.packetType;
  bytes[offset + 11] = repr.address.length;
  bytes.set(repr.address.subarray(0, MAX_ADDRESS_LENGTH), offset + 12);
  return SLL2_HEADER_LENGTH;
}

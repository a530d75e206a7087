// ARP for Ethernet/IPv4 (RFC 826): the 28-byte packet, views, Repr, parse and emit.
// Other hardware/protocol types are reported as an error naming the field, not guessed at.
import { ok, type Result } from "../util/result.js";
import { readMac, writeMac } from "../util/mac.js";
import { read16, read32, write16, write32, clampEnd } from "./bytes.js";
import { checkSpace, wireError, type WireError } from "./errors.js";

export const ARP_LENGTH = 28;
export const ArpOperation = { REQUEST: 1, REPLY: 2 } as const;

export type ArpRepr = { operation: number; senderMac: number; senderIp: number; targetMac: number; targetIp: number };

export const arpHardwareType = (bytes: Uint8Array, offset: number): number => read16(bytes, offset);
export const arpProtocolType = (bytes: Uint8Array, offset: number): number => read16(bytes, offset + 2);
export const arpOperation = (bytes: Uint8Array, offset: number): number => read16(bytes, offset + 6);
export const arpSenderMac = (bytes: Uint8Array, offset: number): number => readMac(bytes, offset + 8);
export const arpSenderIp = (bytes: Uint8Array, offset: number): number => read32(bytes, offset + 14);
export const arpTargetMac = (bytes: Uint8Array, offset: number): number => readMac(bytes, offset + 18);
export const arpTargetIp = (bytes: Uint8Array, offset: number): number => read32(bytes, offset + 24);

export function parseArp(bytes: Uint8Array, offset: number, end: number): Result<ArpRepr, WireError> {
  const bad = checkSpace("arp", "packet", offset, ARP_LENGTH, clampEnd(bytes, end));
  if (bad) return bad;
  if (arpHardwareType(bytes, offset) !== 1) {
    return wireError("arp", "hardwareType", offset, `hardware type ${arpHardwareType(bytes, offset)} is not Ethernet (1)`);
  }
  if (arpProtocolType(bytes, offset) !== 0x0800) {
    return wireError("arp", "protocolType", offset + 2, `protocol type 0x${arpProtocolType(bytes, offset).toString(16)} is not IPv4`);
  }
  if (bytes[offset + 4] !== 6 || bytes[offset + 5] !== 4) {
    return wireError("arp", "addressLengths", offset + 4, `address lengths ${bytes[offset + 4]}/${bytes[offset + 5]}, expected 6/4`);
  }
  return ok({
    operation: arpOperation(bytes, offset),
    senderMac: arpSenderMac(bytes, offset),
    senderIp: arpSenderIp(bytes, offset),
    targetMac: arpTargetMac(bytes, offset),
    targetIp: arpTargetIp(bytes, offset),
  });
}

export function arpHeaderLength(_repr: ArpRepr): number {
  return ARP_LENGTH;
}

export function emitArp(repr: ArpRepr, bytes: Uint8Array, offset: number): number {
  write16(bytes, offset, 1);
  write16(bytes, offset + 2, 0x0800);
  bytes[offset + 4] = 6;
  bytes[offset + 5] = 4;
  write16(bytes, offset + 6, repr.operation);
  writeMac(bytes, offset + 8, repr.senderMac);
  write32(bytes, offset + 14, repr.senderIp);
  writeMac(bytes, offset + 18, repr.targetMac);
  write32(bytes, offset + 24, repr.targetIp);
  return ARP_LENGTH;
}

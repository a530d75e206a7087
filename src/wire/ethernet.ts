// Ethernet II header (destination MAC, source MAC, EtherType): views, Repr, parse and emit.
// MACs are 48-bit integers (util/mac); an EtherType <= 1500 is an 802.3 length, kept as read.
import { ok, type Result } from "../util/result.js";
import { readMac, writeMac } from "../util/mac.js";
import { read16, write16, clampEnd } from "./bytes.js";
import { checkSpace, type WireError } from "./errors.js";

export const ETHERNET_HEADER_LENGTH = 14;

export const EtherType = {
  IPV4: 0x0800,
  ARP: 0x0806,
  VLAN: 0x8100,
  QINQ: 0x88a8,
  VLAN_LEGACY_QINQ: 0x9100,
  IPV6: 0x86dd,
  TRANSPARENT_ETHERNET: 0x6558,
} as const;

export type EthernetRepr = { dst: number; src: number; etherType: number };

export const ethernetDst = (bytes: Uint8Array, offset: number): number => readMac(bytes, offset);
export const ethernetSrc = (bytes: Uint8Array, offset: number): number => readMac(bytes, offset + 6);
export const ethernetType = (bytes: Uint8Array, offset: number): number => read16(bytes, offset + 12);

export function parseEthernet(bytes: Uint8Array, offset: number, end: number): Result<EthernetRepr, WireError> {
  const bad = checkSpace("eth", "header", offset, ETHERNET_HEADER_LENGTH, clampEnd(bytes, end));
  if (bad) return bad;
  return ok({ dst: ethernetDst(bytes, offset), src: ethernetSrc(bytes, offset), etherType: ethernetType(bytes, offset) });
}

export function ethernetHeaderLength(_repr: EthernetRepr): number {
  return ETHERNET_HEADER_LENGTH;
}

export function emitEthernet(repr: EthernetRepr, bytes: Uint8Array, offset: number): number {
  writeMac(bytes, offset, repr.dst);
  writeMac(bytes, offset + 6, repr.src);
  write16(bytes, offset + 12, repr.etherType);
  return ETHERNET_HEADER_LENGTH;
}

/** True for the TPIDs that introduce an 802.1Q/802.1ad tag. */
export function isVlanTpid(etherType: number): boolean {
  return etherType === EtherType.VLAN || etherType === EtherType.QINQ || etherType === EtherType.VLAN_LEGACY_QINQ;
}

// 802.1Q / 802.1ad tag body: the 16-bit TCI (priority, drop-eligible bit, VLAN id) and the EtherType
// that follows. The TPID (0x8100, 0x88a8) is the EtherType of the header before it, so tags stack.
import { ok, type Result } from "../util/result.js";
import { read16, write16, clampEnd } from "./bytes.js";
import { checkSpace, type WireError } from "./errors.js";

export const VLAN_TAG_LENGTH = 4;

export type VlanRepr = { pcp: number; dei: boolean; vid: number; etherType: number };

export const vlanTci = (bytes: Uint8Array, offset: number): number => read16(bytes, offset);
export const vlanId = (bytes: Uint8Array, offset: number): number => read16(bytes, offset) & 0x0fff;
export const vlanPcp = (bytes: Uint8Array, offset: number): number => bytes[offset]! >>> 5;
export const vlanEtherType = (bytes: Uint8Array, offset: number): number => read16(bytes, offset + 2);

export function parseVlan(bytes: Uint8Array, offset: number, end: number): Result<VlanRepr, WireError> {
  const bad = checkSpace("vlan", "tag", offset, VLAN_TAG_LENGTH, clampEnd(bytes, end));
  if (bad) return bad;
  const tci = vlanTci(bytes, offset);
  return ok({ pcp: tci >>> 13, dei: (tci & 0x1000) !== 0, vid: tci & 0x0fff, etherType: vlanEtherType(bytes, offset) });
}

export function vlanHeaderLength(_repr: VlanRepr): number {
  return VLAN_TAG_LENGTH;
}

/** Writes the tag; fields are masked to their widths (pcp 3 bits, vid 12 bits). */
export function emitVlan(repr: VlanRepr, bytes: Uint8Array, offset: number): number {
  write16(bytes, offset, ((repr.pcp & 7) << 13) | (repr.dei ? 0x1000 : 0) | (repr.vid & 0x0fff));
  write16(bytes, offset + 2, repr.etherType);
  return VLAN_TAG_LENGTH;
}

// VXLAN header (RFC 7348): 8 bits of flags (I = 0x08 says the VNI is valid), 24 reserved bits,
// a 24-bit VNI and 8 reserved bits. Reserved bits are ignored on parse and written as zero.
import { ok, type Result } from "../util/result.js";
import { read24, write24, clampEnd } from "./bytes.js";
import { checkSpace, wireError, type WireError } from "./errors.js";

export const VXLAN_HEADER_LENGTH = 8;
export const VXLAN_FLAG_I = 0x08;

export type VxlanRepr = { flags: number; vni: number };

export const vxlanFlags = (bytes: Uint8Array, offset: number): number => bytes[offset]!;
export const vxlanVni = (bytes: Uint8Array, offset: number): number => read24(bytes, offset + 4);

/** Rejects a header without the I flag, as the RFC requires of receivers ("MUST be set"). */
export function parseVxlan(bytes: Uint8Array, offset: number, end: number): Result<VxlanRepr, WireError> {
  const bad = checkSpace("vxlan", "header", offset, VXLAN_HEADER_LENGTH, clampEnd(bytes, end));
  if (bad) return bad;
  const flags = vxlanFlags(bytes, offset);
  if ((flags & VXLAN_FLAG_I) === 0) {
    return wireError("vxlan", "flags", offset, `I flag not set (flags 0x${flags.toString(16).padStart(2, "0")})`);
  }
  return ok({ flags, vni: vxlanVni(bytes, offset) });
}

export function vxlanHeaderLength(_repr: VxlanRepr): number {
  return VXLAN_HEADER_LENGTH;
}

export function emitVxlan(repr: VxlanRepr, bytes: Uint8Array, offset: number): number {
  bytes.fill(0, offset, offset + VXLAN_HEADER_LENGTH);
  bytes[offset] = repr.flags;
  write24(bytes, offset + 4, repr.vni);
  return VXLAN_HEADER_LENGTH;
}

// Small IPv4 prefix helpers for the IPAMs (integers, control plane only).
import { formatIPv4, ipv4Mask } from "../../util/ip.js";

export interface Prefix4 {
  readonly address: number;
  readonly prefixLength: number;
}

export function prefixSize(p: Prefix4): number {
  return 2 ** (32 - p.prefixLength);
}

export function inPrefix(p: Prefix4, addr: number): boolean {
  return ((addr & ipv4Mask(p.prefixLength)) >>> 0) === p.address >>> 0;
}

export function formatPrefix(p: Prefix4): string {
  return `${formatIPv4(p.address)}/${p.prefixLength}`;
}

/** The prefix of length `len` containing addr. */
export function enclosing(addr: number, len: number): Prefix4 {
  return { address: (addr & ipv4Mask(len)) >>> 0, prefixLength: len };
}

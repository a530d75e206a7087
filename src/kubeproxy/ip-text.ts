// IPv4 text as the API objects carry it, read the way Kubernetes reads it (netutils.ParseIPSloppy /
// ParseCIDRSloppy: leading zeros are decimal, a CIDR is reduced to its network), so the rules
// kube-proxy writes always hold canonical addresses.
import { formatIPv4, ipv4Mask } from "../util/ip.js";

/** Dotted quad with optional leading zeros per octet; null when malformed or not IPv4. */
export function parseIPv4Sloppy(text: string): number | null {
  const parts = text.split(".");
  if (parts.length !== 4) return null;
  let value = 0;
  for (const part of parts) {
    if (!/^\d{1,9}$/.test(part)) return null;
    const octet = Number(part);
    if (octet > 255) return null;
    value = value * 256 + octet;
  }
  return value >>> 0;
}

export interface Cidr {
  readonly address: number;
  readonly prefixLength: number;
}

/** "a.b.c.d/n" with sloppy octets, masked to the network; null when malformed. */
export function parseCidrSloppy(text: string): Cidr | null {
  const slash = text.indexOf("/");
  if (slash < 0) return null;
  const address = parseIPv4Sloppy(text.slice(0, slash));
  const lenText = text.slice(slash + 1);
  if (address === null || !/^\d{1,3}$/.test(lenText)) return null;
  const prefixLength = Number(lenText);
  if (prefixLength > 32) return null;
  return { address: (address & ipv4Mask(prefixLength)) >>> 0, prefixLength };
}

export function formatCidr(c: Cidr): string {
  return `${formatIPv4(c.address)}/${c.prefixLength}`;
}

export function cidrContains(c: Cidr, address: number): boolean {
  return ((address & ipv4Mask(c.prefixLength)) >>> 0) === c.address;
}

/** Canonical text of a sloppy IPv4 address, or null. */
export function canonicalIPv4(text: string): string | null {
  const v = parseIPv4Sloppy(text.trim());
  return v === null ? null : formatIPv4(v);
}

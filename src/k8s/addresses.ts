// IP and CIDR syntax for object fields (control plane only; the hot path uses util/ip integers).
// IPv4 prefixes become {address, prefixLength} with integer addresses; IPv6 is syntax-checked only.
import { ipv4Mask, parseIPv4, parseIPv4Cidr, parseIPv6 } from "../util/ip.js";

export interface Ipv4Prefix {
  readonly address: number;
  readonly prefixLength: number;
}

export function isIp(text: string): boolean {
  return parseIPv4(text) !== null || parseIPv6(text) !== null;
}

/** A CIDR as NetworkPolicy accepts it in 1.30 (IPv4 or IPv6, host bits allowed). */
export function isCidr(text: string): boolean {
  if (parseIPv4Cidr(text) !== null) return true;
  const slash = text.indexOf("/");
  if (slash < 0) return false;
  const len = text.slice(slash + 1);
  return parseIPv6(text.slice(0, slash)) !== null && /^\d{1,3}$/.test(len) && Number(len) <= 128;
}

/** A strict IPv4 network prefix (no host bits), for the Cluster file. */
export function parseIpv4Network(text: string): { prefix: Ipv4Prefix } | { error: string } {
  const c = parseIPv4Cidr(text);
  if (c === null) return { error: `invalid value ${JSON.stringify(text)}: must be an IPv4 CIDR such as 10.1.8.0/24` };
  const network = (c.address & ipv4Mask(c.prefixLength)) >>> 0;
  if (network !== c.address) {
    const fixed = `${formatNet(network)}/${c.prefixLength}`;
    return { error: `invalid value ${JSON.stringify(text)}: host bits are set (did you mean ${fixed}?)` };
  }
  return { prefix: c };
}

function formatNet(v: number): string {
  return `${v >>> 24}.${(v >>> 16) & 255}.${(v >>> 8) & 255}.${v & 255}`;
}

export function prefixContains(outer: Ipv4Prefix, address: number): boolean {
  const mask = ipv4Mask(outer.prefixLength);
  return ((address & mask) >>> 0) === ((outer.address & mask) >>> 0);
}

export function prefixesOverlap(a: Ipv4Prefix, b: Ipv4Prefix): boolean {
  const len = Math.min(a.prefixLength, b.prefixLength);
  const mask = ipv4Mask(len);
  return ((a.address & mask) >>> 0) === ((b.address & mask) >>> 0);
}

/** Number of addresses in a prefix (2^(32-len)). */
function prefixSize(p: Ipv4Prefix): number {
  return 2 ** (32 - p.prefixLength);
}

export function broadcastOf(p: Ipv4Prefix): number {
  return (p.address + prefixSize(p) - 1) >>> 0;
}

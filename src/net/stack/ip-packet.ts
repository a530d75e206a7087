// Building packets the stack originates (ARP, ICMP, TCP resets, fragments): a fresh SkBuff with
// headroom for the headers added on the way out, registered with the ledger, and the IPv4 header
// written the way the kernel's output path fills it.

import { DEFAULT_HEADROOM, SkBuff } from "../../skb/skbuff.js";
import { write16, write32 } from "../../wire/bytes.js";
import { setIpv4HeaderChecksum } from "../../wire/checksum.js";
import type { NetWorld } from "../world.js";

export const IPV4_HEADER = 20;
export const ETH_HEADER = 14;
export const ETHERTYPE_IPV4 = 0x0800;
export const ETHERTYPE_ARP = 0x0806;
export const ETHERTYPE_IPV6 = 0x86dd;
export const IPPROTO_ICMP = 1;
export const IPPROTO_TCP = 6;
export const IPPROTO_UDP = 17;
export const IP_DF = 0x4000;
export const IP_MF = 0x2000;
export const IP_OFFSET_MASK = 0x1fff;

/** A new packet of `length` bytes (zeroed) with the ledger's next id; head at its first byte. */
export function newPacket(world: NetWorld, length: number): SkBuff {
  const data = new Uint8Array(DEFAULT_HEADROOM + length);
  return new SkBuff(world.ledger.admit(), data, DEFAULT_HEADROOM, DEFAULT_HEADROOM + length);
}

/** Writes a 20-byte IPv4 header (no options) at off with a fresh header checksum. */
export function writeIpv4Header(
  bytes: Uint8Array,
  off: number,
  tos: number,
  totalLength: number,
  id: number,
  fragWord: number,
  ttl: number,
  protocol: number,
  src: number,
  dst: number,
): void {
  writeIpv4HeaderUnsummed(bytes, off, tos, totalLength, id, fragWord, ttl, protocol, src, dst);
  setIpv4HeaderChecksum(bytes, off, IPV4_HEADER);
}

/**
 * Writes a 20-byte IPv4 header (no options) at off with a zero checksum field, for a packet handed to
 * the namespace's output (ip_local_out), which sets the total length and the checksum itself.
 */
export function writeIpv4HeaderUnsummed(
  bytes: Uint8Array,
  off: number,
  tos: number,
  totalLength: number,
  id: number,
  fragWord: number,
  ttl: number,
  protocol: number,
  src: number,
  dst: number,
): void {
  bytes[off] = 0x45;
  bytes[off + 1] = tos & 0xff;
  write16(bytes, off + 2, totalLength);
  write16(bytes, off + 4, id);
  write16(bytes, off + 6, fragWord);
  bytes[off + 8] = ttl;
  bytes[off + 9] = protocol;
  bytes[off + 10] = 0;
  bytes[off + 11] = 0;
  write32(bytes, off + 12, src);
  write32(bytes, off + 16, dst);
}

/**
 * ip_decrease_ttl: decrements the TTL and patches the header checksum the way the kernel does
 * (one's complement add of 0x0100; a result of 0xffff is stored as 0).
 */
export function decreaseTtl(bytes: Uint8Array, off: number): void {
  bytes[off + 8] = (bytes[off + 8]! - 1) & 0xff;
  let check = ((bytes[off + 10]! << 8) | bytes[off + 11]!) + 0x0100;
  if (check > 0xffff) check = (check & 0xffff) + 1;
  if (check === 0xffff) check = 0;
  bytes[off + 10] = check >>> 8;
  bytes[off + 11] = check & 0xff;
}

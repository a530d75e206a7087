// In-place NAT rewrites of IPv4 addresses and L4 ports that keep every checksum right with
// RFC 1624 incremental updates (IPv4 header, TCP/UDP pseudo-header, ICMP echo id). No allocation.
import { read16, read32, write16, write32 } from "./bytes.js";
import {
  IPPROTO_ICMP,
  IPPROTO_TCP,
  IPPROTO_UDP,
  checksumReplace16,
  checksumReplace32,
  udpChecksumReplace16,
  udpChecksumReplace32,
} from "./checksum.js";

/** Byte offsets of the rewritable fields inside their headers. */
export const IPV4_SRC_FIELD = 12;
export const IPV4_DST_FIELD = 16;
export const L4_SRC_PORT_FIELD = 0;
export const L4_DST_PORT_FIELD = 2;
const ICMP_ECHO_ID_FIELD = 4;

/**
 * Sets the IPv4 address at l3Offset + field (IPV4_SRC_FIELD or IPV4_DST_FIELD) and fixes the header
 * checksum; when l4Offset >= 0 also fixes the TCP/UDP checksum, which covers the address through
 * the pseudo-header (pass -1 for non-first fragments, whose L4 header is elsewhere).
 */
export function rewriteIpv4Address(
  bytes: Uint8Array,
  l3Offset: number,
  field: number,
  address: number,
  l4Offset: number,
  protocol: number,
): void {
  const old = read32(bytes, l3Offset + field);
  write32(bytes, l3Offset + field, address);
  write16(bytes, l3Offset + 10, checksumReplace32(read16(bytes, l3Offset + 10), old, address));
  if (l4Offset < 0) return;
  if (protocol === IPPROTO_TCP) {
    write16(bytes, l4Offset + 16, checksumReplace32(read16(bytes, l4Offset + 16), old, address));
  } else if (protocol === IPPROTO_UDP) {
    write16(bytes, l4Offset + 6, udpChecksumReplace32(read16(bytes, l4Offset + 6), old, address));
  }
}

/**
 * Sets a TCP/UDP port (field L4_SRC_PORT_FIELD or L4_DST_PORT_FIELD) and fixes the L4 checksum.
 * For ICMP the "port" is the echo identifier (as conntrack treats it) and the ICMP checksum is fixed.
 */
export function rewriteL4Port(bytes: Uint8Array, l4Offset: number, protocol: number, field: number, port: number): void {
  if (protocol === IPPROTO_ICMP) {
    const old = read16(bytes, l4Offset + ICMP_ECHO_ID_FIELD);
    write16(bytes, l4Offset + ICMP_ECHO_ID_FIELD, port);
    write16(bytes, l4Offset + 2, checksumReplace16(read16(bytes, l4Offset + 2), old, port));
    return;
  }
  const old = read16(bytes, l4Offset + field);
  write16(bytes, l4Offset + field, port);
  if (protocol === IPPROTO_TCP) {
    write16(bytes, l4Offset + 16, checksumReplace16(read16(bytes, l4Offset + 16), old, port));
  } else if (protocol === IPPROTO_UDP) {
    write16(bytes, l4Offset + 6, udpChecksumReplace16(read16(bytes, l4Offset + 6), old, port));
  }
}

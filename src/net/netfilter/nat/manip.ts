// Packet rewriting for NAT (nf_nat_proto.c): one side (source or destination) of an IPv4 packet set
// to a target tuple with the kernel's incremental checksum updates, and the translation of ICMP
// errors (the quoted header rewritten, the ICMP checksum recomputed, then the outer header).

import { read16, read32, write16, write32 } from "../../../wire/bytes.js";
import { internetChecksum, verifyChecksum } from "../../../wire/checksum.js";
import { IPPROTO_ICMP, IPPROTO_SCTP, IPPROTO_TCP, IPPROTO_UDP } from "../conntrack/conntrack.js";
import { NatManip } from "../hooks.js";
import { crc32c } from "../../../wire/sctp.js";
import { csumReplace2, csumReplace4 } from "./csum.js";

function isIcmpQuery(type: number): boolean {
  return type === 0 || type === 8 || (type >= 13 && type <= 18);
}

/** The SCTP checksum written as the kernel does (CRC32c over the packet, stored little-endian). */
function fixSctpChecksum(bytes: Uint8Array, hdr: number, end: number): void {
  write32(bytes, hdr + 8, 0);
  const crc = crc32c(bytes, hdr, end);
  bytes[hdr + 8] = crc & 0xff;
  bytes[hdr + 9] = (crc >>> 8) & 0xff;
  bytes[hdr + 10] = (crc >>> 16) & 0xff;
  bytes[hdr + 11] = crc >>> 24;
}

/**
 * nf_nat_ipv4_manip_pkt: sets the source (manip SRC) or destination (DST) address and port of the
 * IPv4 packet at ip (bytes up to end) to the target's. `proto` selects the L4 handling (the target
 * tuple's protocol). Returns false when the packet is too short to rewrite.
 */
export function manipPacket(
  bytes: Uint8Array,
  ip: number,
  end: number,
  targetSrc: number,
  targetDst: number,
  targetPorts: number,
  proto: number,
  manip: number,
): boolean {
  if (ip + 20 > end) return false;
  const hdr = ip + (bytes[ip]! & 0x0f) * 4;
  const src = manip === NatManip.SRC;
  const addrField = ip + (src ? 12 : 16);
  const oldAddr = read32(bytes, addrField);
  const newAddr = src ? targetSrc : targetDst;
  if (proto === IPPROTO_TCP) {
    if (hdr + 8 > end) return false;
    const portField = hdr + (src ? 0 : 2);
    const oldPort = read16(bytes, portField);
    const newPort = src ? targetPorts >>> 16 : targetPorts & 0xffff;
    write16(bytes, portField, newPort);
    if (end >= hdr + 20) {
      let check = read16(bytes, hdr + 16);
      check = csumReplace4(check, oldAddr, newAddr);
      check = csumReplace2(check, oldPort, newPort);
      write16(bytes, hdr + 16, check);
    }
  } else if (proto === IPPROTO_UDP || proto === 136) {
    if (hdr + 8 > end) return false;
    const portField = hdr + (src ? 0 : 2);
    const oldPort = read16(bytes, portField);
    const newPort = src ? targetPorts >>> 16 : targetPorts & 0xffff;
    let check = read16(bytes, hdr + 6);
    if (check !== 0 || proto === 136) {
      check = csumReplace4(check, oldAddr, newAddr);
      check = csumReplace2(check, oldPort, newPort);
      write16(bytes, hdr + 6, check === 0 ? 0xffff : check);
    }
    write16(bytes, portField, newPort);
  } else if (proto === IPPROTO_SCTP) {
    if (hdr + 8 > end) return false;
    write16(bytes, hdr + (src ? 0 : 2), src ? targetPorts >>> 16 : targetPorts & 0xffff);
    if (end >= hdr + 12) fixSctpChecksum(bytes, hdr, end);
  } else if (proto === IPPROTO_ICMP) {
    if (hdr + 8 > end) return false;
    if (isIcmpQuery(bytes[hdr]!)) {
      const oldId = read16(bytes, hdr + 4);
      const newId = targetPorts >>> 16;
      write16(bytes, hdr + 2, csumReplace2(read16(bytes, hdr + 2), oldId, newId));
      write16(bytes, hdr + 4, newId);
    }
  }
  write16(bytes, ip + 10, csumReplace4(read16(bytes, ip + 10), oldAddr, newAddr));
  write32(bytes, addrField, newAddr);
  return true;
}

/**
 * nf_nat_icmp_reply_translation: for an ICMP error RELATED to a NATed connection, rewrites the
 * quoted header with the other direction's tuple (opposite manip), recomputes the ICMP checksum,
 * then rewrites the outer header to look like a reply. `other` is the connection's tuple in the
 * direction opposite to the error's. Returns false to drop (short packet, bad ICMP checksum).
 */
export function translateIcmpError(
  bytes: Uint8Array,
  ip: number,
  end: number,
  otherSrc: number,
  otherDst: number,
  otherPorts: number,
  otherInvertedPorts: number,
  proto: number,
  manip: number,
  applies: boolean,
): boolean {
  const hdrlen = (bytes[ip]! & 0x0f) * 4;
  const icmp = ip + hdrlen;
  if (icmp + 8 + 20 > end) return false;
  if (!verifyChecksum(bytes, icmp, end)) return false;
  if (!applies) return true;
  const inverse = manip === NatManip.SRC ? NatManip.DST : NatManip.SRC;
  if (!manipPacket(bytes, icmp + 8, end, otherSrc, otherDst, otherPorts, proto, inverse)) return false;
  write16(bytes, icmp + 2, 0);
  write16(bytes, icmp + 2, internetChecksum(bytes, icmp, end));
  // Outer header: the inverse of the other direction's tuple, as ICMP.
  return manipPacket(bytes, ip, end, otherDst, otherSrc, otherInvertedPorts, IPPROTO_ICMP, manip);
}

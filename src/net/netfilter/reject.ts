// Packets REJECT sends, built as the kernel builds them: ICMP errors as icmp_send does (TOS 0xc0 |
// original TOS bits, TTL 64, no DF, up to 548 quoted bytes, never about an ICMP error, a non-first
// fragment or a multicast/broadcast destination) and TCP resets as nf_send_reset does (TOS 0, ID 0,
// DF, TTL 64; seq from the ACK, or ACK of everything the segment occupied). Both refuse originals
// whose L4 checksum is wrong (nf_reject_verify_csum + nf_ip_checksum).

import { read16, read32, write16, write32 } from "../../wire/bytes.js";
import { internetChecksum, setIpv4HeaderChecksum, setL4ChecksumV4, verifyChecksum, verifyL4ChecksumV4 } from "../../wire/checksum.js";
import { NR_ICMP_TYPES } from "./conntrack/l4.js";

/** RFC 1812 / icmp_send: an error quotes as much as fits in 576 bytes. */
const ICMP_ERROR_ROOM = 576 - 20 - 8;
const DEFAULT_TTL = 64;
const IPTOS_TOS_MASK = 0x1e;
const IPTOS_PREC_INTERNETCONTROL = 0xc0;

/** True when REJECT may answer this original: its L4 checksum is right or not one REJECT checks. */
export function rejectChecksumOk(bytes: Uint8Array, ip: number): boolean {
  const ihl = (bytes[ip]! & 0x0f) * 4;
  const total = read16(bytes, ip + 2);
  const proto = bytes[ip + 9]!;
  const l4 = ip + ihl;
  const len = total - ihl;
  switch (proto) {
    case 17:
      if (len < 8 || read16(bytes, l4 + 6) === 0) return len >= 8;
      return verifyL4ChecksumV4(bytes, l4, len, 17, read32(bytes, ip + 12), read32(bytes, ip + 16));
    case 47:
    case 50:
    case 51:
    case 132:
    case 136:
      return true;
    case 6:
      return verifyL4ChecksumV4(bytes, l4, len, 6, read32(bytes, ip + 12), read32(bytes, ip + 16));
    default:
      return verifyChecksum(bytes, l4, l4 + len);
  }
}

/** icmp_pointers[type].error: types 1-7 and 9-12 count as errors (unknown ones included). */
function isErrorType(type: number): boolean {
  return type <= NR_ICMP_TYPES && ((0b1_1110_1111_1110 >>> type) & 1) === 1;
}

function isMulticastOrBroadcast(addr: number): boolean {
  return addr >>> 28 === 0xe || addr === 0xffffffff;
}

/**
 * icmp_send's checks and construction: an ICMP error (type, code, 32-bit rest-of-header `info`)
 * about the IPv4 packet at bytes[ip..], from `src`, with IP id `ipId`. null when the kernel would
 * not send one. The original's checksum is the caller's concern (see rejectChecksumOk).
 */
export function buildIcmpError(bytes: Uint8Array, ip: number, type: number, code: number, info: number, src: number, ipId: number): Uint8Array | null {
  const ihl = (bytes[ip]! & 0x0f) * 4;
  const total = Math.min(read16(bytes, ip + 2), bytes.length - ip);
  if (ihl < 20 || total < ihl) return null;
  if ((read16(bytes, ip + 6) & 0x1fff) !== 0) return null;
  const origDst = read32(bytes, ip + 16);
  if (isMulticastOrBroadcast(origDst)) return null;
  if (isErrorType(type) && bytes[ip + 9] === 1) {
    if (total < ihl + 1) return null;
    const inner = bytes[ip + ihl]!;
    if (inner > NR_ICMP_TYPES || isErrorType(inner)) return null;
  }
  const quoted = Math.min(total, ICMP_ERROR_ROOM);
  const out = new Uint8Array(20 + 8 + quoted);
  out[0] = 0x45;
  out[1] = (bytes[ip + 1]! & IPTOS_TOS_MASK) | IPTOS_PREC_INTERNETCONTROL;
  write16(out, 2, out.length);
  write16(out, 4, ipId & 0xffff);
  write16(out, 6, 0);
  out[8] = DEFAULT_TTL;
  out[9] = 1;
  write32(out, 12, src);
  write32(out, 16, read32(bytes, ip + 12));
  setIpv4HeaderChecksum(out, 0, 20);
  out[20] = type;
  out[21] = code;
  write32(out, 24, info);
  out.set(bytes.subarray(ip, ip + quoted), 28);
  write16(out, 22, internetChecksum(out, 20, out.length));
  return out;
}

/**
 * nf_send_reset: the TCP RST answering the segment at bytes[ip..], or null (not first fragment,
 * not TCP, a RST itself, or a bad checksum).
 */
export function buildTcpReset(bytes: Uint8Array, ip: number): Uint8Array | null {
  const ihl = (bytes[ip]! & 0x0f) * 4;
  const total = read16(bytes, ip + 2);
  if ((read16(bytes, ip + 6) & 0x1fff) !== 0 || bytes[ip + 9] !== 6) return null;
  const l4 = ip + ihl;
  if (total < ihl + 20 || ip + total > bytes.length) return null;
  const flags = bytes[l4 + 13]!;
  if (flags & 0x04) return null;
  if (!rejectChecksumOk(bytes, ip)) return null;
  const out = new Uint8Array(40);
  out[0] = 0x45;
  write16(out, 2, 40);
  write16(out, 6, 0x4000);
  out[8] = DEFAULT_TTL;
  out[9] = 6;
  write32(out, 12, read32(bytes, ip + 16));
  write32(out, 16, read32(bytes, ip + 12));
  setIpv4HeaderChecksum(out, 0, 20);
  write16(out, 20, read16(bytes, l4 + 2));
  write16(out, 22, read16(bytes, l4));
  out[32] = 5 << 4;
  if (flags & 0x10) {
    write32(out, 24, read32(bytes, l4 + 8));
    out[33] = 0x04;
  } else {
    const doff = (bytes[l4 + 12]! >>> 4) * 4;
    const payload = total - ihl - doff;
    const ack = read32(bytes, l4 + 4) + (flags & 0x02 ? 1 : 0) + (flags & 0x01 ? 1 : 0) + payload;
    write32(out, 28, ack >>> 0);
    out[33] = 0x14;
  }
  setL4ChecksumV4(out, 20, 20, 6, read32(out, 12), read32(out, 16));
  return out;
}

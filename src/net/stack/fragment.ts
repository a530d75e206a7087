// IPv4 fragmentation on output as ip_do_fragment does it (RFC 791): every fragment but the last
// carries a multiple of 8 payload bytes, keeps the identification, TOS and TTL, has MF set unless it
// is the last piece of an unfragmented datagram, and after the first fragment the options without the
// copy flag are overwritten with NOOPs (ip_options_fragment).

import type { SkBuff } from "../../skb/skbuff.js";
import { read16, write16 } from "../../wire/bytes.js";
import { setIpv4HeaderChecksum } from "../../wire/checksum.js";
import type { NetWorld } from "../world.js";
import { IP_DF, IP_MF, IP_OFFSET_MASK, newPacket } from "./ip-packet.js";

const IPOPT_END = 0;
const IPOPT_NOOP = 1;
const IPOPT_COPY = 0x80;

/**
 * Splits the datagram at skb.head (DF clear) into fragments of at most mtu bytes and returns them
 * (new ledger packets), or null when the MTU leaves no room for 8 payload bytes.
 */
export function fragmentIpv4(world: NetWorld, skb: SkBuff, mtu: number): SkBuff[] | null {
  const src = skb.data;
  const ip = skb.head;
  const hlen = (src[ip]! & 0x0f) * 4;
  const room = mtu - hlen;
  if (room < 8) return null;
  const fragWord = read16(src, ip + 6);
  const keepDf = fragWord & IP_DF;
  const notLast = (fragWord & IP_MF) !== 0;
  let offset = (fragWord & IP_OFFSET_MASK) * 8;
  const header = src.slice(ip, ip + hlen);
  let left = skb.length - hlen;
  let ptr = ip + hlen;
  const out: SkBuff[] = [];
  while (left > 0) {
    let len = left > room ? room : left;
    if (len < left) len &= ~7;
    const frag = newPacket(world, hlen + len);
    const b = frag.data;
    const at = frag.head;
    b.set(header, at);
    b.set(src.subarray(ptr, ptr + len), at + hlen);
    left -= len;
    write16(b, at + 2, hlen + len);
    write16(b, at + 6, keepDf | ((offset >>> 3) & IP_OFFSET_MASK) | (left > 0 || notLast ? IP_MF : 0));
    setIpv4HeaderChecksum(b, at, hlen);
    frag.copyPacketMeta(skb);
    out.push(frag);
    if (out.length === 1) blankUncopiedOptions(header, hlen);
    ptr += len;
    offset += len;
  }
  return out;
}

/** ip_options_fragment: options without the copied flag become NOOPs in later fragments. */
function blankUncopiedOptions(header: Uint8Array, hlen: number): void {
  let i = 20;
  while (i < hlen) {
    const type = header[i]!;
    if (type === IPOPT_END) return;
    if (type === IPOPT_NOOP) {
      i++;
      continue;
    }
    const len = header[i + 1] ?? 0;
    if (len < 2 || i + len > hlen) return;
    if ((type & IPOPT_COPY) === 0) header.fill(IPOPT_NOOP, i, i + len);
    i += len;
  }
}


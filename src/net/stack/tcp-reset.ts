// The RST Linux sends for a TCP segment nobody listens for (tcp_v4_send_reset, RFC 9293 3.10.7.1):
// if the segment had ACK, seq = its ack number and only RST is set; otherwise seq 0, RST+ACK with
// ack = seq + SYN + FIN + payload length. Window 0, no options; IPv4 with DF, ID 0, TTL 64 and the
// segment's TOS without its ECN bits, from the address the segment was sent to.

import type { SkBuff } from "../../skb/skbuff.js";
import { read16, read32, write16, write32 } from "../../wire/bytes.js";
import { setL4ChecksumV4 } from "../../wire/checksum.js";
import type { NetWorld } from "../world.js";
import { IPPROTO_TCP, IPV4_HEADER, IP_DF, newPacket, writeIpv4Header } from "./ip-packet.js";

export const TCP_FIN = 0x01;
export const TCP_SYN = 0x02;
export const TCP_RST = 0x04;
export const TCP_ACK = 0x10;
const TCP_HEADER = 20;
const ECN_MASK = 0x03;

/** Builds the reset answering the segment whose IPv4 header is at `ip` and TCP header at `l4` of skbIn. */
export function buildTcpReset(world: NetWorld, skbIn: SkBuff, ip: number, l4: number, ttl: number): SkBuff {
  const b = skbIn.data;
  const flags = b[l4 + 13]!;
  const doff = (b[l4 + 12]! >>> 4) * 4;
  const payload = skbIn.tail - l4 - doff;
  const src = read32(b, ip + 16);
  const dst = read32(b, ip + 12);
  const total = IPV4_HEADER + TCP_HEADER;
  const skb = newPacket(world, total);
  const o = skb.data;
  const at = skb.head;
  writeIpv4Header(o, at, b[ip + 1]! & ~ECN_MASK, total, 0, IP_DF, ttl, IPPROTO_TCP, src, dst);
  const t = at + IPV4_HEADER;
  write16(o, t, read16(b, l4 + 2));
  write16(o, t + 2, read16(b, l4));
  if ((flags & TCP_ACK) !== 0) {
    write32(o, t + 4, read32(b, l4 + 8));
    o[t + 13] = TCP_RST;
  } else {
    const seq = read32(b, l4 + 4);
    const consumed = ((flags & TCP_SYN) !== 0 ? 1 : 0) + ((flags & TCP_FIN) !== 0 ? 1 : 0) + payload;
    write32(o, t + 8, (seq + consumed) >>> 0);
    o[t + 13] = TCP_RST | TCP_ACK;
  }
  o[t + 12] = (TCP_HEADER / 4) << 4;
  setL4ChecksumV4(o, t, TCP_HEADER, IPPROTO_TCP, src, dst);
  return skb;
}

// An skb's IPv4 header checksum, known good once: the output path sums the header it sends and each
// namespace's ip_rcv verifies the header it receives, the same 20 bytes at every hop of a path whose
// writers keep the checksum right (TTL decrement and NAT patch it incrementally, ECN marking refreshes
// it). The skb remembers the buffer and offset of the last two headers verified or summed (a tunnelled
// packet's inner and outer ones), and a later check of either passes without summing it again. A
// failed check is never remembered, so a bad header is still dropped and counted wherever it was before.

import { setIpv4HeaderChecksum, verifyIpv4HeaderChecksum } from "../wire/checksum.js";
import type { SkBuff } from "./skbuff.js";

/** verifyIpv4HeaderChecksum of the header at ip in skb's buffer, skipped when that header is known good. */
export function ipHeaderChecksumGood(skb: SkBuff, ip: number, headerLength: number): boolean {
  const b = skb.data;
  if (skb.ipVerifiedAt === ip && skb.ipVerifiedData === b) return true;
  if (skb.ipEarlierAt === ip && skb.ipEarlierData === b) return true;
  if (!verifyIpv4HeaderChecksum(b, ip, headerLength)) return false;
  rememberGood(skb, b, ip);
  return true;
}

/** setIpv4HeaderChecksum of the header at ip in skb's buffer; the header is then known good. */
export function sumIpHeader(skb: SkBuff, ip: number, headerLength: number): void {
  const b = skb.data;
  setIpv4HeaderChecksum(b, ip, headerLength);
  rememberGood(skb, b, ip);
}

/** The header at ip of b is known good; the one known before it stays known (a tunnel's inner and outer headers). */
function rememberGood(skb: SkBuff, b: Uint8Array, ip: number): void {
  if (skb.ipVerifiedAt === ip && skb.ipVerifiedData === b) return;
  skb.ipEarlierData = skb.ipVerifiedData;
  skb.ipEarlierAt = skb.ipVerifiedAt;
  skb.ipVerifiedData = b;
  skb.ipVerifiedAt = ip;
}

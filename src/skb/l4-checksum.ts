// An skb's L4 checksum check done once: conntrack (at PREROUTING) and the receiving socket layer
// both verify TCP/UDP checksums; once a check passed, the skb remembers which bytes it covered
// (skb.l4VerifiedData/At/Len, and the pass before it in l4Earlier*: a tunnelled packet's inner and outer
// headers) and a later check of the same bytes passes without summing them again. A failed check is
// never remembered, so a bad checksum still fails (and is counted) wherever it failed before.

import { verifyL4ChecksumV4 } from "../wire/checksum.js";
import type { SkBuff } from "./skbuff.js";

/**
 * verifyL4ChecksumV4 over the len L4 bytes at l4 of `bytes`, skb's buffer, skipped when exactly those
 * bytes of that buffer passed in one of the last two passes (remembered only for skb's own buffer).
 */
export function l4ChecksumGood(skb: SkBuff, bytes: Uint8Array, l4: number, len: number, proto: number, src: number, dst: number): boolean {
  if (skb.l4VerifiedAt === l4 && skb.l4VerifiedLen === len && skb.l4VerifiedData === bytes) return true;
  if (skb.l4EarlierAt === l4 && skb.l4EarlierLen === len && skb.l4EarlierData === bytes) return true;
  if (!verifyL4ChecksumV4(bytes, l4, len, proto, src, dst)) return false;
  if (bytes === skb.data) {
    skb.l4EarlierData = skb.l4VerifiedData;
    skb.l4EarlierAt = skb.l4VerifiedAt;
    skb.l4EarlierLen = skb.l4VerifiedLen;
    skb.l4VerifiedData = bytes;
    skb.l4VerifiedAt = l4;
    skb.l4VerifiedLen = len;
  }
  return true;
}

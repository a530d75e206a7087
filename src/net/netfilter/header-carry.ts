// Parsed headers carried from one hook to the next for the same packet in the same namespace: a
// forwarded packet crosses PREROUTING, FORWARD and POSTROUTING (a local one PREROUTING and INPUT, or
// OUTPUT and POSTROUTING) with the same bytes, and between the hooks the stack only lowers the TTL
// (ip_forward, with its checksum). The later hooks take the headers the previous hook left instead of
// parsing the same bytes again.
//
// The carry holds only while nothing can have changed what a parse would read:
// - it is kept by the namespace's outermost hook run that ended in ACCEPT, with its headers current
//   (a NAT rewrite re-parses; a hook whose PROGRAM ran or whose ICMP error was translated keeps none);
// - the next outermost run of the same netfilter must be for the same SkBuff with the same buffer,
//   head and tail (any other run in between replaces or clears it);
// - the packet's identity bytes (length, protocol, addresses, ports) must still read as carried, so a
//   rewrite done elsewhere is caught; the TTL is read again (ip_forward lowers it between hooks).

import type { SkBuff } from "../../skb/skbuff.js";
import { read16, read32 } from "../../wire/bytes.js";
import type { ParsedHeaders } from "../../wire/headers.js";

export class HeaderCarry {
  private skb: SkBuff | null = null;
  private data: Uint8Array | null = null;
  private head = 0;
  private tail = 0;

  /** The headers h (current for skb's bytes) may be taken by the next hook run for skb. */
  keep(skb: SkBuff): void {
    this.skb = skb;
    this.data = skb.data;
    this.head = skb.head;
    this.tail = skb.tail;
  }

  clear(): void {
    this.skb = null;
    this.data = null;
  }

  /**
   * True when h, kept for skb by the previous run, still describes skb's bytes (its TTL refreshed);
   * false when the caller must parse. Clears the carry either way (the new run keeps its own).
   */
  take(skb: SkBuff, h: ParsedHeaders): boolean {
    const held = this.skb === skb && this.data === skb.data && this.head === skb.head && this.tail === skb.tail;
    this.skb = null;
    this.data = null;
    if (!held || !h.commonLayout) return false;
    const b = skb.data;
    const ip = skb.head;
    if (read16(b, ip + 2) !== h.ipTotalLen || b[ip + 9] !== h.ipProto) return false;
    if (read32(b, ip + 12) !== h.src4 || read32(b, ip + 16) !== h.dst4) return false;
    const l4 = h.l4Offset;
    if (read16(b, l4) !== h.srcPort || read16(b, l4 + 2) !== h.dstPort) return false;
    h.ttl = b[ip + 8]!;
    return true;
  }
}

// Recent answers of GSO header parsing (gso.ts: where a super-packet's TCP payload starts), for many
// super-packets at once: each is asked about at every hop (output, forward, each link), and several
// are in flight between one hop and the next, so a single remembered answer was overwritten before
// the same packet came back. An answer holds for its skb as it then was (buffer, l3, tail, gsoType);
// one about the same bytes at another l3 (before encapsulation, after decapsulation) still tells
// where the innermost IPv4 header and the payload are, which lets a new parse stop there.
// Answers sit in a direct-mapped table by ledger id; the slot is only a hint (the skb itself is compared).

import type { SkBuff } from "./skbuff.js";

/** Slots (a power of two): several times the super-packets between a packet's first and last hop at 40G. */
const SLOTS = 64;
/** exact()'s answer when nothing is known for these headers. */
export const NOT_KNOWN = -2;

class Answer {
  skb: SkBuff | null = null;
  data: Uint8Array | null = null;
  l3 = -1;
  tail = 0;
  gsoType = 0;
  /** The IPv4 header right in front of the TCP header, -1 when the headers did not parse. */
  innermost = -1;
  /** Absolute offset of the TCP payload, -1 when the headers did not parse. */
  payload = -1;
}

export class GsoLayoutMemo {
  private readonly answers: Answer[] = Array.from({ length: SLOTS }, () => new Answer());
  /** Set by exact() on a miss: where an answer about the same bytes found the innermost header and payload (-1 when none). */
  relatedInnermost = -1;
  relatedPayload = -1;

  /** The payload offset known for exactly these headers, or NOT_KNOWN (then see relatedInnermost). */
  exact(skb: SkBuff, l3: number): number {
    const a = this.answers[skb.id & (SLOTS - 1)]!;
    this.relatedInnermost = -1;
    if (a.skb !== skb || a.data !== skb.data || a.tail !== skb.tail) return NOT_KNOWN;
    if (a.l3 === l3 && a.gsoType === skb.gsoType) return a.payload;
    this.relatedInnermost = a.innermost;
    this.relatedPayload = a.payload;
    return NOT_KNOWN;
  }

  /** Records an answer about skb's headers at l3 (innermost and payload -1 when they did not parse). */
  remember(skb: SkBuff, l3: number, innermost: number, payload: number): void {
    const a = this.answers[skb.id & (SLOTS - 1)]!;
    a.skb = skb;
    a.data = skb.data;
    a.l3 = l3;
    a.tail = skb.tail;
    a.gsoType = skb.gsoType;
    a.innermost = innermost;
    a.payload = payload;
  }
}

// What one hook run leaves for the next hook of the same packet in the same namespace: a forwarded
// packet crosses PREROUTING, FORWARD and POSTROUTING, a locally sent one OUTPUT and POSTROUTING, a
// locally delivered one PREROUTING and INPUT, and between those hooks the stack changes at most the TTL (ip_forward, with its header checksum). The
// later hook then takes the frame's parsed headers (TTL read again) and conntrack facts as the
// previous hook left them instead of parsing the same bytes and loading the same entry again.
//
// The carry is taken only when all of these hold:
// - the caller says the run continues the packet's previous hook (the stack's own FORWARD and INPUT
//   after PREROUTING, POSTROUTING after FORWARD/OUTPUT: nothing but the TTL changes in between);
// - the previous hook of this netfilter, at this depth, was the run just before (no other packet ran
//   in between: any run, nested ones included, moves the run count), for the same packet (ledger id)
//   with the same head, tail and conntrack attachment, and ended in ACCEPT;
// - that hook ran no target (a PROGRAM may write the packet, a NAT target edits the entry), translated
//   no ICMP error and bound or confirmed no entry (its status changed after it was loaded).
// A NAT rewrite of the packet re-parses it (Netfilter.rewritten), so the carried headers stay current.

import type { SkBuff } from "../../skb/skbuff.js";

export class HookCarry {
  /**
   * The packet's ledger id, not the SkBuff: the carry is long-lived and packets are young, so keeping
   * the object would take the write barrier's slow path at every hook. Every packet that runs hooks has
   * its own ledger id, and the only writers of skb.data (push growing the headroom, consumeSkb) move
   * its tail, so the same id, head and tail mean the same buffer.
   */
  private id = -1;
  private head = 0;
  private tail = 0;
  private ctEntry = 0;
  private ctState = 0;
  /** The netfilter's run count of the hook run that kept the carry. */
  private run = -1;

  /** The run numbered `run` ended in ACCEPT for skb with its headers and conntrack facts current. */
  keep(skb: SkBuff, run: number): void {
    this.id = skb.id;
    this.head = skb.head;
    this.tail = skb.tail;
    this.ctEntry = skb.ctEntry;
    this.ctState = skb.ctState;
    this.run = run;
  }

  /** True when the run numbered `run` may take what the run before it kept for skb. */
  holds(skb: SkBuff, run: number): boolean {
    return (
      this.run === run - 1 &&
      this.id === skb.id &&
      this.head === skb.head &&
      this.tail === skb.tail &&
      this.ctEntry === skb.ctEntry &&
      this.ctState === skb.ctState
    );
  }
}

// Per-call state of a netfilter hook run (one per nesting depth: REJECT replies and PROGRAMs may
// re-enter run()), and how drop sites name the deciding table, chain and rule.

import type { SkBuff } from "../../skb/skbuff.js";
import { ParsedHeaders } from "../../wire/headers.js";
import type { NetDevice } from "../device.js";
import { HookCarry } from "./hook-carry.js";
import { MatchContext } from "./table/match.js";
import type { NfRule } from "./table/rule.js";
import type { NfChain, NfTable } from "./table/table.js";
import { CONTINUE, Traversal, type TargetExecutor } from "./table/traverse.js";
import { WalkKey, WalkRecorder, type WalkRecord } from "./table/walk-memo.js";

export class Frame {
  /** Runs a non-standard target for this frame's packet (bound once, no allocation per packet). */
  exec: TargetExecutor = () => CONTINUE;
  readonly h = new ParsedHeaders();
  readonly ctx = new MatchContext();
  readonly trav: Traversal;
  /** The current table walk's flow key and what the walk did (for the table's walk memo). */
  readonly key = new WalkKey();
  readonly rec = new WalkRecorder();
  /**
   * The record of the previous table walk at this depth (this packet's previous table or hook, or the
   * previous packet's last walk: a flow's packets often follow each other), or null; see WalkRecord.next.
   */
  lastRecord: WalkRecord | null = null;
  /** The packet while a table walk runs (the targets read it), else null: hot paths pass it as an argument. */
  skb: SkBuff | null = null;
  inDev: NetDevice | null = null;
  outDev: NetDevice | null = null;
  hook = 0;
  table: NfTable | null = null;
  dropReason = 0;
  dropSite = "";
  dropExplanation: string | undefined = undefined;
  dropDstIdentity = 0;
  reply: Uint8Array | null = null;
  /** What this frame's last hook run leaves for the packet's next hook (see hook-carry.ts). */
  readonly carry = new HookCarry();
  /**
   * False once the current hook run did something after which its headers or conntrack facts may
   * no longer be what the next hook would read (ran a target, translated an ICMP error, bound or
   * confirmed an entry): it then keeps no carry.
   */
  clean = true;

  constructor(indexMinRules?: number) {
    this.trav = new Traversal(indexMinRules);
  }
}

export function siteOf(table: string, chain: NfChain | null, position: number, rule: NfRule | null): string {
  const chainName = chain?.name ?? "?";
  if (position === 0 || rule === null) return `netfilter/${table}/${chainName}:policy`;
  const comment = rule.comment;
  return `netfilter/${table}/${chainName}#${position}${comment !== undefined ? ` "${comment}"` : ""}`;
}


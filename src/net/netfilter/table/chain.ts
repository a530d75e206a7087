// One chain of a table: its rules in order, the policy and policy counters of a built-in chain,
// the rules elsewhere that jump here (reverse edges, for hook masks and loop checks), and the
// lookup index traversal builds for long chains.

import type { ChainIndex } from "./chain-index.js";
import type { DeferredCounts } from "./deferred-counts.js";
import { PacketCounter } from "./packet-counter.js";
import type { NfRule } from "./rule.js";

export type ChainPolicy = "ACCEPT" | "DROP";

export class NfChain {
  readonly rules: NfRule[] = [];
  policy: ChainPolicy = "ACCEPT";
  /** Packets that ended in the policy of this built-in chain. */
  readonly policyCounter: PacketCounter;
  /** Rules (in any chain of the table) that jump or go to this chain. */
  refs = 0;
  /** The chains holding those rules, with how many of them each holds. */
  readonly referrers = new Map<NfChain, number>();
  /** Traversal's lookup index: undefined until built for the current rules, null when not worth one. */
  index: ChainIndex | null | undefined = undefined;

  constructor(
    readonly name: string,
    /** Hook of a built-in chain, -1 for a user chain. */
    readonly hook: number,
    /** The owning table's deferred counter updates, flushed before the policy counters are read or set. */
    deferred: DeferredCounts | null = null,
  ) {
    this.policyCounter = new PacketCounter(deferred);
  }

  get builtin(): boolean {
    return this.hook >= 0;
  }

  /** One more rule of chain `from` jumps here. */
  addReferrer(from: NfChain): void {
    this.refs++;
    this.referrers.set(from, (this.referrers.get(from) ?? 0) + 1);
  }

  /** One rule of chain `from` no longer jumps here. */
  removeReferrer(from: NfChain): void {
    this.refs--;
    const n = (this.referrers.get(from) ?? 1) - 1;
    if (n === 0) this.referrers.delete(from);
    else this.referrers.set(from, n);
  }
}

// Walking one table's chains for a packet at a hook (ipt_do_table): rules in order, counters on
// every match, the first terminal target wins, jump pushes a return point and goto does not,
// RETURN (or the end of a user chain) pops, and a built-in chain ends in its policy. Long chains
// are walked through their ChainIndex: only the rules that can match the packet are visited.

import { CtState } from "../ct-state.js";
import type { NfChain, NfTable } from "./table.js";
import { CandidateCursor, ChainIndex, INDEX_MIN_RULES } from "./chain-index.js";
import { ruleMatches, type MatchContext, type MatchEnv } from "./match.js";
import { TargetKind, type NfRule } from "./rule.js";
import type { WalkRecorder } from "./walk-memo.js";

/** Returned by a target executor to go on with the next rule (XT_CONTINUE). */
export const CONTINUE = -1;
/** Returned by a target executor to return from the current chain (a PROGRAM's RETURN). */
export const RETURN = -2;

/** Runs targets that need netfilter's state (NAT, REJECT, PROGRAM); returns NfVerdict, CONTINUE or RETURN. */
export type TargetExecutor = (rule: NfRule, chain: NfChain, position: number) => number;

export class Traversal {
  private readonly stackChains: NfChain[] = [];
  private readonly stackPositions: number[] = [];
  private readonly cursor = new CandidateCursor();
  /** The chain and 1-based rule position that decided the verdict (position 0 = the chain's policy). */
  chain: NfChain | null = null;
  position = 0;
  rule: NfRule | null = null;

  constructor(
    /** Chains with at least this many rules are walked through a ChainIndex (Infinity: never). */
    private readonly indexMinRules: number = INDEX_MIN_RULES,
  ) {}

  /** Prepares the candidate cursor for a visit of chain from pos; false when the chain is walked linearly. */
  private enter(chain: NfChain, pos: number, ctx: MatchContext): boolean {
    if (chain.rules.length < this.indexMinRules) return false;
    let index = chain.index;
    if (index === undefined) index = chain.index = ChainIndex.build(chain.rules, this.indexMinRules);
    if (index === null) return false;
    const h = ctx.h!;
    // The keyed rules all have an L4 port match: they need the first fragment with a complete header.
    const keyValid = h.fragOffset === 0 && h.l4Offset >= 0 && h.status === 0;
    this.cursor.reset(index, keyValid, h.dst4, h.ipProto, h.dstPort, pos);
    return true;
  }

  /**
   * Traverses table's built-in chain for hook; returns an NfVerdict (DROP 0, ACCEPT 1, STOLEN 2).
   * rec, when given, records what a replay of the walk must repeat (see walk-memo.ts).
   */
  run(table: NfTable, hook: number, ctx: MatchContext, env: MatchEnv, exec: TargetExecutor, rec: WalkRecorder | null = null): number {
    const base = table.hooks[hook] ?? null;
    this.rule = null;
    this.chain = base;
    this.position = 0;
    if (base === null) return 1;
    let chain: NfChain = base;
    let pos = 0;
    let depth = 0;
    let indexed = this.enter(chain, 0, ctx);
    for (;;) {
      const rules = chain.rules;
      if (indexed) pos = this.cursor.next(pos, rules.length);
      let returning = pos >= rules.length;
      if (!returning) {
        const rule = rules[pos]!;
        table.rulesEvaluated++;
        if (rec !== null && rule.unreplayable) rec.replayable = false;
        const called = ctx.modulesCalled;
        const matched = ruleMatches(rule, ctx, env);
        table.matchesEvaluated += ctx.modulesCalled - called;
        if (!matched) {
          pos++;
          continue;
        }
        rule.addCounts(1, ctx.length);
        if (rec !== null) rec.matched(rule);
        switch (rule.target) {
          case TargetKind.ACCEPT:
            return this.decide(chain, pos + 1, rule, 1);
          case TargetKind.DROP:
            return this.decide(chain, pos + 1, rule, 0);
          case TargetKind.RETURN:
            returning = true;
            break;
          case TargetKind.JUMP:
            this.stackChains[depth] = chain;
            this.stackPositions[depth] = pos + 1;
            depth++;
            chain = rule.jumpChain!;
            pos = 0;
            indexed = this.enter(chain, 0, ctx);
            continue;
          case TargetKind.GOTO:
            chain = rule.jumpChain!;
            pos = 0;
            indexed = this.enter(chain, 0, ctx);
            continue;
          case TargetKind.MARK: {
            const skb = ctx.skb!;
            skb.mark = ((skb.mark & ~rule.xmarkMask) ^ rule.xmarkValue) >>> 0;
            pos++;
            continue;
          }
          case TargetKind.LOG:
          case TargetKind.NONE:
            pos++;
            continue;
          case TargetKind.NOTRACK: {
            const skb = ctx.skb!;
            skb.ctState = CtState.UNTRACKED;
            skb.ctEntry = -1;
            pos++;
            continue;
          }
          default: {
            if (rec !== null && rule.programVersion !== null) rec.ranProgram(rule, rule.programVersion());
            const v = exec(rule, chain, pos + 1);
            if (v === CONTINUE) {
              pos++;
              continue;
            }
            if (v === RETURN) {
              returning = true;
              break;
            }
            return this.decide(chain, pos + 1, rule, v);
          }
        }
      }
      // RETURN or end of chain.
      if (chain.builtin || depth === 0) {
        base.policyCounter.addCounts(1, ctx.length);
        if (rec !== null) rec.policy = base;
        return this.decide(base, 0, null, base.policy === "DROP" ? 0 : 1);
      }
      depth--;
      chain = this.stackChains[depth]!;
      pos = this.stackPositions[depth]!;
      indexed = this.enter(chain, pos, ctx);
    }
  }

  private decide(chain: NfChain, position: number, rule: NfRule | null, verdict: number): number {
    this.chain = chain;
    this.position = position;
    this.rule = rule;
    return verdict;
  }
}

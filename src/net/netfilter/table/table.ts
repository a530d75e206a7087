// An iptables table: built-in chains per hook with a policy and policy counters, user chains,
// and the edits iptables offers (-N -X -F -A -I -D -R -P -Z). A single edit is checked at once as
// the kernel checks a ruleset (targets only where their table and hooks allow, jumps only to
// existing chains, no loops, no deleting a referenced chain). Inside a transaction (one
// iptables-restore "*table ... COMMIT" block) the hook and loop checks run once at commit, over
// the whole table, and a failed commit or a rollback puts the table back as it was.

import { err, ok, type Result } from "../../../util/result.js";
import { BUILTIN_CHAINS, NF_HOOK_NAMES, type NfTableName } from "../hooks.js";
import { NfChain, type ChainPolicy } from "./chain.js";
import { checkTable, closureProblem, hookMaskOf, reaches, targetProblem } from "./jump-graph.js";
import { compileRule, TargetKind, type NfRule } from "./rule.js";
import type { NfError, NfRuleSpec } from "./spec.js";
import { DeferredCounts } from "./deferred-counts.js";
import { WalkMemo } from "./walk-memo.js";

export { NfChain, type ChainPolicy } from "./chain.js";

/** A commit the checks refused: the error and the rule at fault (null when a chain is). */
export interface NfCommitError extends NfError {
  readonly rule: NfRule | null;
}

/** What a rollback needs: the chain list at begin, and each touched chain's rules and policy before its first edit. */
interface Transaction {
  readonly chains: readonly NfChain[];
  readonly saved: Map<NfChain, { readonly rules: readonly NfRule[]; readonly policy: ChainPolicy }>;
}

export class NfTable {
  private readonly chainMap = new Map<string, NfChain>();
  /** Built-in chain per hook (null when this table has none at that hook). */
  readonly hooks: (NfChain | null)[] = [null, null, null, null, null];
  /** Bumped on every edit. */
  generation = 0;
  /** Rules whose matches were evaluated, over all traversals (monotonic; -Z does not reset it; read by metrics). */
  rulesEvaluated = 0;
  /** xt match modules called by the rules evaluated (monotonic; read by metrics). */
  matchesEvaluated = 0;
  /** Times a hook ran this table (ipt_do_table calls), over all hooks (monotonic; read by metrics). */
  traversals = 0;
  /** Walks remembered per flow for replay (records hold for the generation they were made at). */
  readonly walkMemo = new WalkMemo();
  /** Counter updates replays and empty chains leave for later (flushed by every counter read). */
  readonly deferred = new DeferredCounts(this.hooks);
  /**
   * Per hook (bit 1 << hook): the built-in chain there has rules or a DROP policy (walkHooks), or is
   * an empty ACCEPT chain (emptyHooks); read per packet instead of the chain's own fields. Valid
   * while hooksKnownAt equals the generation (every edit bumps it): see knowHooks().
   */
  walkHooks = 0;
  emptyHooks = 0;
  private hooksKnownAt = -1;
  private txn: Transaction | null = null;
  /** hasRules' answer and the generation it holds for (every edit bumps the generation). */
  private anyRules = false;
  private rulesKnownAt = -1;

  constructor(
    readonly name: NfTableName,
    /** Called after every edit (the owning netfilter re-reads its rule facts lazily). */
    private readonly onEdit: () => void = () => {},
  ) {
    for (const hookName of BUILTIN_CHAINS[name]) {
      const hook = NF_HOOK_NAMES.indexOf(hookName);
      const chain = new NfChain(hookName, hook, this.deferred);
      this.chainMap.set(hookName, chain);
      this.hooks[hook] = chain;
    }
  }

  chain(name: string): NfChain | undefined {
    return this.chainMap.get(name);
  }

  private edited(): void {
    this.generation++;
    this.onEdit();
  }

  /** True when any chain holds a rule (read at every metrics scrape: answered from a cache until the next edit). */
  hasRules(): boolean {
    if (this.rulesKnownAt !== this.generation) {
      let any = false;
      for (const c of this.chainMap.values()) if (c.rules.length > 0) any = true;
      this.anyRules = any;
      this.rulesKnownAt = this.generation;
    }
    return this.anyRules;
  }

  /** Brings walkHooks and emptyHooks up to date with the chains (after an edit). */
  knowHooks(): void {
    if (this.hooksKnownAt === this.generation) return;
    let walk = 0;
    let empty = 0;
    for (let hook = 0; hook < this.hooks.length; hook++) {
      const chain = this.hooks[hook];
      if (chain === null || chain === undefined) continue;
      if (chain.rules.length === 0 && chain.policy === "ACCEPT") empty |= 1 << hook;
      else walk |= 1 << hook;
    }
    this.walkHooks = walk;
    this.emptyHooks = empty;
    this.hooksKnownAt = this.generation;
  }

  /** Built-in chains first (hook order), then user chains in creation order. */
  chains(): NfChain[] {
    const all = [...this.chainMap.values()];
    return [...all.filter((c) => c.builtin).sort((a, b) => a.hook - b.hook), ...all.filter((c) => !c.builtin)];
  }

  /** True when some chain has a rule (or a built-in chain a DROP policy). */
  get inUse(): boolean {
    for (const c of this.chainMap.values()) if (c.rules.length > 0 || c.policy === "DROP") return true;
    return false;
  }

  // ---- transactions ---------------------------------------------------------------------------

  get inTransaction(): boolean {
    return this.txn !== null;
  }

  /** Starts a transaction: edits until commit() or rollback() are checked for hooks and loops only at commit. */
  begin(): Result<void, NfError> {
    if (this.txn !== null) return this.fail("", "transaction", "a transaction is already open");
    this.txn = { chains: [...this.chainMap.values()], saved: new Map() };
    return ok(undefined);
  }

  /** Checks the whole table (loops, targets against the hooks reaching them); on failure rolls back. */
  commit(): Result<void, NfCommitError> {
    if (this.txn === null) return err({ table: this.name, chain: "", field: "transaction", reason: "no transaction is open", rule: null });
    const problem = checkTable(this.name, this.chains());
    if (problem !== null) {
      this.rollback();
      return err({ table: this.name, chain: problem.chain.name, field: "target", reason: problem.reason, rule: problem.rule });
    }
    this.txn = null;
    this.edited();
    return ok(undefined);
  }

  /** Undoes every edit since begin(); rules that survive keep their counters. */
  rollback(): void {
    const txn = this.txn;
    if (txn === null) return;
    this.txn = null;
    this.chainMap.clear();
    for (const c of txn.chains) this.chainMap.set(c.name, c);
    for (const [c, before] of txn.saved) {
      c.rules.length = 0;
      for (const r of before.rules) c.rules.push(r);
      c.policy = before.policy;
      c.index = undefined;
    }
    for (const c of txn.chains) {
      c.refs = 0;
      c.referrers.clear();
    }
    for (const c of txn.chains) for (const r of c.rules) this.retain(c, r);
    this.edited();
  }

  // ---- edits --------------------------------------------------------------------------------------

  /** -N */
  newChain(name: string): Result<NfChain, NfError> {
    if (!/^[^\s!-][^\s]{0,28}$/.test(name)) return this.fail(name, "chain", `invalid chain name "${name}"`);
    if (this.chainMap.has(name)) return this.fail(name, "chain", "chain already exists");
    const chain = new NfChain(name, -1, this.deferred);
    this.chainMap.set(name, chain);
    this.edited();
    return ok(chain);
  }

  /** -X: deletes an empty, unreferenced user chain. */
  deleteChain(name: string): Result<void, NfError> {
    const chain = this.chainMap.get(name);
    if (chain === undefined) return this.fail(name, "chain", "no such chain");
    if (chain.builtin) return this.fail(name, "chain", "cannot delete a built-in chain");
    if (chain.refs > 0) return this.fail(name, "chain", `chain is referenced by ${chain.refs} rule(s)`);
    if (chain.rules.length > 0) return this.fail(name, "chain", "chain is not empty");
    this.chainMap.delete(name);
    this.edited();
    return ok(undefined);
  }

  /** -F: removes the rules of one chain, or of every chain. */
  flush(name?: string): Result<void, NfError> {
    const targets = name === undefined ? [...this.chainMap.values()] : [this.chainMap.get(name)];
    for (const c of targets) {
      if (c === undefined) return this.fail(name ?? "", "chain", "no such chain");
      if (c.rules.length === 0) continue;
      this.touch(c);
      for (const r of c.rules) this.release(c, r);
      c.rules.length = 0;
    }
    this.edited();
    return ok(undefined);
  }

  /** -A */
  append(chainName: string, spec: NfRuleSpec): Result<NfRule, NfError> {
    const chain = this.chainMap.get(chainName);
    return this.place(chain, chainName, spec, chain?.rules.length ?? 0);
  }

  /** -I: inserts at 1-based position (default 1). */
  insert(chainName: string, spec: NfRuleSpec, position = 1): Result<NfRule, NfError> {
    const chain = this.chainMap.get(chainName);
    if (chain !== undefined && (position < 1 || position > chain.rules.length + 1)) {
      return this.fail(chainName, "position", `index ${position} out of range`);
    }
    return this.place(chain, chainName, spec, position - 1);
  }

  /** -R: replaces the rule at 1-based position. */
  replace(chainName: string, position: number, spec: NfRuleSpec): Result<NfRule, NfError> {
    const chain = this.chainMap.get(chainName);
    if (chain === undefined) return this.fail(chainName, "chain", "no such chain");
    const old = chain.rules[position - 1];
    if (old === undefined) return this.fail(chainName, "position", `index ${position} out of range`);
    this.touch(chain);
    chain.rules.splice(position - 1, 1);
    this.release(chain, old);
    const placed = this.place(chain, chainName, spec, position - 1);
    if (!placed.ok) {
      chain.rules.splice(position - 1, 0, old);
      this.retain(chain, old);
    }
    return placed;
  }

  /** -D by 1-based position. */
  delete(chainName: string, position: number): Result<NfRule, NfError> {
    const chain = this.chainMap.get(chainName);
    if (chain === undefined) return this.fail(chainName, "chain", "no such chain");
    const rule = chain.rules[position - 1];
    if (rule === undefined) return this.fail(chainName, "position", `index ${position} out of range`);
    this.touch(chain);
    chain.rules.splice(position - 1, 1);
    this.release(chain, rule);
    this.edited();
    return ok(rule);
  }

  /** -P */
  setPolicy(chainName: string, policy: ChainPolicy): Result<void, NfError> {
    const chain = this.chainMap.get(chainName);
    if (chain === undefined || !chain.builtin) return this.fail(chainName, "policy", "policy only on built-in chains");
    if (policy === "DROP" && this.name === "nat") return this.fail(chainName, "policy", "the nat table is not for filtering");
    this.touch(chain);
    chain.policy = policy;
    this.edited();
    return ok(undefined);
  }

  /** -Z: zeroes rule and policy counters. */
  zero(): void {
    for (const c of this.chainMap.values()) {
      c.policyCounter.zero();
      for (const r of c.rules) r.zero();
    }
  }

  /** Hooks from which a chain can be reached (bitmask of 1 << hook). */
  hookMask(chain: NfChain): number {
    return hookMaskOf(chain);
  }

  private fail(chain: string, field: string, reason: string): Result<never, NfError> {
    return err({ table: this.name, chain, field, reason });
  }

  private place(chain: NfChain | undefined, chainName: string, spec: NfRuleSpec, at: number): Result<NfRule, NfError> {
    if (chain === undefined) return this.fail(chainName, "chain", "no such chain");
    const compiled = compileRule(spec, this.name, chainName);
    if (!compiled.ok) return compiled;
    const rule = compiled.value;
    // Outside a transaction the hooks that reach the chain are checked now; inside, at commit.
    const checkNow = this.txn === null;
    const mask = checkNow ? hookMaskOf(chain) : 0;
    const problem = targetProblem(this.name, rule.target, mask);
    if (problem !== null) return this.fail(chainName, "target", `${spec.target.kind} ${problem}`);
    if (rule.target === TargetKind.JUMP || rule.target === TargetKind.GOTO) {
      const to = this.chainMap.get(rule.jumpName);
      if (to === undefined) return this.fail(chainName, "target", `no chain "${rule.jumpName}" to jump to`);
      if (to.builtin) return this.fail(chainName, "target", "cannot jump to a built-in chain");
      if (checkNow) {
        if (reaches(to, chain)) return this.fail(chainName, "target", `jump to "${to.name}" makes a loop`);
        const bad = mask === 0 ? null : closureProblem(this.name, to, mask);
        if (bad !== null) return this.fail(chainName, "target", bad.reason);
      }
      rule.jumpChain = to;
    }
    this.touch(chain);
    rule.deferred = this.deferred;
    chain.rules.splice(at, 0, rule);
    this.retain(chain, rule);
    this.edited();
    return ok(rule);
  }

  /** Before a chain's first edit in a transaction: remember its rules and policy. Any edit drops its index. */
  private touch(chain: NfChain): void {
    chain.index = undefined;
    const txn = this.txn;
    if (txn !== null && !txn.saved.has(chain)) txn.saved.set(chain, { rules: chain.rules.slice(), policy: chain.policy });
  }

  private retain(chain: NfChain, rule: NfRule): void {
    rule.jumpChain?.addReferrer(chain);
  }

  private release(chain: NfChain, rule: NfRule): void {
    rule.jumpChain?.removeReferrer(chain);
  }
}

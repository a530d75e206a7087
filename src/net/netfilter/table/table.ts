// An iptables table: built-in chains per hook with a policy and policy counters, user chains,
// and the edits iptables offers (-N -X -F -A -I -D -R -P -Z). Edits are checked as the kernel and
// iptables check a ruleset: targets only where their table and hooks allow, jumps only to existing
// chains, no loops, no deleting a chain that is still referenced.

import { err, ok, type Result } from "../../../util/result.js";
import { BUILTIN_CHAINS, NF_HOOK_NAMES, NfHook, type NfTableName } from "../hooks.js";
import { compileRule, NfRule, TargetKind } from "./rule.js";
import type { NfError, NfRuleSpec } from "./spec.js";

export type ChainPolicy = "ACCEPT" | "DROP";

export class NfChain {
  readonly rules: NfRule[] = [];
  policy: ChainPolicy = "ACCEPT";
  policyPackets = 0;
  policyBytes = 0;
  /** Rules (in any chain of the table) that jump or go to this chain. */
  refs = 0;

  constructor(
    readonly name: string,
    /** Hook of a built-in chain, -1 for a user chain. */
    readonly hook: number,
  ) {}

  get builtin(): boolean {
    return this.hook >= 0;
  }
}

const hookBit = (hook: number): number => 1 << hook;
const DNAT_HOOKS = hookBit(NfHook.PREROUTING) | hookBit(NfHook.OUTPUT);
const SNAT_HOOKS = hookBit(NfHook.POSTROUTING) | hookBit(NfHook.INPUT);
const REJECT_HOOKS = hookBit(NfHook.INPUT) | hookBit(NfHook.FORWARD) | hookBit(NfHook.OUTPUT);

/** Why a target may not be used in this table for these hooks, or null when it may. */
function targetProblem(table: NfTableName, target: number, hooks: number): string | null {
  switch (target) {
    case TargetKind.DNAT:
    case TargetKind.REDIRECT:
      if (table !== "nat") return "only valid in the nat table";
      return hooks & ~DNAT_HOOKS ? "only valid in PREROUTING and OUTPUT" : null;
    case TargetKind.SNAT:
      if (table !== "nat") return "only valid in the nat table";
      return hooks & ~SNAT_HOOKS ? "only valid in POSTROUTING and INPUT" : null;
    case TargetKind.MASQUERADE:
      if (table !== "nat") return "only valid in the nat table";
      return hooks & ~hookBit(NfHook.POSTROUTING) ? "only valid in POSTROUTING" : null;
    case TargetKind.NOTRACK:
      return table === "raw" ? null : "only valid in the raw table";
    case TargetKind.REJECT:
      if (table === "nat") return "the nat table is not for filtering";
      return hooks & ~REJECT_HOOKS ? "only valid in INPUT, FORWARD and OUTPUT" : null;
    case TargetKind.DROP:
      return table === "nat" ? "the nat table is not for filtering (DROP is inhibited)" : null;
    default:
      return null;
  }
}

export class NfTable {
  private readonly chainMap = new Map<string, NfChain>();
  /** Built-in chain per hook (null when this table has none at that hook). */
  readonly hooks: (NfChain | null)[] = [null, null, null, null, null];
  /** Bumped on every edit. */
  generation = 0;

  constructor(readonly name: NfTableName) {
    for (const hookName of BUILTIN_CHAINS[name]) {
      const hook = NF_HOOK_NAMES.indexOf(hookName);
      const chain = new NfChain(hookName, hook);
      this.chainMap.set(hookName, chain);
      this.hooks[hook] = chain;
    }
  }

  chain(name: string): NfChain | undefined {
    return this.chainMap.get(name);
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

  /** -N */
  newChain(name: string): Result<NfChain, NfError> {
    if (!/^[^\s!-][^\s]{0,28}$/.test(name)) return this.fail(name, "chain", `invalid chain name "${name}"`);
    if (this.chainMap.has(name)) return this.fail(name, "chain", "chain already exists");
    const chain = new NfChain(name, -1);
    this.chainMap.set(name, chain);
    this.generation++;
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
    this.generation++;
    return ok(undefined);
  }

  /** -F: removes the rules of one chain, or of every chain. */
  flush(name?: string): Result<void, NfError> {
    const targets = name === undefined ? [...this.chainMap.values()] : [this.chainMap.get(name)];
    for (const c of targets) {
      if (c === undefined) return this.fail(name ?? "", "chain", "no such chain");
      for (const r of c.rules) this.release(r);
      c.rules.length = 0;
    }
    this.generation++;
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
    chain.rules.splice(position - 1, 1);
    this.release(old);
    const placed = this.place(chain, chainName, spec, position - 1);
    if (!placed.ok) {
      chain.rules.splice(position - 1, 0, old);
      this.retain(old);
    }
    return placed;
  }

  /** -D by 1-based position. */
  delete(chainName: string, position: number): Result<NfRule, NfError> {
    const chain = this.chainMap.get(chainName);
    if (chain === undefined) return this.fail(chainName, "chain", "no such chain");
    const rule = chain.rules[position - 1];
    if (rule === undefined) return this.fail(chainName, "position", `index ${position} out of range`);
    chain.rules.splice(position - 1, 1);
    this.release(rule);
    this.generation++;
    return ok(rule);
  }

  /** -P */
  setPolicy(chainName: string, policy: ChainPolicy): Result<void, NfError> {
    const chain = this.chainMap.get(chainName);
    if (chain === undefined || !chain.builtin) return this.fail(chainName, "policy", "policy only on built-in chains");
    if (policy === "DROP" && this.name === "nat") return this.fail(chainName, "policy", "the nat table is not for filtering");
    chain.policy = policy;
    this.generation++;
    return ok(undefined);
  }

  /** -Z: zeroes rule and policy counters. */
  zero(): void {
    for (const c of this.chainMap.values()) {
      c.policyPackets = 0;
      c.policyBytes = 0;
      for (const r of c.rules) {
        r.packets = 0;
        r.bytes = 0;
      }
    }
  }

  /** Hooks from which a chain can be reached (bitmask of 1 << hook). */
  hookMask(chain: NfChain, seen: Set<NfChain> = new Set()): number {
    if (chain.builtin) return hookBit(chain.hook);
    if (seen.has(chain)) return 0;
    seen.add(chain);
    let mask = 0;
    for (const c of this.chainMap.values()) {
      if (c.rules.some((r) => r.jumpChain === chain)) mask |= this.hookMask(c, seen);
    }
    return mask;
  }

  private fail(chain: string, field: string, reason: string): Result<never, NfError> {
    return err({ table: this.name, chain, field, reason });
  }

  private place(chain: NfChain | undefined, chainName: string, spec: NfRuleSpec, at: number): Result<NfRule, NfError> {
    if (chain === undefined) return this.fail(chainName, "chain", "no such chain");
    const compiled = compileRule(spec, this.name, chainName);
    if (!compiled.ok) return compiled;
    const rule = compiled.value;
    const mask = this.hookMask(chain);
    const problem = targetProblem(this.name, rule.target, mask);
    if (problem !== null) return this.fail(chainName, "target", `${spec.target.kind} ${problem}`);
    if (rule.target === TargetKind.JUMP || rule.target === TargetKind.GOTO) {
      const to = this.chainMap.get(rule.jumpName);
      if (to === undefined) return this.fail(chainName, "target", `no chain "${rule.jumpName}" to jump to`);
      if (to.builtin) return this.fail(chainName, "target", "cannot jump to a built-in chain");
      if (to === chain || this.reaches(to, chain)) return this.fail(chainName, "target", `jump to "${to.name}" makes a loop`);
      const bad = this.closureProblem(to, mask | this.hookMask(to));
      if (bad !== null) return this.fail(chainName, "target", bad);
      rule.jumpChain = to;
    }
    chain.rules.splice(at, 0, rule);
    this.retain(rule);
    this.generation++;
    return ok(rule);
  }

  /** True when `to` can be reached from `from` by jumps. */
  private reaches(from: NfChain, to: NfChain, seen: Set<NfChain> = new Set()): boolean {
    if (seen.has(from)) return false;
    seen.add(from);
    for (const r of from.rules) {
      const next = r.jumpChain;
      if (next === null) continue;
      if (next === to || this.reaches(next, to, seen)) return true;
    }
    return false;
  }

  /** The first target in chain (and chains it reaches) that the hooks in mask do not allow. */
  private closureProblem(chain: NfChain, mask: number, seen: Set<NfChain> = new Set()): string | null {
    if (seen.has(chain)) return null;
    seen.add(chain);
    for (const r of chain.rules) {
      const p = targetProblem(this.name, r.target, mask);
      if (p !== null) return `${r.spec.target.kind} in chain "${chain.name}" ${p}`;
      const next = r.jumpChain;
      if (next !== null) {
        const q = this.closureProblem(next, mask, seen);
        if (q !== null) return q;
      }
    }
    return null;
  }

  private retain(rule: NfRule): void {
    const to = rule.jumpChain;
    if (to !== null) to.refs++;
  }

  private release(rule: NfRule): void {
    const to = rule.jumpChain;
    if (to !== null) to.refs--;
  }
}

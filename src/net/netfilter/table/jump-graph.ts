// The checks the kernel makes on a table's jump graph (mark_source_chains, then each target's
// checkentry with the hooks that reach its chain): no loops, and every target allowed in its table
// and at those hooks. A single edit checks only what it touches, through the reverse edges; a
// transaction's commit checks the whole table once, in time linear in its rules.

import { NfHook, type NfTableName } from "../hooks.js";
import type { NfChain } from "./chain.js";
import { TargetKind, type NfRule } from "./rule.js";

const hookBit = (hook: number): number => 1 << hook;
const DNAT_HOOKS = hookBit(NfHook.PREROUTING) | hookBit(NfHook.OUTPUT);
const SNAT_HOOKS = hookBit(NfHook.POSTROUTING) | hookBit(NfHook.INPUT);
const REJECT_HOOKS = hookBit(NfHook.INPUT) | hookBit(NfHook.FORWARD) | hookBit(NfHook.OUTPUT);

/** Why a target may not be used in this table for these hooks (0: only the table's rules), or null when it may. */
export function targetProblem(table: NfTableName, target: number, hooks: number): string | null {
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

/** A rule (or chain) the checks refuse, and why. */
export interface GraphProblem {
  readonly chain: NfChain;
  readonly rule: NfRule | null;
  readonly reason: string;
}

/** Hooks from which chain can be reached (bitmask of 1 << hook): walks its ancestors only. */
export function hookMaskOf(chain: NfChain): number {
  if (chain.builtin) return hookBit(chain.hook);
  let mask = 0;
  const seen = new Set<NfChain>([chain]);
  const stack = [chain];
  while (stack.length > 0) {
    for (const from of stack.pop()!.referrers.keys()) {
      if (from.builtin) mask |= hookBit(from.hook);
      else if (!seen.has(from)) {
        seen.add(from);
        stack.push(from);
      }
    }
  }
  return mask;
}

/** True when `ancestor` is `chain` or reaches it by jumps: walks chain's ancestors only. */
export function reaches(ancestor: NfChain, chain: NfChain): boolean {
  if (ancestor === chain) return true;
  const seen = new Set<NfChain>([chain]);
  const stack = [chain];
  while (stack.length > 0) {
    for (const from of stack.pop()!.referrers.keys()) {
      if (from === ancestor) return true;
      if (!seen.has(from)) {
        seen.add(from);
        stack.push(from);
      }
    }
  }
  return false;
}

/** The first target in chain, or in a chain it reaches, that the hooks in mask do not allow. */
export function closureProblem(table: NfTableName, chain: NfChain, mask: number): GraphProblem | null {
  const seen = new Set<NfChain>([chain]);
  const stack = [chain];
  while (stack.length > 0) {
    const c = stack.pop()!;
    for (const r of c.rules) {
      const p = targetProblem(table, r.target, mask);
      if (p !== null) return { chain: c, rule: r, reason: `${r.spec.target.kind} in chain "${c.name}" ${p}` };
      const next = r.jumpChain;
      if (next !== null && !seen.has(next)) {
        seen.add(next);
        stack.push(next);
      }
    }
  }
  return null;
}

const WHITE = 0;
const GREY = 1;
const BLACK = 2;

/** The first jump (in chain order) that closes a loop, or null. */
function findLoop(chains: readonly NfChain[]): GraphProblem | null {
  const color = new Map<NfChain, number>();
  const stackChains: NfChain[] = [];
  const stackNext: number[] = [];
  for (const root of chains) {
    if ((color.get(root) ?? WHITE) !== WHITE) continue;
    color.set(root, GREY);
    stackChains.push(root);
    stackNext.push(0);
    while (stackChains.length > 0) {
      const top = stackChains.length - 1;
      const c = stackChains[top]!;
      const i = stackNext[top]!;
      if (i >= c.rules.length) {
        color.set(c, BLACK);
        stackChains.pop();
        stackNext.pop();
        continue;
      }
      stackNext[top] = i + 1;
      const r = c.rules[i]!;
      const to = r.jumpChain;
      if (to === null) continue;
      const state = color.get(to) ?? WHITE;
      if (state === GREY) return { chain: c, rule: r, reason: `jump to "${to.name}" makes a loop` };
      if (state === WHITE) {
        color.set(to, GREY);
        stackChains.push(to);
        stackNext.push(0);
      }
    }
  }
  return null;
}

/** The whole table's check, as at an iptables-restore COMMIT: loops, then every target against the hooks reaching its chain. */
export function checkTable(table: NfTableName, chains: readonly NfChain[]): GraphProblem | null {
  const loop = findLoop(chains);
  if (loop !== null) return loop;
  const masks = new Map<NfChain, number>();
  for (const base of chains) {
    if (!base.builtin) continue;
    const bit = hookBit(base.hook);
    masks.set(base, bit);
    const stack = [base];
    while (stack.length > 0) {
      for (const r of stack.pop()!.rules) {
        const to = r.jumpChain;
        if (to === null) continue;
        const m = masks.get(to) ?? 0;
        if (m & bit) continue;
        masks.set(to, m | bit);
        stack.push(to);
      }
    }
  }
  for (const c of chains) {
    const mask = masks.get(c) ?? 0;
    if (mask === 0) continue;
    for (const r of c.rules) {
      const p = targetProblem(table, r.target, mask);
      if (p !== null) return { chain: c, rule: r, reason: `${r.spec.target.kind} ${p}` };
    }
  }
  return null;
}

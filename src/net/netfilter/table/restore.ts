// iptables-restore input (*table, :CHAIN POLICY, -A/-I/-D/-R/-N/-X/-F/-P, COMMIT) applied to a
// Netfilter as iptables-restore applies it: each "*table ... COMMIT" block is one transaction on
// that table, checked as a whole at COMMIT and applied all or nothing; blocks committed before a
// failure stay. Errors name the line: the offending line, or for a refused COMMIT the rule at fault.

import { err, ok, type Result } from "../../../util/result.js";
import { NF_TABLE_NAMES, type NfTableName } from "../hooks.js";
import type { Netfilter } from "../netfilter.js";
import { parseRuleArgs, splitWords } from "./iptables-text.js";
import type { NfRule } from "./rule.js";
import type { NfTable } from "./table.js";

export interface RestoreError {
  /** 1-based line of the input. */
  readonly line: number;
  readonly reason: string;
}

export interface RestoreOptions {
  /** --noflush: keep what the tables hold; only chains declared with ":NAME" are created or flushed. */
  readonly noflush?: boolean;
}

/** The table block being read: its table and the line each rule placed in it came from. */
interface Block {
  readonly table: NfTable;
  readonly ruleLines: Map<NfRule, number>;
}

/**
 * Applies iptables-restore input. Without noflush every table named in the input is emptied first
 * (rules flushed, user chains removed); with noflush (kube-proxy's mode) only chains declared with
 * ":NAME" are created or flushed. Stops at the first error, leaving that table as it was.
 */
export function iptablesRestore(nf: Netfilter, input: string, options: RestoreOptions = {}): Result<void, RestoreError> {
  const lines = input.split("\n");
  let block: Block | null = null;
  const fail = (line: number, reason: string): Result<void, RestoreError> => {
    block?.table.rollback();
    return err({ line, reason });
  };
  for (let n = 0; n < lines.length; n++) {
    const lineNo = n + 1;
    const line = lines[n]!.trim();
    if (line === "" || line.startsWith("#")) continue;
    if (line.startsWith("*")) {
      if (block !== null) return fail(lineNo, `table "${block.table.name}" has no COMMIT before "${line}"`);
      const name = line.slice(1);
      if (!(NF_TABLE_NAMES as readonly string[]).includes(name)) return fail(lineNo, `unknown table "${name}"`);
      const table = nf.table(name as NfTableName);
      const began = table.begin();
      if (!began.ok) return fail(lineNo, began.error.reason);
      block = { table, ruleLines: new Map() };
      if (options.noflush !== true) {
        table.flush();
        for (const c of table.chains()) if (!c.builtin) table.deleteChain(c.name);
      }
      continue;
    }
    if (block === null) return fail(lineNo, "rule outside a *table section");
    if (line === "COMMIT") {
      const { table, ruleLines } = block;
      block = null;
      const done = table.commit();
      if (!done.ok) {
        const at = done.error.rule === null ? lineNo : (ruleLines.get(done.error.rule) ?? lineNo);
        return err({ line: at, reason: `${done.error.reason} (table ${table.name} not committed, COMMIT on line ${lineNo})` });
      }
      continue;
    }
    const problem = line.startsWith(":") ? declareChain(block.table, line, options) : applyCommand(block, line, lineNo);
    if (problem !== null) return fail(lineNo, problem);
  }
  if (block !== null) return fail(lines.length, `table "${block.table.name}" has no COMMIT`);
  return ok(undefined);
}

/** ":NAME POLICY [packets:bytes]": creates a user chain (or flushes an existing one), sets a built-in's policy. */
function declareChain(t: NfTable, line: string, options: RestoreOptions): string | null {
  const m = /^:(\S+)\s+(\S+)(?:\s+\[\d+:\d+\])?$/.exec(line);
  if (m === null) return `bad chain line "${line}"`;
  const [, name, policy] = m as unknown as [string, string, string];
  const chain = t.chain(name);
  if (chain === undefined || !chain.builtin) {
    if (chain !== undefined && options.noflush === true) t.flush(name);
    else {
      const made = t.newChain(name);
      if (!made.ok) return made.error.reason;
    }
  }
  if (policy === "-") return null;
  if (policy !== "ACCEPT" && policy !== "DROP") return `bad policy "${policy}"`;
  const set = t.setPolicy(name, policy);
  return set.ok ? null : set.error.reason;
}

/** One command line (-A, -I, -D, -R, -N, -X, -F, -P); returns the problem or null. */
function applyCommand(block: Block, line: string, lineNo: number): string | null {
  const t = block.table;
  const words = splitWords(line);
  if (!words.ok) return words.error;
  const [op, chainName, ...rest] = words.value;
  if (chainName === undefined) return `"${op}" needs a chain`;
  const numbered = rest[0] !== undefined && /^\d+$/.test(rest[0]);
  let r: Result<unknown, { reason: string }>;
  switch (op) {
    case "-A":
    case "--append":
    case "-I":
    case "--insert":
    case "-R":
    case "--replace": {
      const insert = op === "-I" || op === "--insert";
      const replace = op === "-R" || op === "--replace";
      if (replace && !numbered) return `"${op}" needs a rule number`;
      const spec = parseRuleArgs(numbered && (insert || replace) ? rest.slice(1) : rest);
      if (!spec.ok) return spec.error;
      const position = numbered ? Number(rest[0]) : 1;
      const placed = insert ? t.insert(chainName, spec.value, position) : replace ? t.replace(chainName, position, spec.value) : t.append(chainName, spec.value);
      if (placed.ok) block.ruleLines.set(placed.value, lineNo);
      r = placed;
      break;
    }
    case "-D":
    case "--delete": {
      if (rest.length === 1 && numbered) {
        r = t.delete(chainName, Number(rest[0]));
        break;
      }
      const spec = parseRuleArgs(rest);
      if (!spec.ok) return spec.error;
      const wanted = JSON.stringify(spec.value);
      const index = t.chain(chainName)?.rules.findIndex((rule) => JSON.stringify(rule.spec) === wanted) ?? -1;
      if (index < 0) return "no matching rule to delete";
      r = t.delete(chainName, index + 1);
      break;
    }
    case "-N":
    case "--new-chain":
      r = t.newChain(chainName);
      break;
    case "-X":
    case "--delete-chain":
      r = t.deleteChain(chainName);
      break;
    case "-F":
    case "--flush":
      r = t.flush(chainName);
      break;
    case "-P":
    case "--policy":
      if (rest[0] !== "ACCEPT" && rest[0] !== "DROP") return `bad policy "${rest[0] ?? ""}"`;
      r = t.setPolicy(chainName, rest[0]);
      break;
    default:
      return `unsupported command "${op}"`;
  }
  return r.ok ? null : r.error.reason;
}

// Puts a ruleset into a namespace's Netfilter the way kube-proxy does: ensure its chains exist and
// the built-in chains jump to them (EnsureChain / EnsureRule with Prepend, so an existing rule is left
// where it is), then iptables-restore --noflush the generated text.
import { err, ok, type Result } from "../../util/result.js";
import type { Netfilter, NfTableName } from "../../net/netfilter/index.js";
import { iptablesRestore, parseRuleArgs } from "../../net/netfilter/index.js";
import { KubeChain } from "./chain-names.js";

interface JumpChain {
  readonly table: NfTableName;
  readonly dst: string;
  readonly src: string;
  readonly comment: string;
  readonly extra: readonly string[];
}

const NEW = ["-m", "conntrack", "--ctstate", "NEW"];

/** iptablesJumpChains then iptablesKubeletJumpChains, in upstream's order. */
export const JUMP_CHAINS: readonly JumpChain[] = [
  { table: "filter", dst: KubeChain.EXTERNAL_SERVICES, src: "INPUT", comment: "kubernetes externally-visible service portals", extra: NEW },
  { table: "filter", dst: KubeChain.EXTERNAL_SERVICES, src: "FORWARD", comment: "kubernetes externally-visible service portals", extra: NEW },
  { table: "filter", dst: KubeChain.NODEPORTS, src: "INPUT", comment: "kubernetes health check service ports", extra: [] },
  { table: "filter", dst: KubeChain.SERVICES, src: "FORWARD", comment: "kubernetes service portals", extra: NEW },
  { table: "filter", dst: KubeChain.SERVICES, src: "OUTPUT", comment: "kubernetes service portals", extra: NEW },
  { table: "filter", dst: KubeChain.FORWARD, src: "FORWARD", comment: "kubernetes forwarding rules", extra: [] },
  { table: "filter", dst: KubeChain.PROXY_FIREWALL, src: "INPUT", comment: "kubernetes load balancer firewall", extra: NEW },
  { table: "filter", dst: KubeChain.PROXY_FIREWALL, src: "OUTPUT", comment: "kubernetes load balancer firewall", extra: NEW },
  { table: "filter", dst: KubeChain.PROXY_FIREWALL, src: "FORWARD", comment: "kubernetes load balancer firewall", extra: NEW },
  { table: "nat", dst: KubeChain.SERVICES, src: "OUTPUT", comment: "kubernetes service portals", extra: [] },
  { table: "nat", dst: KubeChain.SERVICES, src: "PREROUTING", comment: "kubernetes service portals", extra: [] },
  { table: "nat", dst: KubeChain.POSTROUTING, src: "POSTROUTING", comment: "kubernetes postrouting rules", extra: [] },
  { table: "filter", dst: KubeChain.FIREWALL, src: "INPUT", comment: "", extra: [] },
  { table: "filter", dst: KubeChain.FIREWALL, src: "OUTPUT", comment: "", extra: [] },
];

/** Tables iptables.Monitor puts its canary chain in. */
const CANARY_TABLES: readonly NfTableName[] = ["mangle", "nat", "filter"];

export interface LoadError {
  readonly stage: "ensure" | "restore";
  readonly table: string;
  readonly chain: string;
  /** 1-based line of the restore input (0 for ensure errors). */
  readonly line: number;
  readonly lineText: string;
  readonly reason: string;
}

/** The words of a jump rule, as kube-proxy passes them to iptables. */
export function jumpRuleArgs(j: JumpChain): string[] {
  return [...j.extra, ...(j.comment === "" ? [] : ["-m", "comment", "--comment", j.comment]), "-j", j.dst];
}

/** EnsureChain + EnsureRule(Prepend) for every jump; returns how many rules were inserted. */
export function ensureJumpChains(nf: Netfilter): Result<number, LoadError> {
  let inserted = 0;
  const fail = (j: { table: string; src: string }, reason: string): Result<number, LoadError> =>
    err({ stage: "ensure", table: j.table, chain: j.src, line: 0, lineText: "", reason });
  for (const table of CANARY_TABLES) {
    const t = nf.table(table);
    if (t.chain(KubeChain.PROXY_CANARY) === undefined) {
      const made = t.newChain(KubeChain.PROXY_CANARY);
      if (!made.ok) return fail({ table, src: KubeChain.PROXY_CANARY }, made.error.reason);
    }
  }
  for (const j of JUMP_CHAINS) {
    const t = nf.table(j.table);
    if (t.chain(j.dst) === undefined) {
      const made = t.newChain(j.dst);
      if (!made.ok) return fail(j, made.error.reason);
    }
    const spec = parseRuleArgs(jumpRuleArgs(j));
    if (!spec.ok) return fail(j, spec.error);
    const wanted = JSON.stringify(spec.value);
    if (t.chain(j.src)?.rules.some((r) => JSON.stringify(r.spec) === wanted) === true) continue;
    const placed = t.insert(j.src, spec.value, 1);
    if (!placed.ok) return fail(j, placed.error.reason);
    inserted++;
  }
  return ok(inserted);
}

/** Names of the nat table's chains (what iptables-save would list). */
export function natChainNames(nf: Netfilter): Set<string> {
  return new Set(nf.table("nat").chains().map((c) => c.name));
}

/** iptables-restore --noflush of kube-proxy's text; an error names the line and its text. */
export function restoreRuleset(nf: Netfilter, text: string): Result<void, LoadError> {
  const r = iptablesRestore(nf, text, { noflush: true });
  if (r.ok) return ok(undefined);
  const lines = text.split("\n");
  const lineText = lines[r.error.line - 1] ?? "";
  let table = "";
  for (let i = r.error.line - 1; i >= 0; i--) {
    const l = lines[i]!;
    if (l.startsWith("*")) {
      table = l.slice(1);
      break;
    }
  }
  const chain = /^(?:-[AX]|:)\s*(\S+)/.exec(lineText)?.[1] ?? "";
  return err({ stage: "restore", table, chain, line: r.error.line, lineText, reason: r.error.reason });
}

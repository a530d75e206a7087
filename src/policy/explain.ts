// Explanations of policy verdicts, for the reference evaluator and for compiled (datapath)
// decisions: the structure says which policies isolate the endpoint and, per rule, which peer or
// port clause failed; the text renders it for people. A compiled decision is explained by what the
// datapath saw (ipcache identity, policy map entry and its ruleRef) plus the reference's reasons.
import { Direction as MapDirection, PolicyVerdict } from "../../datapath/maps/policy.js";
import { formatIPv4 } from "../util/ip.js";
import type { PolicyCompiler } from "./compiler.js";
import { decideAt, type CompiledDecision } from "./decide.js";
import { describeIdentity } from "./identities.js";
import { addressOwner, evaluateDirection } from "./reference.js";
import type { RuleOrigin } from "./rule-table.js";
import { protoName } from "./types.js";
import { Direction, DirectionReason, type ConnectionVerdict, type DirectionVerdict } from "./verdict.js";

export type DatapathFacts = {
  readonly node: string;
  readonly peerIp: string;
  readonly identity: string;
  readonly verdict: "allow" | "drop";
  readonly ruleRef: number;
  readonly origin: RuleOrigin | null;
};

export type CompiledExplanation = {
  readonly datapath: DatapathFacts;
  /** The reference evaluator's reading of the same traffic (which policies, which clauses). */
  readonly policy: DirectionVerdict;
  /** False would mean the compiled maps and the specification disagree (a bug). */
  readonly agrees: boolean;
};

/** Explains a compiled decision at an endpoint for traffic of `proto`/`port` with the decision's peer. */
export function explainDecision(compiler: PolicyCompiler, d: CompiledDecision, proto: number, port: number): CompiledExplanation {
  const world = compiler.world;
  const ep = compiler.endpoint(d.endpoint)!;
  const direction = d.direction === MapDirection.INGRESS ? Direction.INGRESS : Direction.EGRESS;
  const policy = evaluateDirection(world, direction, { kind: "pod", ip: ep.pod.ip, pod: ep.pod }, addressOwner(world, d.peerIp), proto, port, compiler.options);
  const allowed = d.verdict === PolicyVerdict.ALLOW;
  return {
    datapath: {
      node: d.node,
      peerIp: formatIPv4(d.peerIp),
      identity: describeIdentity(d.identity, compiler.identities.info(d.identity)),
      verdict: allowed ? "allow" : "drop",
      ruleRef: d.ruleRef,
      origin: allowed ? (compiler.ruleTable.origin(d.ruleRef) ?? null) : null,
    },
    policy,
    agrees: policy.allowed === allowed,
  };
}

/** Decides and explains one direction at a pod (null when the pod has no endpoint). */
export function explainAt(
  compiler: PolicyCompiler,
  podKey: string,
  direction: number,
  peerIp: number,
  proto: number,
  port: number,
): CompiledExplanation | null {
  const d = decideAt(compiler, podKey, direction, peerIp, proto, port);
  return d === null ? null : explainDecision(compiler, d, proto, port);
}

// ---- text

function verdictWord(allowed: boolean): string {
  return allowed ? "ALLOWED" : "DENIED";
}

/** Lines describing one direction: outcome, isolating policies, and per rule why it did or did not match. */
export function formatDirection(v: DirectionVerdict): string[] {
  const where = v.direction === Direction.INGRESS ? "into" : "out of";
  if (v.reason === DirectionReason.NOT_A_POD) return [`${v.direction}: not a pod, so no NetworkPolicy applies on this side`];
  const lines = [`${v.direction} ${where} pod ${v.endpoint}, peer ${v.peer}: ${verdictWord(v.allowed)}`];
  switch (v.reason) {
    case DirectionReason.NOT_ISOLATED:
      lines.push(`  no NetworkPolicy selects pod ${v.endpoint} for ${v.direction}, so it is not isolated`);
      return lines;
    case DirectionReason.OWN_NODE:
      lines.push(`  traffic from the pod's own node is always allowed`);
      break;
    case DirectionReason.RULE_ALLOWS:
      lines.push(`  isolated by ${v.policies.length} polic${v.policies.length === 1 ? "y" : "ies"}; a rule allows it`);
      break;
    case DirectionReason.NO_RULE_ALLOWS:
      lines.push(`  isolated by ${v.policies.length} polic${v.policies.length === 1 ? "y" : "ies"}; no rule allows it`);
      break;
  }
  for (const p of v.policies) {
    lines.push(`  policy ${p.policy}:${p.rules.length === 0 ? ` no ${v.direction} rules (allows nothing)` : ""}`);
    for (const r of p.rules) {
      const verdict = r.allows ? "allows" : "does not match";
      lines.push(`    rule #${r.index} ${verdict}:`);
      const tag = (ok: boolean) => (ok ? "ok" : "no");
      for (const reason of r.peers.reasons) lines.push(`      [${tag(r.peers.matched)}] ${reason}`);
      for (const reason of r.ports.reasons) lines.push(`      [${tag(r.ports.matched)}] ${reason}`);
    }
  }
  return lines;
}

/** A connection: source, destination, verdict, then both directions. */
export function formatConnection(v: ConnectionVerdict): string {
  const head = `${v.src} -> ${v.dst} ${v.port}/${protoName(v.protocol)}: ${verdictWord(v.allowed)}`;
  return [head, ...formatDirection(v.egress).map((l) => `  ${l}`), ...formatDirection(v.ingress).map((l) => `  ${l}`)].join("\n");
}

/** A compiled decision: what the datapath looked up, then the policy reading. */
export function formatCompiled(e: CompiledExplanation): string {
  const d = e.datapath;
  const outcome = d.verdict === "allow" ? `allowed by ${d.origin?.text ?? `ruleRef ${d.ruleRef}`}` : "no policy map entry allows it: drop (POLICY_DENIED)";
  const lines = [`datapath on ${d.node}: ipcache maps ${d.peerIp} to identity ${d.identity}; ${outcome}`, ...formatDirection(e.policy)];
  if (!e.agrees) lines.push("  WARNING: the compiled maps disagree with the reference evaluator");
  return lines.join("\n");
}

// The structured answer to "is this connection allowed, and why": per direction, which policies
// isolate the endpoint and, for each of their rules, which peer or port clause failed, in words.
// Produced by the reference evaluator and by the explainer of compiled (datapath) verdicts.

export const Direction = { INGRESS: "ingress", EGRESS: "egress" } as const;
export type DirectionName = (typeof Direction)[keyof typeof Direction];

export const DirectionReason = {
  /** This side of the connection is not a pod, so no NetworkPolicy applies here. */
  NOT_A_POD: "not-a-pod",
  /** No policy selects the pod for this direction: everything is allowed. */
  NOT_ISOLATED: "not-isolated",
  /** Ingress from the pod's own node is always allowed. */
  OWN_NODE: "own-node",
  RULE_ALLOWS: "rule-allows",
  NO_RULE_ALLOWS: "no-rule-allows",
} as const;
export type DirectionReason = (typeof DirectionReason)[keyof typeof DirectionReason];

/** Outcome of one clause (the peers, or the ports) of a rule; reasons are human sentences. */
export type ClauseFinding = { readonly matched: boolean; readonly reasons: readonly string[] };

export type RuleFinding = {
  readonly index: number;
  readonly allows: boolean;
  readonly peers: ClauseFinding;
  readonly ports: ClauseFinding;
};

export type PolicyFinding = { readonly policy: string; readonly allows: boolean; readonly rules: readonly RuleFinding[] };

export type DirectionVerdict = {
  readonly direction: DirectionName;
  /** The pod whose policies were consulted (destination for ingress, source for egress); null if not a pod. */
  readonly endpoint: string | null;
  /** The other side, described: "pod web/test (10.224.193.70)", "10.1.8.100 (outside the cluster)". */
  readonly peer: string;
  readonly allowed: boolean;
  readonly reason: DirectionReason;
  /** Every policy isolating the endpoint in this direction (empty when not isolated). */
  readonly policies: readonly PolicyFinding[];
};

export type ConnectionVerdict = {
  readonly allowed: boolean;
  readonly src: string;
  readonly dst: string;
  readonly protocol: number;
  readonly port: number;
  readonly egress: DirectionVerdict;
  readonly ingress: DirectionVerdict;
};

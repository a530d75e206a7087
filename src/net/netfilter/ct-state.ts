// Conntrack state as carried on a packet (skb.ctState): the xt_state bit layout (INVALID 1,
// ESTABLISHED 2, RELATED 4, NEW 8, UNTRACKED 64) plus a REPLY direction bit; 0 = not looked at yet.

export const CtState = {
  INVALID: 1,
  ESTABLISHED: 2,
  RELATED: 4,
  NEW: 8,
  /** The packet travels in the reply direction of its connection. */
  REPLY: 16,
  UNTRACKED: 64,
  /** Set by nf_ct_attach (REJECT replies, ICMP errors): the next conntrack hook keeps the entry. */
  ATTACHED: 128,
} as const;

/** ctstate match bits (xt_conntrack): the packet states plus the SNAT/DNAT virtual states. */
export const CtMatchState = {
  INVALID: 1,
  ESTABLISHED: 2,
  RELATED: 4,
  NEW: 8,
  UNTRACKED: 64,
  SNAT: 256,
  DNAT: 512,
} as const;
export type CtMatchStateName = keyof typeof CtMatchState;

const STATE_MASK = CtState.INVALID | CtState.ESTABLISHED | CtState.RELATED | CtState.NEW | CtState.UNTRACKED;

/** The state bits xt_conntrack compares (no ct at all counts as INVALID). */
export function packetStateBits(ctState: number): number {
  const bits = ctState & STATE_MASK;
  return bits === 0 ? CtState.INVALID : bits;
}

/** Text like conntrack's: "NEW", "ESTABLISHED,REPLY", "RELATED", "INVALID", "UNTRACKED". */
export function ctStateName(ctState: number): string {
  const bits = packetStateBits(ctState);
  const parts: string[] = [];
  if (bits & CtState.INVALID) parts.push("INVALID");
  if (bits & CtState.NEW) parts.push("NEW");
  if (bits & CtState.ESTABLISHED) parts.push("ESTABLISHED");
  if (bits & CtState.RELATED) parts.push("RELATED");
  if (bits & CtState.UNTRACKED) parts.push("UNTRACKED");
  if (ctState & CtState.REPLY) parts.push("REPLY");
  return parts.join(",");
}

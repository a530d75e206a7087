// skb mark values the programs use between hooks of one node (the 0x0F00 nibble, as Cilium's
// MARK_MAGIC_* values; kube-proxy's 0x4000 masquerade and 0x8000 drop bits stay untouched).

export const MARK_MAGIC_MASK = 0x0f00;
/** Set by a program that already enforced the destination's ingress policy before redirecting to its
 *  interface; to-container then lets the packet through once and clears it. */
export const MARK_MAGIC_POLICY_DONE = 0x0e00;

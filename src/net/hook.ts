// Attach points on a device for datapath programs (tc ingress/egress, XDP) and the verdict
// codes they return, numbered as the kernel's TC_ACT_* values.

import type { SkBuff } from "../skb/skbuff.js";
import type { NetDevice } from "./device.js";

export const TcVerdict = { OK: 0, SHOT: 2, REDIRECT: 7 } as const;
export type TcVerdict = (typeof TcVerdict)[keyof typeof TcVerdict];

export const HookPoint = { XDP: "xdp", TC_INGRESS: "tc-ingress", TC_EGRESS: "tc-egress" } as const;
export type HookPoint = (typeof HookPoint)[keyof typeof HookPoint];

/**
 * A program attached to a device hook. `run` returns a TcVerdict; on SHOT it leaves the drop
 * reason and site in `dropReason`/`dropSite`, on REDIRECT the target in `redirectIfindex`
 * (and `redirectIngress` when the packet should be received by the target rather than sent).
 * The device turns a SHOT into exactly one drop record.
 */
export interface AttachedProgram {
  readonly name: string;
  run(skb: SkBuff, dev: NetDevice, point: HookPoint): number;
  dropReason: number;
  dropSite: string;
  dropExplanation?: string | undefined;
  /** Destination security identity of the dropped packet, when the program resolved it (0 otherwise). */
  dropDstIdentity?: number;
  redirectIfindex: number;
  redirectIngress: boolean;
}

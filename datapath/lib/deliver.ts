// Delivery to a local endpoint (Cilium's ipv4_local_delivery + the endpoint's ingress policy program):
// conntrack at the endpoint's ingress, reverse translation of replies, the ingress policy per the
// conntrack switch, then the routing step (TTL, MACs) and the mark that tells to-container it is done.
import { Direction } from "../maps/policy.js";
import type { DatapathCtx } from "../ctx.js";
import { CtDir, CtStatus, ctCreate, ctLookup } from "./conntrack.js";
import { decrementTtl, ensureEthernet, writeMacWords } from "./l3.js";
import { lbRevNat } from "./lb.js";
import { MARK_MAGIC_MASK, MARK_MAGIC_POLICY_DONE } from "./marks.js";
import { policyCheck, policyNeeded } from "./policy.js";

/**
 * The ingress side of endpoint `ep` for a packet from ctx.saddr with identity ctx.srcIdentity:
 * conntrack (IN entries), rev-NAT of replies, ingress policy, entry creation. 0 or a DropReason.
 */
export function ingressToEndpoint(ctx: DatapathCtx, ep: number): number {
  const eps = ctx.maps.endpoints;
  ctx.dstIdentity = eps.identity(ep);
  const status = ctLookup(ctx, CtDir.INGRESS);
  if (status === CtStatus.REPLY) lbRevNat(ctx);
  if (policyNeeded(ctx)) {
    const denied = policyCheck(ctx, ep, Direction.INGRESS, ctx.saddr, ctx.srcIdentity);
    if (denied !== 0) return denied;
  }
  return status === CtStatus.NEW ? ctCreate(ctx, CtDir.INGRESS) : 0;
}

/**
 * Ingress processing plus the forwarding step into the endpoint's interface: TTL decremented, Ethernet
 * addresses set to (endpoint MAC, router MAC), policy-done mark. The caller redirects to eps.ifindex(ep).
 */
export function deliverLocal(ctx: DatapathCtx, ep: number): number {
  const denied = ingressToEndpoint(ctx, ep);
  if (denied !== 0) return denied;
  const ttl = decrementTtl(ctx);
  if (ttl !== 0) return ttl;
  ensureEthernet(ctx);
  const eps = ctx.maps.endpoints;
  const bytes = ctx.skb.data;
  const at = ctx.skb.head;
  writeMacWords(bytes, at, eps.macHi(ep), eps.macLo(ep));
  writeMacWords(bytes, at + 6, ctx.routerMacHi, ctx.routerMacLo);
  ctx.skb.mark = (ctx.skb.mark & ~MARK_MAGIC_MASK) | MARK_MAGIC_POLICY_DONE;
  return 0;
}

// Policy enforcement: the peer's identity from the ipcache (longest prefix: pod, node, CIDR or world),
// the endpoint's PolicyMap for the direction (deny entries first), and the conntrack switch saying which
// packets are checked at all. A miss is POLICY_DENIED, a matching deny entry POLICY_DENY; either leaves a
// PolicyDropRef in ctx for the explanation.
import { IPPROTO_ICMP } from "../../src/wire/checksum.js";
import { ReservedIdentity } from "../identity.js";
import { Direction, PolicyVerdict } from "../maps/policy.js";
import { DropReason } from "../reasons.js";
import type { DatapathCtx } from "../ctx.js";
import { PolicyCtMode } from "./config.js";
import { CtStatus } from "./conntrack.js";
import { hasPorts } from "./l3.js";

/** Security identity of an address: the ipcache's longest prefix, WORLD when nothing covers it. */
export function resolveIdentity(ctx: DatapathCtx, addr: number): number {
  const id = ctx.maps.ipcache.lookupV4(addr);
  return id === 0 ? ReservedIdentity.WORLD : id;
}

/**
 * Whether this packet goes through the policy map, given its conntrack status: replies and related ICMP
 * never; new flows always; forward packets of established flows only in RECHECK_ESTABLISHED mode.
 */
export function policyNeeded(ctx: DatapathCtx): boolean {
  const status = ctx.ctStatus;
  if (status === CtStatus.REPLY || status === CtStatus.RELATED) return false;
  if (status === CtStatus.ESTABLISHED) return ctx.config.policyCtMode === PolicyCtMode.RECHECK_ESTABLISHED;
  return true;
}

/**
 * The endpoint's policy verdict for the packet with `peerIp` / `peerIdentity` on the other side.
 * 0 = allowed (or the endpoint has no policy map); else POLICY_DENIED / POLICY_DENY with ctx.policyRef set.
 * The port is the destination port after service translation (the ICMP type for ICMP).
 */
export function policyCheck(ctx: DatapathCtx, epSlot: number, direction: number, peerIp: number, peerIdentity: number): number {
  const eps = ctx.maps.endpoints;
  const policy = eps.policy(epSlot);
  if (policy === null) return 0;
  const proto = ctx.proto;
  const port = hasPorts(proto) ? ctx.ctDport : proto === IPPROTO_ICMP ? ctx.hdr.icmpType : 0;
  const verdict = policy.lookup(direction, peerIdentity, proto, port);
  if (verdict === PolicyVerdict.ALLOW) return 0;
  const ref = ctx.policyRef;
  ref.endpointId = eps.id(epSlot);
  ref.endpointIp = eps.ip(epSlot);
  ref.direction = direction;
  ref.peerIp = peerIp;
  ref.peerIdentity = peerIdentity;
  ref.proto = proto;
  ref.port = port;
  ref.verdict = verdict;
  ref.ruleRef = policy.lastRuleRef;
  ctx.hasPolicyRef = true;
  ctx.site = direction === Direction.INGRESS ? "datapath/lib/policy:ingress" : "datapath/lib/policy:egress";
  return verdict === PolicyVerdict.DENY ? DropReason.POLICY_DENY : DropReason.POLICY_DENIED;
}

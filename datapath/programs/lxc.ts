// Programs on a pod's host-side veth, after Cilium's bpf_lxc.c. from-container (tc ingress: packets the
// pod sends): source check, service translation, conntrack, egress policy of the pod, then local delivery
// (with the destination's ingress policy), the tunnel, or the host stack. to-container (tc egress: packets
// the host stack routes to the pod): conntrack, rev-NAT of replies, ingress policy.
import { EtherType } from "../../src/wire/ethernet.js";
import { Verdict, type DatapathCtx, type DatapathProgram } from "../ctx.js";
import { ReservedIdentity } from "../identity.js";
import { Direction } from "../maps/policy.js";
import { DropReason, TracePoint } from "../reasons.js";
import { isNodeIp } from "../lib/config.js";
import { CtDir, CtStatus, ctCreate, ctLookup } from "../lib/conntrack.js";
import { ingressToEndpoint } from "../lib/deliver.js";
import { dropPacket } from "../lib/drop.js";
import { lbLookupService, lbRevNat, lbTranslate, serviceBackendCount } from "../lib/lb.js";
import { MARK_MAGIC_MASK, MARK_MAGIC_POLICY_DONE } from "../lib/marks.js";
import { NOT_IPV4, parsePacket } from "../lib/parse.js";
import { policyCheck, policyNeeded, resolveIdentity } from "../lib/policy.js";
import { sendTrace } from "../lib/trace.js";
import { deliverTo, forwardElsewhere, respondNoBackend } from "./exits.js";

export const LxcSite = {
  PARSE: "datapath/lxc:from-container:parse",
  L3: "datapath/lxc:from-container:unknown-l3",
  SOURCE: "datapath/lxc:from-container:source-ip",
  SERVICE: "datapath/lxc:from-container:service",
  CONNTRACK: "datapath/lxc:from-container:conntrack",
  EGRESS_POLICY: "datapath/lxc:from-container:egress-policy",
  DELIVER: "datapath/lxc:from-container:local-delivery",
  FORWARD: "datapath/lxc:from-container:forward",
  TO_PARSE: "datapath/lxc:to-container:parse",
  TO_POLICY: "datapath/lxc:to-container:ingress-policy",
} as const;

function runFromContainer(ctx: DatapathCtx): Verdict {
  const parsed = parsePacket(ctx);
  if (parsed === NOT_IPV4) {
    // ARP goes to the stack (proxy ARP / the gateway answers); IPv6 and others are not forwarded here.
    if (ctx.hdr.etherType !== EtherType.ARP) return dropPacket(ctx, DropReason.UNKNOWN_L3, LxcSite.L3);
    sendTrace(ctx, TracePoint.TO_STACK);
    return ctx.pass();
  }
  if (parsed !== 0) return dropPacket(ctx, parsed, LxcSite.PARSE);

  const eps = ctx.maps.endpoints;
  const src = eps.lookup(ctx.saddr);
  if (src < 0 || eps.ifindex(src) !== ctx.ifindex) return dropPacket(ctx, DropReason.INVALID_SOURCE_IP, LxcSite.SOURCE);
  ctx.srcIdentity = eps.identity(src);
  ctx.skb.srcIdentity = ctx.srcIdentity;

  const svc = lbLookupService(ctx);
  if (svc >= 0) {
    if (serviceBackendCount(ctx, svc) === 0) return respondNoBackend(ctx, svc, TracePoint.TO_ENDPOINT, LxcSite.SERVICE);
    const reason = lbTranslate(ctx, svc);
    if (reason !== 0) return dropPacket(ctx, reason, LxcSite.SERVICE);
  }

  const status = ctLookup(ctx, CtDir.EGRESS);
  ctx.dstIdentity = resolveIdentity(ctx, ctx.ctDaddr);
  if (status === CtStatus.REPLY) lbRevNat(ctx);
  if (policyNeeded(ctx)) {
    const denied = policyCheck(ctx, src, Direction.EGRESS, ctx.ctDaddr, ctx.dstIdentity);
    if (denied !== 0) return dropPacket(ctx, denied, LxcSite.EGRESS_POLICY);
  }
  if (status === CtStatus.NEW) {
    const failed = ctCreate(ctx, CtDir.EGRESS);
    if (failed !== 0) return dropPacket(ctx, failed, LxcSite.CONNTRACK);
  }

  const dst = eps.lookup(ctx.daddr);
  if (dst >= 0) {
    // Delivery from endpoint to endpoint: the destination's ingress sees the source endpoint's identity.
    return deliverTo(ctx, dst, LxcSite.DELIVER);
  }
  return forwardElsewhere(ctx, LxcSite.FORWARD);
}

function runToContainer(ctx: DatapathCtx): Verdict {
  const skb = ctx.skb;
  if ((skb.mark & MARK_MAGIC_MASK) === MARK_MAGIC_POLICY_DONE) {
    // A program already enforced this endpoint's ingress policy before redirecting here.
    skb.mark &= ~MARK_MAGIC_MASK;
    return ctx.pass();
  }
  const parsed = parsePacket(ctx);
  if (parsed === NOT_IPV4) return ctx.pass();
  if (parsed !== 0) return dropPacket(ctx, parsed, LxcSite.TO_PARSE);
  const eps = ctx.maps.endpoints;
  const ep = eps.lookup(ctx.daddr);
  if (ep < 0 || eps.ifindex(ep) !== ctx.ifindex) return ctx.pass();
  ctx.srcIdentity = isNodeIp(ctx.config, ctx.saddr) ? ReservedIdentity.HOST : resolveIdentity(ctx, ctx.saddr);
  skb.srcIdentity = ctx.srcIdentity;
  const reason = ingressToEndpoint(ctx, ep);
  if (reason !== 0) return dropPacket(ctx, reason, LxcSite.TO_POLICY);
  sendTrace(ctx, TracePoint.TO_ENDPOINT);
  return ctx.pass();
}

/** At the pod veth's host-side tc ingress. */
export const fromContainer: DatapathProgram = { name: "lxc/from-container", run: runFromContainer };
/** At the pod veth's host-side tc egress. */
export const toContainer: DatapathProgram = { name: "lxc/to-container", run: runToContainer };

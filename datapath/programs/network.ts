// What a node does with an IPv4 packet arriving from the network, plain (from-netdev) or out of the tunnel
// (from-overlay): replies to flows it SNAT'ed are translated back; service frontends (NodePort, externalIP,
// ClusterIP routed here) are translated and delivered locally or forwarded to the backend's node; packets
// for local pods go through their ingress policy; replies of flows it translated are reversed; the rest
// goes to the host stack or on to its next hop. ctx.srcIdentity is set by the caller.
import { Verdict, type DatapathCtx } from "../ctx.js";
import { ServiceFlag } from "../maps/lb.js";
import { TracePoint } from "../reasons.js";
import { EncapKind, NodePortMode, isNodeIp } from "../lib/config.js";
import { CtDir, CtStatus, ctCreate, ctLookup } from "../lib/conntrack.js";
import { dropPacket } from "../lib/drop.js";
import { routeOut } from "../lib/forward.js";
import { lbLookupService, lbRevNat, lbTranslate, serviceBackendCount, serviceFlags } from "../lib/lb.js";
import { revSnatV4, snatV4 } from "../lib/nat.js";
import { resolveIdentity } from "../lib/policy.js";
import { sendTrace } from "../lib/trace.js";
import { deliverTo, forwardElsewhere, respondNoBackend, toStack, viaTunnel } from "./exits.js";

/** Sites of drops decided on this path (prefixed with the program that runs it). */
export interface NetworkSites {
  readonly service: string;
  readonly conntrack: string;
  readonly deliver: string;
  readonly nodePortForward: string;
  readonly forward: string;
}

export function handleFromNetwork(ctx: DatapathCtx, sites: NetworkSites): Verdict {
  const forUs = isNodeIp(ctx.config, ctx.daddr);
  const reversed = forUs && revSnatV4(ctx);
  const svc = reversed ? -1 : lbLookupService(ctx);
  if (svc >= 0) return toService(ctx, svc, sites);
  const ep = ctx.maps.endpoints.lookup(ctx.daddr);
  if (ep >= 0) return deliverTo(ctx, ep, sites.deliver);
  if (ctLookup(ctx, CtDir.INGRESS) === CtStatus.REPLY) lbRevNat(ctx);
  if (isNodeIp(ctx.config, ctx.daddr)) return toStack(ctx);
  return forwardElsewhere(ctx, sites.forward);
}

/** A packet for a service frontend: translate, then deliver locally or forward to the backend's node. */
function toService(ctx: DatapathCtx, svc: number, sites: NetworkSites): Verdict {
  if (serviceBackendCount(ctx, svc) === 0) return respondNoBackend(ctx, svc, TracePoint.TO_NETWORK, sites.service);
  ctx.nodePort = (serviceFlags(ctx, svc) & ServiceFlag.NODEPORT) !== 0;
  const frontend = ctx.daddr;
  const translated = lbTranslate(ctx, svc);
  if (translated !== 0) return dropPacket(ctx, translated, sites.service);
  if (ctLookup(ctx, CtDir.EGRESS) === CtStatus.NEW) {
    const failed = ctCreate(ctx, CtDir.EGRESS);
    if (failed !== 0) return dropPacket(ctx, failed, sites.conntrack);
  }
  ctx.dstIdentity = resolveIdentity(ctx, ctx.daddr);
  const ep = ctx.maps.endpoints.lookup(ctx.daddr);
  if (ep >= 0) return deliverTo(ctx, ep, sites.deliver);

  const config = ctx.config;
  const remote = config.encap === EncapKind.NONE ? 0 : ctx.maps.tunnel.lookupV4(ctx.daddr);
  if (config.nodePortMode === NodePortMode.SNAT) {
    const failed = snatV4(ctx, isNodeIp(config, frontend) ? frontend : (config.nodeIps[0] ?? 0));
    if (failed !== 0) return dropPacket(ctx, failed, sites.nodePortForward);
    if (remote !== 0) return viaTunnel(ctx, remote, sites.nodePortForward);
    const noRoute = routeOut(ctx);
    if (noRoute !== 0) return dropPacket(ctx, noRoute, sites.nodePortForward);
    sendTrace(ctx, TracePoint.TO_NETWORK);
    return ctx.redirect(ctx.fibIfindex, false);
  }
  // Keep the client address: the backend's node returns replies through the tunnel (see from-overlay).
  if (remote !== 0) return viaTunnel(ctx, remote, sites.nodePortForward);
  return forwardElsewhere(ctx, sites.nodePortForward);
}

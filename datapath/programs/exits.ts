// Program exits shared by lxc, host and overlay: deliver to a local endpoint, send to another node
// (tunnel, or natively via the FIB when the source is a node address), hand to the host stack, and the
// answer for a service without backends. Each emits the run's one trace or drop event.
import { Verdict, Xlate, type DatapathCtx } from "../ctx.js";
import { TracePoint, DropReason } from "../reasons.js";
import { EncapKind, isNodeIp } from "../lib/config.js";
import { CtStatus } from "../lib/conntrack.js";
import { deliverLocal } from "../lib/deliver.js";
import { dropPacket } from "../lib/drop.js";
import { routeOut, tunnelTo } from "../lib/forward.js";
import { serviceFlags } from "../lib/lb.js";
import { ServiceFlag } from "../maps/lb.js";
import { rejectWithIcmp } from "../lib/reject.js";
import { sendTrace } from "../lib/trace.js";
import { writeMac } from "../../src/util/mac.js";

/** Local endpoint `ep`: ingress policy, then redirect into its interface (trace to-endpoint). */
export function deliverTo(ctx: DatapathCtx, ep: number, site: string): Verdict {
  const reason = deliverLocal(ctx, ep);
  if (reason !== 0) return dropPacket(ctx, reason, site);
  sendTrace(ctx, TracePoint.TO_ENDPOINT);
  return ctx.redirect(ctx.maps.endpoints.ifindex(ep), false);
}

/**
 * A destination that is not a local endpoint: replies of NodePort flows go back through the tunnel they
 * came from; pod CIDRs of other nodes through the tunnel; packets whose source is now a node address are
 * routed via the FIB; everything else goes to the host stack.
 */
export function forwardElsewhere(ctx: DatapathCtx, site: string): Verdict {
  if (ctx.ctStatus === CtStatus.REPLY && ctx.tunnelReturn !== 0) return viaTunnel(ctx, ctx.tunnelReturn, site);
  if (ctx.config.encap !== EncapKind.NONE) {
    const remote = ctx.maps.tunnel.lookupV4(ctx.daddr);
    if (remote !== 0) return viaTunnel(ctx, remote, site);
  }
  if (isNodeIp(ctx.config, ctx.saddr) && !isNodeIp(ctx.config, ctx.daddr)) {
    const reason = routeOut(ctx);
    if (reason !== 0) return dropPacket(ctx, reason, site);
    sendTrace(ctx, TracePoint.TO_NETWORK);
    return ctx.redirect(ctx.fibIfindex, false);
  }
  return toStack(ctx);
}

export function viaTunnel(ctx: DatapathCtx, remote: number, site: string): Verdict {
  const reason = tunnelTo(ctx, remote);
  if (reason !== 0) return dropPacket(ctx, reason, site);
  sendTrace(ctx, TracePoint.TO_OVERLAY);
  return ctx.redirect(ctx.fibIfindex, false);
}

/** Continue into the host stack (to-host for this node's addresses, to-stack otherwise). */
export function toStack(ctx: DatapathCtx): Verdict {
  // A decapsulated frame carries the remote sender's inner MACs: address it to this interface for the stack.
  if ((ctx.xlate & Xlate.DECAP) !== 0 && ctx.l2) writeMac(ctx.skb.data, ctx.skb.head, ctx.devMac);
  sendTrace(ctx, isNodeIp(ctx.config, ctx.daddr) ? TracePoint.TO_HOST : TracePoint.TO_STACK);
  return ctx.pass();
}

/**
 * A frontend without backends: REJECT_NO_BACKEND answers ICMP port unreachable out of the arrival
 * interface (trace `point`); otherwise the packet is dropped with NO_SERVICE.
 */
export function respondNoBackend(ctx: DatapathCtx, svc: number, point: number, site: string): Verdict {
  if ((serviceFlags(ctx, svc) & ServiceFlag.REJECT_NO_BACKEND) === 0) return dropPacket(ctx, DropReason.NO_SERVICE, site);
  rejectWithIcmp(ctx);
  sendTrace(ctx, point);
  return ctx.redirect(ctx.ifindex, false);
}

// Programs for overlay traffic, after Cilium's bpf_overlay.c. from-overlay: a decapsulated packet gets its
// source identity (from the VNI when it carries one, else the ipcache), then local delivery with the
// endpoint's ingress policy, or (NodePort replies) reverse translation and forwarding. Used at an overlay
// device's tc ingress and inline by host from-netdev after it decapsulates. to-overlay: tc egress of an
// overlay device (traffic the stack routes into the tunnel): observed and passed.
import { Verdict, type DatapathCtx, type DatapathProgram } from "../ctx.js";
import { TracePoint } from "../reasons.js";
import { isNodeIp } from "../lib/config.js";
import { CtDir, CtStatus, ctLookup } from "../lib/conntrack.js";
import { dropPacket } from "../lib/drop.js";
import { lbRevNat } from "../lib/lb.js";
import { NOT_IPV4, parsePacket } from "../lib/parse.js";
import { resolveIdentity } from "../lib/policy.js";
import { sendTrace } from "../lib/trace.js";
import { deliverTo, forwardElsewhere, toStack } from "./exits.js";

export const OverlaySite = {
  PARSE: "datapath/overlay:from-overlay:parse",
  DELIVER: "datapath/overlay:from-overlay:local-delivery",
  FORWARD: "datapath/overlay:from-overlay:forward",
  TO_PARSE: "datapath/overlay:to-overlay:parse",
} as const;

/**
 * Handles a packet that came out of the tunnel (skb.tunnelSrc = outer source, skb.tunnelId = VNI); the
 * caller has parsed it (`parsed` = parsePacket's result).
 */
export function handleFromOverlay(ctx: DatapathCtx, parsed: number): Verdict {
  if (parsed === NOT_IPV4) return toStack(ctx);
  if (parsed !== 0) return dropPacket(ctx, parsed, OverlaySite.PARSE);
  const skb = ctx.skb;
  ctx.tunnelPeer = skb.tunnelSrc;
  ctx.srcIdentity = ctx.config.vniFromIdentity && skb.tunnelId !== 0 ? skb.tunnelId : resolveIdentity(ctx, ctx.saddr);
  skb.srcIdentity = ctx.srcIdentity;
  const ep = ctx.maps.endpoints.lookup(ctx.daddr);
  if (ep >= 0) {
    // A source that is not a pod behind the tunnel (a NodePort client kept by the forwarding node): its
    // replies must return through the tunnel to that node, which translates them back.
    if (skb.tunnelSrc !== 0 && ctx.maps.tunnel.lookupV4(ctx.saddr) === 0) {
      ctx.nodePort = true;
      ctx.tunnelReturn = skb.tunnelSrc;
    }
    return deliverTo(ctx, ep, OverlaySite.DELIVER);
  }
  // Not for a local pod: replies of flows this node translated (NodePort through the tunnel) are reversed.
  if (ctLookup(ctx, CtDir.INGRESS) === CtStatus.REPLY) lbRevNat(ctx);
  if (isNodeIp(ctx.config, ctx.daddr)) return toStack(ctx);
  return forwardElsewhere(ctx, OverlaySite.FORWARD);
}

function runFromOverlay(ctx: DatapathCtx): Verdict {
  return handleFromOverlay(ctx, parsePacket(ctx));
}

function runToOverlay(ctx: DatapathCtx): Verdict {
  const parsed = parsePacket(ctx);
  if (parsed === NOT_IPV4) return ctx.pass();
  if (parsed !== 0) return dropPacket(ctx, parsed, OverlaySite.TO_PARSE);
  ctx.srcIdentity = resolveIdentity(ctx, ctx.saddr);
  ctx.dstIdentity = resolveIdentity(ctx, ctx.daddr);
  sendTrace(ctx, TracePoint.TO_OVERLAY);
  return ctx.pass();
}

/** At an overlay device's tc ingress (after the device decapsulated). */
export const fromOverlay: DatapathProgram = { name: "overlay/from-overlay", run: runFromOverlay };
/** At an overlay device's tc egress. */
export const toOverlay: DatapathProgram = { name: "overlay/to-overlay", run: runToOverlay };

// Programs for overlay traffic, after Cilium's bpf_overlay.c. from-overlay: a decapsulated packet gets its
// source identity (from the VNI when it carries one, else the ipcache) and takes the from-network path
// (local delivery with the endpoint's ingress policy, reverse translation of NodePort replies, ...). Used at
// an overlay device's tc ingress and inline by host from-netdev after it decapsulates. to-overlay: tc egress
// of an overlay device (traffic the stack routes into the tunnel): observed and passed.
import { Verdict, type DatapathCtx, type DatapathProgram } from "../ctx.js";
import { TracePoint } from "../reasons.js";
import { ReservedIdentity } from "../identity.js";
import { dropPacket } from "../lib/drop.js";
import { NOT_IPV4, parsePacket } from "../lib/parse.js";
import { resolveIdentity } from "../lib/policy.js";
import { sendTrace } from "../lib/trace.js";
import { toStack } from "./exits.js";
import { handleFromNetwork } from "./network.js";

export const OverlaySite = {
  PARSE: "datapath/overlay:from-overlay:parse",
  SERVICE: "datapath/overlay:from-overlay:service",
  CONNTRACK: "datapath/overlay:from-overlay:conntrack",
  DELIVER: "datapath/overlay:from-overlay:local-delivery",
  NODEPORT_FORWARD: "datapath/overlay:from-overlay:nodeport-forward",
  FORWARD: "datapath/overlay:from-overlay:forward",
  TO_PARSE: "datapath/overlay:to-overlay:parse",
} as const;

const sites = {
  service: OverlaySite.SERVICE,
  conntrack: OverlaySite.CONNTRACK,
  deliver: OverlaySite.DELIVER,
  nodePortForward: OverlaySite.NODEPORT_FORWARD,
  forward: OverlaySite.FORWARD,
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
  const id = ctx.config.vniFromIdentity && skb.tunnelId !== 0 ? skb.tunnelId : resolveIdentity(ctx, ctx.saddr);
  ctx.srcIdentity = id;
  skb.srcIdentity = id;
  // A source that is neither a pod behind the tunnel nor a node (a NodePort client whose address the
  // forwarding node kept): replies to it must return through the tunnel to that node, which reverses the
  // translation. Conntrack entries created on this path remember the node.
  if (skb.tunnelSrc !== 0 && id !== ReservedIdentity.REMOTE_NODE && id !== ReservedIdentity.HOST && ctx.maps.tunnel.lookupV4(ctx.saddr) === 0) {
    ctx.nodePort = true;
    ctx.tunnelReturn = skb.tunnelSrc;
  }
  return handleFromNetwork(ctx, sites);
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

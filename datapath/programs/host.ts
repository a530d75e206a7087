// Programs on the node's uplink, after Cilium's bpf_host.c and lib/nodeport.h (and Calico eBPF's NodePort
// forwarding). from-netdev (tc ingress): tunnel packets for this node are decapsulated and handled as
// from-overlay; replies to SNAT'ed flows are translated back; NodePort (and other service) frontends are
// translated, then delivered locally (backend's ingress policy sees the client address) or forwarded to
// the backend's node: through the tunnel keeping the client address, or SNAT'ed to this node.
// to-netdev (tc egress): eBPF masquerade of pod traffic leaving the cluster.
import { EtherType } from "../../src/wire/ethernet.js";
import { TunnelKind } from "../../src/wire/headers.js";
import { IPPROTO_IPIP } from "../../src/wire/ipip.js";
import { ipv4InPrefix } from "../../src/util/ip.js";
import { Verdict, type DatapathCtx, type DatapathProgram } from "../ctx.js";
import { ServiceFlag } from "../maps/lb.js";
import { DropReason, TracePoint } from "../reasons.js";
import { EncapKind, NodePortMode, isNodeIp } from "../lib/config.js";
import { CtDir, CtStatus, ctCreate, ctLookup } from "../lib/conntrack.js";
import { decapIpip, decapVxlan } from "../lib/encap.js";
import { dropPacket } from "../lib/drop.js";
import { routeOut } from "../lib/forward.js";
import { lbLookupService, lbRevNat, lbTranslate, serviceBackendCount, serviceFlags } from "../lib/lb.js";
import { revSnatV4, snatV4 } from "../lib/nat.js";
import { NOT_IPV4, parsePacket } from "../lib/parse.js";
import { resolveIdentity } from "../lib/policy.js";
import { sendTrace } from "../lib/trace.js";
import { deliverTo, forwardElsewhere, respondNoBackend, toStack, viaTunnel } from "./exits.js";
import { handleFromOverlay } from "./overlay.js";

export const HostSite = {
  PARSE: "datapath/host:from-netdev:parse",
  DECAP: "datapath/host:from-netdev:decap",
  SERVICE: "datapath/host:from-netdev:nodeport",
  CONNTRACK: "datapath/host:from-netdev:conntrack",
  DELIVER: "datapath/host:from-netdev:local-delivery",
  NODEPORT_FORWARD: "datapath/host:from-netdev:nodeport-forward",
  FORWARD: "datapath/host:from-netdev:forward",
  TO_PARSE: "datapath/host:to-netdev:parse",
  MASQUERADE: "datapath/host:to-netdev:masquerade",
} as const;

function runFromNetdev(ctx: DatapathCtx): Verdict {
  const parsed = parsePacket(ctx);
  if (parsed === NOT_IPV4) return ctx.pass();
  if (parsed !== 0) return dropPacket(ctx, parsed, HostSite.PARSE);
  const config = ctx.config;
  const hdr = ctx.hdr;
  const forUs = isNodeIp(config, ctx.daddr);

  if (forUs && config.encap === EncapKind.VXLAN && hdr.tunnel === TunnelKind.VXLAN && hdr.dstPort === config.tunnelPort) {
    if (!config.vniFromIdentity && hdr.vni !== config.vni) {
      ctx.site = HostSite.DECAP;
      return dropPacket(ctx, DropReason.INVALID_VNI, HostSite.DECAP);
    }
    return handleFromOverlay(ctx, decapVxlan(ctx) === 0 ? parsePacket(ctx) : DropReason.INVALID_PACKET);
  }
  if (forUs && config.encap === EncapKind.IPIP && ctx.proto === IPPROTO_IPIP) {
    return handleFromOverlay(ctx, decapIpip(ctx) === 0 ? parsePacket(ctx) : DropReason.INVALID_PACKET);
  }

  ctx.srcIdentity = resolveIdentity(ctx, ctx.saddr);
  ctx.skb.srcIdentity = ctx.srcIdentity;
  // A reply to a flow this node SNAT'ed (NodePort SNAT mode, masquerade): restore the original source.
  const reversed = forUs && revSnatV4(ctx);
  const svc = reversed ? -1 : lbLookupService(ctx);
  if (svc >= 0) return nodePort(ctx, svc);

  const ep = ctx.maps.endpoints.lookup(ctx.daddr);
  if (ep >= 0) return deliverTo(ctx, ep, HostSite.DELIVER);
  if (ctLookup(ctx, CtDir.INGRESS) === CtStatus.REPLY) lbRevNat(ctx);
  if (isNodeIp(config, ctx.daddr)) return toStack(ctx);
  return forwardElsewhere(ctx, HostSite.FORWARD);
}

/** A packet for a service frontend arriving from the network (NodePort, externalIP, ClusterIP routed here). */
function nodePort(ctx: DatapathCtx, svc: number): Verdict {
  if (serviceBackendCount(ctx, svc) === 0) return respondNoBackend(ctx, svc, TracePoint.TO_NETWORK, HostSite.SERVICE);
  ctx.nodePort = (serviceFlags(ctx, svc) & ServiceFlag.NODEPORT) !== 0;
  const frontend = ctx.daddr;
  const translated = lbTranslate(ctx, svc);
  if (translated !== 0) return dropPacket(ctx, translated, HostSite.SERVICE);
  const status = ctLookup(ctx, CtDir.EGRESS);
  if (status === CtStatus.NEW) {
    const failed = ctCreate(ctx, CtDir.EGRESS);
    if (failed !== 0) return dropPacket(ctx, failed, HostSite.CONNTRACK);
  }
  ctx.dstIdentity = resolveIdentity(ctx, ctx.daddr);
  const ep = ctx.maps.endpoints.lookup(ctx.daddr);
  if (ep >= 0) return deliverTo(ctx, ep, HostSite.DELIVER);

  const config = ctx.config;
  const remote = config.encap === EncapKind.NONE ? 0 : ctx.maps.tunnel.lookupV4(ctx.daddr);
  if (config.nodePortMode === NodePortMode.SNAT) {
    const snatFrom = isNodeIp(config, frontend) ? frontend : (config.nodeIps[0] ?? 0);
    const failed = snatV4(ctx, snatFrom);
    if (failed !== 0) return dropPacket(ctx, failed, HostSite.NODEPORT_FORWARD);
    if (remote !== 0) return viaTunnel(ctx, remote, HostSite.NODEPORT_FORWARD);
    const noRoute = routeOut(ctx);
    if (noRoute !== 0) return dropPacket(ctx, noRoute, HostSite.NODEPORT_FORWARD);
    sendTrace(ctx, TracePoint.TO_NETWORK);
    return ctx.redirect(ctx.fibIfindex, false);
  }
  // Keep the client address: the backend's node returns replies through the tunnel (see from-overlay).
  if (remote !== 0) return viaTunnel(ctx, remote, HostSite.NODEPORT_FORWARD);
  return forwardElsewhere(ctx, HostSite.NODEPORT_FORWARD);
}

function runToNetdev(ctx: DatapathCtx): Verdict {
  const parsed = parsePacket(ctx);
  if (parsed === NOT_IPV4) return ctx.pass();
  if (parsed !== 0) return dropPacket(ctx, parsed, HostSite.TO_PARSE);
  const config = ctx.config;
  if (config.masquerade && ctx.hdr.etherType === EtherType.IPV4 && needsMasquerade(ctx)) {
    const failed = snatV4(ctx, config.nodeIps[0] ?? 0);
    if (failed !== 0) return dropPacket(ctx, failed, HostSite.MASQUERADE);
  }
  sendTrace(ctx, TracePoint.TO_NETWORK);
  return ctx.pass();
}

/** Pod traffic to a destination outside the non-masquerade prefix and not a node. */
function needsMasquerade(ctx: DatapathCtx): boolean {
  const config = ctx.config;
  if (ctx.maps.endpoints.lookup(ctx.saddr) < 0) return false;
  if (isNodeIp(config, ctx.daddr)) return false;
  return config.nonMasqueradeLen === 0 || !ipv4InPrefix(ctx.daddr, config.nonMasqueradeAddr, config.nonMasqueradeLen);
}

/** At the node uplink's tc ingress (or XDP). */
export const fromNetdev: DatapathProgram = { name: "host/from-netdev", run: runFromNetdev };
/** At the node uplink's tc egress. */
export const toNetdev: DatapathProgram = { name: "host/to-netdev", run: runToNetdev };

// Programs on the node's uplink, after Cilium's bpf_host.c and lib/nodeport.h (and Calico eBPF's NodePort
// forwarding). from-netdev (tc ingress or XDP): tunnel packets for this node are decapsulated and handled
// as from-overlay; everything else IPv4 takes the from-network path (SNAT replies, service frontends,
// local pods, replies of translated flows, the stack). to-netdev (tc egress): eBPF masquerade of pod
// traffic leaving the cluster.
import { TunnelKind } from "../../src/wire/headers.js";
import { IPPROTO_IPIP } from "../../src/wire/ipip.js";
import { ipv4InPrefix } from "../../src/util/ip.js";
import type { DatapathCtx, DatapathProgram, Verdict } from "../ctx.js";
import { DropReason, TracePoint } from "../reasons.js";
import { EncapKind, isNodeIp } from "../lib/config.js";
import { decapIpip, decapVxlan } from "../lib/encap.js";
import { dropPacket } from "../lib/drop.js";
import { snatV4 } from "../lib/nat.js";
import { NOT_IPV4, parsePacket } from "../lib/parse.js";
import { resolveIdentity } from "../lib/policy.js";
import { sendTrace } from "../lib/trace.js";
import { handleFromNetwork } from "./network.js";
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

const sites = {
  service: HostSite.SERVICE,
  conntrack: HostSite.CONNTRACK,
  deliver: HostSite.DELIVER,
  nodePortForward: HostSite.NODEPORT_FORWARD,
  forward: HostSite.FORWARD,
} as const;

function runFromNetdev(ctx: DatapathCtx): Verdict {
  const parsed = parsePacket(ctx);
  if (parsed === NOT_IPV4) return ctx.pass();
  if (parsed !== 0) return dropPacket(ctx, parsed, HostSite.PARSE);
  const config = ctx.config;
  const hdr = ctx.hdr;
  if (isNodeIp(config, ctx.daddr)) {
    if (config.encap === EncapKind.VXLAN && hdr.tunnel === TunnelKind.VXLAN && hdr.dstPort === config.tunnelPort) {
      if (!config.vniFromIdentity && hdr.vni !== config.vni) return dropPacket(ctx, DropReason.INVALID_VNI, HostSite.DECAP);
      decapVxlan(ctx);
      return handleFromOverlay(ctx, parsePacket(ctx));
    }
    if (config.encap === EncapKind.IPIP && ctx.proto === IPPROTO_IPIP) {
      decapIpip(ctx);
      return handleFromOverlay(ctx, parsePacket(ctx));
    }
  }
  ctx.srcIdentity = resolveIdentity(ctx, ctx.saddr);
  ctx.skb.srcIdentity = ctx.srcIdentity;
  return handleFromNetwork(ctx, sites);
}

function runToNetdev(ctx: DatapathCtx): Verdict {
  const parsed = parsePacket(ctx);
  if (parsed === NOT_IPV4) return ctx.pass();
  if (parsed !== 0) return dropPacket(ctx, parsed, HostSite.TO_PARSE);
  if (ctx.config.masquerade && needsMasquerade(ctx)) {
    const failed = snatV4(ctx, ctx.config.nodeIps[0] ?? 0);
    if (failed !== 0) return dropPacket(ctx, failed, HostSite.MASQUERADE);
  }
  sendTrace(ctx, TracePoint.TO_NETWORK);
  return ctx.pass();
}

/** Pod traffic to a destination outside the non-masquerade prefix (none when its length is 0) and not a node. */
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

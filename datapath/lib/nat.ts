// SNAT / masquerade in the datapath, after Cilium's lib/nat.h: a flow's source becomes a node address and a
// port from the NAT range (the original port kept when it is in range and free, else up to 32 seeded random
// tries, SNAT_COLLISION_RETRIES), recorded in the SNAT map in both directions; replies are translated back.
import { IPPROTO_ICMP } from "../../src/wire/checksum.js";
import { IcmpType } from "../../src/wire/icmp.js";
import { SnatDir } from "../maps/nat.js";
import { DropReason } from "../reasons.js";
import { Xlate, type DatapathCtx } from "../ctx.js";
import { hasPorts, rewriteDestination, rewriteSource } from "./l3.js";

export const SNAT_COLLISION_RETRIES = 32;

/** Rewrites the packet's source to toAddr and an allocated port (the flow's existing mapping if any). 0 or a DropReason. */
export function snatV4(ctx: DatapathCtx, toAddr: number): number {
  const snat = ctx.maps.snat;
  const { saddr, daddr, sport, dport, proto } = ctx;
  let port: number;
  const slot = snat.lookup(SnatDir.EGRESS, saddr, daddr, sport, dport, proto);
  if (slot >= 0 && snat.addr(slot) === toAddr) {
    port = snat.port(slot);
  } else {
    if (!hasPorts(proto) && !(proto === IPPROTO_ICMP && ctx.hdr.icmpType === IcmpType.ECHO_REQUEST)) {
      ctx.site = "datapath/lib/nat:unsupported-proto";
      return DropReason.NAT_UNSUPPORTED_PROTO;
    }
    port = allocatePort(ctx, toAddr);
    if (port < 0) {
      ctx.site = "datapath/lib/nat:no-port";
      return DropReason.NAT_NO_MAPPING;
    }
    if (snat.create(saddr, daddr, sport, dport, proto, toAddr, port, ctx.now) < 0) {
      ctx.site = "datapath/lib/nat:map-full";
      return DropReason.MAP_FULL;
    }
  }
  rewriteSource(ctx, toAddr, port);
  ctx.xlate |= Xlate.SNAT;
  return 0;
}

/** Translates a reply to a SNAT'ed flow back to the original source (now its destination). True when done. */
export function revSnatV4(ctx: DatapathCtx): boolean {
  const snat = ctx.maps.snat;
  const slot = snat.lookup(SnatDir.INGRESS, ctx.saddr, ctx.daddr, ctx.sport, ctx.dport, ctx.proto);
  if (slot < 0) return false;
  const addr = snat.addr(slot);
  const port = snat.port(slot);
  rewriteDestination(ctx, addr, port);
  ctx.xlate |= Xlate.REV_SNAT;
  ctx.ctDaddr = addr;
  ctx.ctDport = port;
  return true;
}

/** A free source port on toAddr for replies from (daddr, dport), or -1. */
function allocatePort(ctx: DatapathCtx, toAddr: number): number {
  const snat = ctx.maps.snat;
  const min = ctx.config.snatPortMin;
  const max = ctx.config.snatPortMax;
  const { daddr, sport, dport, proto } = ctx;
  if (sport >= min && sport <= max && !snat.has(SnatDir.INGRESS, daddr, toAddr, dport, sport, proto)) return sport;
  const range = max - min + 1;
  for (let i = 0; i < SNAT_COLLISION_RETRIES; i++) {
    const port = min + (ctx.prandom() % range);
    if (!snat.has(SnatDir.INGRESS, daddr, toAddr, dport, port, proto)) return port;
  }
  return -1;
}

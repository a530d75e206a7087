// Sending a packet to another node without the host stack: through the tunnel (encapsulate to the node's
// underlay address, then the FIB gives interface and MACs) or routed natively via the FIB (needed when
// the source was NAT'ed to a node address, which the stack would reject as a martian source).
import type { DatapathCtx } from "../ctx.js";
import { EncapKind } from "./config.js";
import { encapIpip, encapVxlan } from "./encap.js";
import { fibForward } from "./fib.js";
import { decrementTtl } from "./l3.js";

/** Encapsulates to `remote` per the node's tunnel mode and resolves the underlay next hop. 0 or a DropReason. */
export function tunnelTo(ctx: DatapathCtx, remote: number): number {
  const config = ctx.config;
  const local = config.nodeIps[0] ?? 0;
  if (config.encap === EncapKind.IPIP) encapIpip(ctx, local, remote);
  else encapVxlan(ctx, local, remote, config.vniFromIdentity ? ctx.srcIdentity & 0xffffff : config.vni, config.tunnelPort);
  return fibForward(ctx, remote);
}

/** Routes the packet natively: TTL decremented, MACs and output interface from the FIB. 0 or a DropReason. */
export function routeOut(ctx: DatapathCtx): number {
  const ttl = decrementTtl(ctx);
  if (ttl !== 0) return ttl;
  return fibForward(ctx, ctx.daddr);
}

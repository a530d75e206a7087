// Service load balancing, after Cilium's lib/lb.h: frontend lookup by (vip, port, proto) including
// NodePorts on this node's addresses, backend selection (established flows keep theirs through a SERVICE
// conntrack entry; ClientIP affinity; otherwise a slot drawn from the caller's seeded random value),
// DNAT with incremental checksums, and the reverse translation of replies through the rev-NAT index.
import { CT_VALUE_WORDS, CtValue } from "../maps/conntrack.js";
import { readU64, writeU64 } from "../maps/words.js";
import { AffinityValue, BackendValue, RevNatValue, SVC_VALUE_WORDS, ServiceFlag, SvcValue } from "../maps/lb.js";
import { DropReason } from "../reasons.js";
import { Xlate, type DatapathCtx } from "../ctx.js";
import { isNodeIp } from "./config.js";
import { CtDir, CtStatus, ctCreate, ctLookup } from "./conntrack.js";
import { hasPorts, rewriteDestination, rewriteSource } from "./l3.js";

/**
 * Master slot of the frontend the packet is addressed to (ctx.daddr, ctx.dport, ctx.proto), or -1.
 * A destination that is one of this node's addresses also matches NodePort frontends stored with vip 0.
 */
export function lbLookupService(ctx: DatapathCtx): number {
  if (!hasPorts(ctx.proto)) return -1;
  const lb = ctx.maps.lb;
  const slot = lb.lookupService(ctx.daddr, ctx.dport, ctx.proto);
  if (slot >= 0 || !isNodeIp(ctx.config, ctx.daddr)) return slot;
  const any = lb.lookupService(0, ctx.dport, ctx.proto);
  if (any < 0) return -1;
  return (lb.services.values[any * SVC_VALUE_WORDS + SvcValue.FLAGS]! & ServiceFlag.NODEPORT) !== 0 ? any : -1;
}

export function serviceBackendCount(ctx: DatapathCtx, svc: number): number {
  return ctx.maps.lb.services.values[svc * SVC_VALUE_WORDS + SvcValue.COUNT]!;
}

export function serviceFlags(ctx: DatapathCtx, svc: number): number {
  return ctx.maps.lb.services.values[svc * SVC_VALUE_WORDS + SvcValue.FLAGS]!;
}

/**
 * Picks the backend for the packet's flow and DNATs the packet to it. ctx's conntrack tuple becomes the
 * backend tuple; ctx.revNatIndex and ctx.backendId are set. 0, or NO_SERVICE when no backend can be used.
 */
export function lbTranslate(ctx: DatapathCtx, svc: number): number {
  const lb = ctx.maps.lb;
  const sv = lb.services.values;
  const count = sv[svc * SVC_VALUE_WORDS + SvcValue.COUNT]!;
  const revNat = sv[svc * SVC_VALUE_WORDS + SvcValue.REV_NAT_INDEX]!;
  const flags = sv[svc * SVC_VALUE_WORDS + SvcValue.FLAGS]!;
  const timeoutSec = sv[svc * SVC_VALUE_WORDS + SvcValue.AFFINITY_TIMEOUT_S]!;
  const vip = lb.services.keys[svc * 3]!;
  const svcPorts = lb.services.keys[svc * 3 + 1]!;
  if (count === 0) return noBackend(ctx);
  const affinity = (flags & ServiceFlag.AFFINITY) !== 0;

  let backendId = 0;
  let backend = -1;
  if (ctLookup(ctx, CtDir.SERVICE) === CtStatus.NEW) {
    if (affinity) backendId = affinityBackend(ctx, revNat, timeoutSec);
    if (backendId !== 0) backend = lb.lookupBackend(backendId);
    if (backend < 0) {
      backendId = selectBackend(ctx, vip, svcPorts, count);
      backend = backendId === 0 ? -1 : lb.lookupBackend(backendId);
      if (backend < 0) return noBackend(ctx);
    }
    ctx.backendId = backendId;
    ctx.revNatIndex = revNat;
    if (ctCreate(ctx, CtDir.SERVICE) !== 0) return noBackend(ctx); // fail closed, as Cilium
  } else {
    const v = ctx.maps.ct.values;
    const entry = ctx.ctSlot * CT_VALUE_WORDS;
    backendId = ctx.backendId;
    const sameService = v[entry + CtValue.REV_NAT_INDEX] === revNat;
    backend = sameService ? lb.lookupBackend(backendId) : -1;
    if (backend < 0) {
      // The entry belongs to another service, or its backend was removed: select again.
      backendId = (affinity ? affinityBackend(ctx, revNat, timeoutSec) : 0) || selectBackend(ctx, vip, svcPorts, count);
      backend = backendId === 0 ? -1 : lb.lookupBackend(backendId);
      if (backend < 0) return noBackend(ctx);
      v[entry + CtValue.REV_NAT_INDEX] = revNat;
      v[entry + CtValue.BACKEND_ID] = backendId;
    }
  }
  if (affinity) storeAffinity(ctx, revNat, backendId);
  ctx.revNatIndex = revNat;
  ctx.backendId = backendId;
  const bv = lb.backends.values;
  const addr = bv[backend * 3 + BackendValue.ADDR]!;
  const port = bv[backend * 3 + BackendValue.PORT]!;
  rewriteDestination(ctx, addr, port);
  ctx.xlate |= Xlate.DNAT;
  ctx.ctDaddr = addr;
  ctx.ctDport = port;
  return 0;
}

function noBackend(ctx: DatapathCtx): number {
  ctx.site = "datapath/lib/lb:no-backend";
  return DropReason.NO_SERVICE;
}

/**
 * Rewrites a reply's source back to the frontend of ctx.revNatIndex (lb4_rev_nat); a rev-NAT address of 0
 * (NodePort on every node address) means the address the flow was sent to, from its conntrack entry.
 * Returns true when done.
 */
export function lbRevNat(ctx: DatapathCtx): boolean {
  if (ctx.revNatIndex === 0 || (ctx.xlate & Xlate.REV_DNAT) !== 0) return false;
  const lb = ctx.maps.lb;
  const slot = lb.lookupRevNat(ctx.revNatIndex);
  if (slot < 0) return false;
  let addr = lb.revNat.values[slot * 2 + RevNatValue.ADDR]!;
  const port = lb.revNat.values[slot * 2 + RevNatValue.PORT]!;
  // A NodePort frontend on every node address (vip 0): the reply comes from the address the client used.
  if (addr === 0 && ctx.ctSlot >= 0) addr = ctx.maps.ct.values[ctx.ctSlot * CT_VALUE_WORDS + CtValue.ORIG_DADDR]!;
  rewriteSource(ctx, addr, hasPorts(ctx.proto) ? port : ctx.sport);
  ctx.xlate |= Xlate.REV_DNAT;
  return true;
}

function selectBackend(ctx: DatapathCtx, vip: number, svcPorts: number, count: number): number {
  const lb = ctx.maps.lb;
  const slot = lb.lookupSlot(vip, svcPorts >>> 16, (svcPorts >>> 8) & 0xff, (ctx.prandom() % count) + 1);
  return slot < 0 ? 0 : lb.services.values[slot * SVC_VALUE_WORDS + SvcValue.BACKEND_ID]!;
}

/** The client's remembered backend if still fresh and still serving the service (else forgotten), or 0. */
function affinityBackend(ctx: DatapathCtx, revNat: number, timeoutSec: number): number {
  const aff = ctx.maps.lb.affinity;
  const slot = aff.lookup2(ctx.saddr, revNat);
  if (slot < 0) return 0;
  const lastUsed = readU64(aff.values, slot * 3 + AffinityValue.LAST_USED_NS);
  const id = aff.values[slot * 3 + AffinityValue.BACKEND_ID]!;
  // Sticky for [last use, last use + timeout), as Cilium (the upper bound excluded).
  if (lastUsed + timeoutSec * 1e9 <= ctx.now || !ctx.maps.lb.backendServes(revNat, id)) {
    aff.deleteSlot(slot);
    return 0;
  }
  return id;
}

function storeAffinity(ctx: DatapathCtx, revNat: number, backendId: number): void {
  const aff = ctx.maps.lb.affinity;
  const slot = aff.upsert2(ctx.saddr, revNat);
  if (slot < 0) return;
  aff.values[slot * 3 + AffinityValue.BACKEND_ID] = backendId;
  writeU64(aff.values, slot * 3 + AffinityValue.LAST_USED_NS, ctx.now);
}

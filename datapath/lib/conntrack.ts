// The connection-tracking state machine over ConntrackMap, after Cilium's lib/conntrack.h: a lookup in the
// reverse direction first (REPLY / RELATED win over ESTABLISHED), then forward; TCP flags accumulate per
// direction and choose the lifetime (until a packet without SYN: 60 s, established 6 h, both sides closing 10 s, non-TCP 60 s);
// an RST before both SYNs were seen closes at once; a SYN on a closing entry reopens it.
// Times are 64-bit ns values: they are computed and written inside the function using them, from ctx.now
// and lifetimes in seconds, so no wide number crosses a call (V8 would box it: an allocation per packet).
// Entries are keyed (saddr, daddr, sport, dport, proto, flags) with the flow's original direction: OUT for
// flows an endpoint opened (egress), IN for flows it accepted (ingress), SERVICE for load-balancer entries.
import { IPPROTO_ICMP, IPPROTO_TCP } from "../../src/wire/checksum.js";
import { read16, read32 } from "../../src/wire/bytes.js";
import { isIcmpError } from "../../src/wire/icmp.js";
import type { DatapathCtx } from "../ctx.js";
import { CT_VALUE_WORDS, CtFlag, CtTupleFlag, CtValue } from "../maps/conntrack.js";
import { DropReason } from "../reasons.js";

const SEC = 1_000_000_000;
const TWO_32 = 0x100000000;
/** Lifetimes in seconds, Cilium's defaults (CT_CONNECTION_LIFETIME_TCP etc. in bpf/node_config.h). */
const LifetimeSec = { TCP: 21600, NONTCP: 60, SYN: 60, CLOSE: 10, SERVICE_TCP: 21600, SERVICE_NONTCP: 60 } as const;
/** Lifetimes in ns. */
export const CtLifetime = {
  TCP: LifetimeSec.TCP * SEC,
  NONTCP: LifetimeSec.NONTCP * SEC,
  SYN: LifetimeSec.SYN * SEC,
  CLOSE: LifetimeSec.CLOSE * SEC,
  SERVICE_TCP: LifetimeSec.SERVICE_TCP * SEC,
  SERVICE_NONTCP: LifetimeSec.SERVICE_NONTCP * SEC,
} as const;

/** Lookup results (Cilium's CT_NEW, CT_ESTABLISHED, CT_REPLY, CT_RELATED, CT_REOPENED). */
export const CtStatus = { NEW: 0, ESTABLISHED: 1, REPLY: 2, RELATED: 3, REOPENED: 4 } as const;
export type CtStatus = (typeof CtStatus)[keyof typeof CtStatus];

/** Which side of the endpoint the lookup happens on (Cilium's CT_EGRESS / CT_INGRESS / CT_SERVICE). */
export const CtDir = { EGRESS: 0, INGRESS: 1, SERVICE: 2 } as const;
export type CtDir = (typeof CtDir)[keyof typeof CtDir];

const TCP_SYN = 0x02;
const TCP_FIN = 0x01;
const TCP_RST = 0x04;
const CLOSING = CtFlag.RX_CLOSING | CtFlag.TX_CLOSING;

/**
 * Looks the packet's conntrack tuple (ctx.ct*) up for `dir`. Sets ctx.ctStatus, ctx.ctSlot (-1 for NEW),
 * ctx.ctFlags, ctx.revNatIndex (if the entry has one), ctx.backendId (SERVICE) and ctx.tunnelReturn,
 * and updates the found entry (lifetime, flags, counters). Returns the status.
 */
export function ctLookup(ctx: DatapathCtx, dir: CtDir): CtStatus {
  const ct = ctx.maps.ct;
  const proto = ctx.proto;
  const s = ctx.ctSaddr;
  const d = ctx.ctDaddr;
  const sp = ctx.ctSport;
  const dp = ctx.ctDport;
  ctx.ctSlot = -1;
  ctx.ctFlags = 0;
  if (proto === IPPROTO_ICMP && isIcmpError(ctx.hdr.icmpType)) return lookupRelated(ctx, dir);
  if (dir === CtDir.SERVICE) {
    const slot = live(ctx, ct.lookupV4(s, d, sp, dp, proto, CtTupleFlag.SERVICE));
    if (slot < 0) return setStatus(ctx, CtStatus.NEW);
    return setStatus(ctx, touch(ctx, slot, false, dir));
  }
  const reverseFlag = dir === CtDir.EGRESS ? CtTupleFlag.IN : CtTupleFlag.OUT;
  const rev = live(ctx, ct.lookupV4(d, s, dp, sp, proto, reverseFlag));
  if (rev >= 0) {
    touch(ctx, rev, true, dir);
    return setStatus(ctx, CtStatus.REPLY);
  }
  const forwardFlag = dir === CtDir.EGRESS ? CtTupleFlag.OUT : CtTupleFlag.IN;
  const fwd = live(ctx, ct.lookupV4(s, d, sp, dp, proto, forwardFlag));
  if (fwd < 0) return setStatus(ctx, CtStatus.NEW);
  return setStatus(ctx, touch(ctx, fwd, false, dir));
}

/**
 * Creates the forward entry for a NEW flow with ctx's rev-NAT index, backend, source identity, NodePort
 * flag and tunnel return; the original tuple words hold the tuple before translation. 0 or CT_CREATE_FAILED.
 */
export function ctCreate(ctx: DatapathCtx, dir: CtDir): number {
  const ct = ctx.maps.ct;
  const flag = dir === CtDir.EGRESS ? CtTupleFlag.OUT : dir === CtDir.INGRESS ? CtTupleFlag.IN : CtTupleFlag.SERVICE;
  const tcpFlags = ctx.proto === IPPROTO_TCP ? ctx.hdr.tcpFlags & 0xff : 0;
  const slot = ct.insertV4(ctx.ctSaddr, ctx.ctDaddr, ctx.ctSport, ctx.ctDport, ctx.proto, flag);
  if (slot < 0) {
    ctx.site = "datapath/lib/conntrack:create";
    return DropReason.CT_CREATE_FAILED;
  }
  const v = ct.values; // read after insertV4: a noPrealloc map replaces it when it grows
  const base = slot * CT_VALUE_WORDS;
  // A tuple that already had an entry (an ICMP error's own tuple, which lookups do not consult) starts over.
  if (!ct.created) v.fill(0, base, base + CT_VALUE_WORDS);
  const now = ctx.now;
  v[base + CtValue.CREATED_NS] = now >>> 0;
  v[base + CtValue.CREATED_NS + 1] = (now / TWO_32) >>> 0;
  expireIn(ctx, v, base, lifetimeSec(ctx.proto, tcpFlags, dir));
  let flags = ctx.nodePort ? CtFlag.NODE_PORT : 0;
  if (ctx.proto === IPPROTO_TCP && (tcpFlags & TCP_SYN) === 0) flags |= CtFlag.SEEN_NON_SYN;
  v[base + CtValue.FLAGS] = flags;
  v[base + CtValue.TCP_FLAGS_SEEN] = tcpFlags;
  v[base + CtValue.REV_NAT_INDEX] = ctx.revNatIndex;
  if (dir === CtDir.SERVICE) v[base + CtValue.BACKEND_ID] = ctx.backendId;
  else v[base + CtValue.TUNNEL_RETURN] = ctx.tunnelReturn;
  v[base + CtValue.SRC_IDENTITY] = ctx.srcIdentity;
  v[base + CtValue.ORIG_SADDR] = ctx.origSaddr;
  v[base + CtValue.ORIG_DADDR] = ctx.origDaddr;
  v[base + CtValue.ORIG_PORTS] = ((ctx.origSport << 16) | ctx.origDport) >>> 0;
  ct.addTx(slot, ctx.skb.length);
  if (dir !== CtDir.SERVICE) {
    ctx.ctSlot = slot;
    ctx.ctFlags = flags;
  }
  return 0;
}

/** Lifetime in ns of an entry given the flags seen so far (ct_update_timeout). */
export function lifetimeFor(proto: number, flagsSeen: number, dir: CtDir): number {
  return lifetimeSec(proto, flagsSeen, dir) * SEC;
}

/** lifetimeFor in seconds (a small integer: safe to return from a call on the packet path). */
function lifetimeSec(proto: number, flagsSeen: number, dir: CtDir): number {
  if (proto !== IPPROTO_TCP) return dir === CtDir.SERVICE ? LifetimeSec.SERVICE_NONTCP : LifetimeSec.NONTCP;
  if ((flagsSeen & TCP_SYN) !== 0) return LifetimeSec.SYN; // a SYN or SYN-ACK: not yet seen a non-SYN packet
  return dir === CtDir.SERVICE ? LifetimeSec.SERVICE_TCP : LifetimeSec.TCP;
}

/** EXPIRES_NS of the entry at `base` := ctx.now + `seconds`, the sum formed and split into words here. */
function expireIn(ctx: DatapathCtx, v: Uint32Array, base: number, seconds: number): void {
  const t = ctx.now + seconds * SEC;
  v[base + CtValue.EXPIRES_NS] = t >>> 0;
  v[base + CtValue.EXPIRES_NS + 1] = (t / TWO_32) >>> 0;
}

function setStatus(ctx: DatapathCtx, status: CtStatus): CtStatus {
  ctx.ctStatus = status;
  return status;
}

/** The slot when it is live at ctx.now; an expired entry is deleted (GC on access) and reported as a miss. */
function live(ctx: DatapathCtx, slot: number): number {
  if (slot < 0) return slot;
  const v = ctx.maps.ct.values;
  const e = slot * CT_VALUE_WORDS + CtValue.EXPIRES_NS;
  if (v[e]! + v[e + 1]! * TWO_32 > ctx.now) return slot;
  ctx.maps.ct.deleteSlot(slot);
  return -1;
}

/** Updates a found entry for this packet; returns ESTABLISHED, or REOPENED when a SYN revives a closing entry. */
function touch(ctx: DatapathCtx, slot: number, reply: boolean, dir: CtDir): CtStatus {
  const ct = ctx.maps.ct;
  const v = ct.values;
  const base = slot * CT_VALUE_WORDS;
  const tcp = ctx.proto === IPPROTO_TCP;
  const pktFlags = tcp ? ctx.hdr.tcpFlags & 0xff : 0;
  let flags = v[base + CtValue.FLAGS]!;
  let status: CtStatus = CtStatus.ESTABLISHED;
  if (tcp && (pktFlags & TCP_SYN) === 0) flags |= CtFlag.SEEN_NON_SYN;
  if ((flags & CLOSING) !== CLOSING) {
    const seconds = !tcp
      ? lifetimeSec(ctx.proto, 0, dir)
      : (flags & CtFlag.SEEN_NON_SYN) !== 0
        ? dir === CtDir.SERVICE ? LifetimeSec.SERVICE_TCP : LifetimeSec.TCP
        : LifetimeSec.SYN;
    expireIn(ctx, v, base, seconds);
  }
  const seen = v[base + CtValue.TCP_FLAGS_SEEN]!;
  v[base + CtValue.TCP_FLAGS_SEEN] = reply ? seen | (pktFlags << 8) : seen | pktFlags;
  if (tcp && (pktFlags & (TCP_RST | TCP_FIN)) !== 0) {
    const bothSyns = (seen & TCP_SYN) !== 0 && (seen & (TCP_SYN << 8)) !== 0;
    if ((pktFlags & TCP_RST) !== 0 && !bothSyns && dir !== CtDir.SERVICE) flags |= CLOSING;
    else flags |= reply ? CtFlag.RX_CLOSING : CtFlag.TX_CLOSING;
    if ((flags & CLOSING) === CLOSING) expireIn(ctx, v, base, LifetimeSec.CLOSE);
  } else if (tcp && (flags & CLOSING) !== 0 && (pktFlags & TCP_SYN) !== 0) {
    flags &= ~CLOSING;
    expireIn(ctx, v, base, lifetimeSec(ctx.proto, pktFlags, dir));
    status = CtStatus.REOPENED;
  }
  v[base + CtValue.FLAGS] = flags;
  if (reply) ct.addRx(slot, ctx.skb.length);
  else ct.addTx(slot, ctx.skb.length);
  ctx.ctSlot = slot;
  ctx.ctFlags = flags;
  const revNat = v[base + CtValue.REV_NAT_INDEX]!;
  if (revNat !== 0) ctx.revNatIndex = revNat;
  if (dir === CtDir.SERVICE) ctx.backendId = v[base + CtValue.BACKEND_ID]!;
  else if ((flags & CtFlag.NODE_PORT) !== 0) ctx.tunnelReturn = v[base + CtValue.TUNNEL_RETURN]!;
  return status;
}

/**
 * An ICMP error is RELATED when the datagram it quotes belongs to a tracked flow: at ingress the quoted
 * packet is one the endpoint sent (its OUT entry), at egress one it received (its IN entry).
 */
function lookupRelated(ctx: DatapathCtx, dir: CtDir): CtStatus {
  const hdr = ctx.hdr;
  const bytes = ctx.skb.data;
  const inner = hdr.payloadOffset;
  if (dir === CtDir.SERVICE || inner + 20 > hdr.end || bytes[inner]! >>> 4 !== 4) return setStatus(ctx, CtStatus.NEW);
  const ihl = (bytes[inner]! & 0x0f) << 2;
  const qProto = bytes[inner + 9]!;
  const qs = read32(bytes, inner + 12);
  const qd = read32(bytes, inner + 16);
  let qsp = 0;
  let qdp = 0;
  if (inner + ihl + 4 <= hdr.end && qProto !== IPPROTO_ICMP) {
    qsp = read16(bytes, inner + ihl);
    qdp = read16(bytes, inner + ihl + 2);
  } else if (qProto === IPPROTO_ICMP && inner + ihl + 8 <= hdr.end && bytes[inner + ihl] === 8) {
    qsp = read16(bytes, inner + ihl + 4);
  }
  const flag = dir === CtDir.INGRESS ? CtTupleFlag.OUT : CtTupleFlag.IN;
  const slot = live(ctx, ctx.maps.ct.lookupV4(qs, qd, qsp, qdp, qProto, flag));
  if (slot < 0) return setStatus(ctx, CtStatus.NEW);
  ctx.ctSlot = slot;
  ctx.ctFlags = ctx.maps.ct.values[slot * CT_VALUE_WORDS + CtValue.FLAGS]!;
  return setStatus(ctx, CtStatus.RELATED);
}

// nf_conntrack_in for one IPv4 packet: ICMP errors resolved to the connection they quote (RELATED),
// otherwise the packet's tuple looked up in either direction or a new unconfirmed entry created, then
// the protocol tracker decides (INVALID packets carry no entry). Sets skb.ctEntry / skb.ctState.

import type { SkBuff } from "../../../skb/skbuff.js";
import type { ParsedHeaders } from "../../../wire/headers.js";
import { ParseStatus as ParseStatusImport } from "../../../wire/headers.js";
import { read16, read32 } from "../../../wire/bytes.js";
import { verifyChecksum } from "../../../wire/checksum.js";
import { CtState as CtStateImport } from "../ct-state.js";
import { IPPROTO_ICMP, IPPROTO_SCTP, IPPROTO_TCP, IPPROTO_UDP, invertPorts, packPorts, type Conntrack } from "./conntrack.js";
import type { FragmentMemory } from "./fragments.js";
import { F as FImport, Ips as IpsImport, ROW_WORDS } from "./table.js";
import { CtVerdict as CtVerdictImport, tcpPacket } from "./tcp.js";
import { genericPacket, grePacket, icmpIsError, icmpPacket, NR_ICMP_TYPES, udpPacket } from "./l4.js";

// Imported constant objects read through module constants: V8 folds their members into the code
// (a read through an import binding checks the binding and the object's shape at every use).
const ParseStatus = ParseStatusImport;
const CtState = CtStateImport;
const F = FImport;
const Ips = IpsImport;
const CtVerdict = CtVerdictImport;

const IPPROTO_GRE = 47;

/** Outcome of conntrackIn besides the ct fields on the packet. */
export const CtInResult = { ACCEPT: 1, TABLE_FULL: 0 } as const;

function hasPorts(proto: number): boolean {
  return proto === IPPROTO_TCP || proto === IPPROTO_UDP || proto === IPPROTO_SCTP || proto === 136 || proto === 33;
}

/** Tuple ports word of the packet's own L4 header (parsed in h). */
function packetPorts(h: ParsedHeaders): number {
  const proto = h.ipProto;
  if (hasPorts(proto)) return packPorts(h.srcPort, h.dstPort);
  if (proto === IPPROTO_ICMP) return packPorts(h.icmpId, (h.icmpType << 8) | h.icmpCode);
  return 0;
}

function setNoCt(skb: SkBuff): void {
  skb.ctEntry = -1;
  skb.ctState = CtState.INVALID;
}

/**
 * Resolves the ICMP error in h to the entry its quoted header belongs to. Returns the node
 * (2 * entry + dir) or -1 when the error is not related to a tracked connection.
 */
function relatedNode(ct: Conntrack, bytes: Uint8Array, h: ParsedHeaders): number {
  const inner = h.l4Offset + 8;
  const end = h.end;
  if (inner + 20 > end) return -1;
  if (bytes[inner]! >>> 4 !== 4) return -1;
  const ihl = (bytes[inner]! & 0x0f) * 4;
  if (ihl < 20 || inner + ihl > end) return -1;
  if ((read16(bytes, inner + 6) & 0x1fff) !== 0) return -1;
  const proto = bytes[inner + 9]!;
  const src = read32(bytes, inner + 12);
  const dst = read32(bytes, inner + 16);
  const l4 = inner + ihl;
  let ports = 0;
  if (hasPorts(proto)) {
    if (l4 + 4 > end) return -1;
    ports = packPorts(read16(bytes, l4), read16(bytes, l4 + 2));
  } else if (proto === IPPROTO_ICMP) {
    if (l4 + 8 > end) return -1;
    ports = packPorts(read16(bytes, l4 + 4), (bytes[l4]! << 8) | bytes[l4 + 1]!);
  }
  // The quoted packet travelled the other way: look up its inverse.
  const inv = invertPorts(proto, ports);
  if (inv < 0) return -1;
  const n = ct.find(dst, src, inv, proto);
  if (n < 0) return -1;
  // The error must be addressed to the side that sent the quoted packet.
  if (ct.table.dst(n >> 1, n & 1) !== h.dst4) return -1;
  return n;
}

/**
 * Runs conntrack for a packet whose outer headers are parsed in h. `prerouting` enables L4 checksum
 * verification; `tagBase` is added to the entry index stored in skb.ctEntry; later fragments take
 * their first fragment's entry from `frags`. Returns CtInResult.TABLE_FULL when a new entry could
 * not be created.
 */
export function conntrackIn(
  ct: Conntrack,
  skb: SkBuff,
  bytes: Uint8Array,
  h: ParsedHeaders,
  prerouting: boolean,
  tagBase: number,
  frags: FragmentMemory,
): number {
  if (h.ipVersion === 4 && h.fragOffset !== 0) {
    // A later fragment: the connection of its datagram's first fragment, if that passed already.
    const slot = frags.find(h.src4, h.dst4, fragKey(h), ct.clock.now);
    if (slot < 0) {
      ct.stats.invalid++;
      setNoCt(skb);
      return CtInResult.ACCEPT;
    }
    skb.ctEntry = frags.ctEntry(slot);
    skb.ctState = frags.ctState(slot);
    if (!h.moreFragments) frags.forget(slot);
    return CtInResult.ACCEPT;
  }
  if (h.status !== ParseStatus.OK || h.ipVersion !== 4) {
    ct.stats.invalid++;
    setNoCt(skb);
    return CtInResult.ACCEPT;
  }
  const r = resolve(ct, skb, bytes, h, prerouting, tagBase);
  if (h.moreFragments && skb.ctEntry >= 0) frags.remember(h.src4, h.dst4, fragKey(h), skb.ctEntry, skb.ctState, ct.clock.now);
  return r;
}

function fragKey(h: ParsedHeaders): number {
  return h.fragId * 256 + h.ipProto;
}

/** Conntrack for a whole datagram or a first fragment (whose checksum and length cover data not here). */
function resolve(ct: Conntrack, skb: SkBuff, bytes: Uint8Array, h: ParsedHeaders, prerouting: boolean, tagBase: number): number {
  const fragment = h.moreFragments;
  const verify = prerouting && !fragment && skb.gsoSize === 0; // GSO/GRO skbs: CHECKSUM_PARTIAL / UNNECESSARY
  const proto = h.ipProto;
  if (proto === IPPROTO_ICMP) {
    const icmpLen = h.ipTotalLen - h.ipHeaderLen;
    const badSum = verify && ct.config.checksum && !verifyChecksum(bytes, h.l4Offset, h.l4Offset + icmpLen);
    if (badSum || h.icmpType > NR_ICMP_TYPES) {
      ct.stats.error++;
      ct.stats.invalid++;
      setNoCt(skb);
      return CtInResult.ACCEPT;
    }
    if (icmpIsError(h.icmpType)) {
      const n = relatedNode(ct, bytes, h);
      if (n < 0) {
        ct.stats.error++;
        ct.stats.invalid++;
        setNoCt(skb);
      } else {
        skb.ctEntry = tagBase + (n >> 1);
        skb.ctState = CtState.RELATED | ((n & 1) === 1 ? CtState.REPLY : 0);
      }
      return CtInResult.ACCEPT;
    }
  }

  const ports = packetPorts(h);
  for (;;) {
    let n = ct.find(h.src4, h.dst4, ports, proto);
    let created = false;
    if (n >= 0) {
      ct.stats.found++;
    } else {
      const rports = invertPorts(proto, ports);
      if (rports < 0) {
        ct.stats.invalid++;
        setNoCt(skb);
        return CtInResult.ACCEPT;
      }
      const i = ct.create(proto, h.src4, h.dst4, ports, rports);
      if (i < 0) {
        setNoCt(skb);
        return CtInResult.TABLE_FULL;
      }
      n = 2 * i;
      created = true;
    }
    const i = n >> 1;
    const reply = (n & 1) === 1;
    // The row's words read directly: the trackers below are too big for V8 to inline accessors here.
    const status = ct.table.u32[i * ROW_WORDS + F.STATUS]!;
    let state: number;
    if (reply) state = CtState.ESTABLISHED | CtState.REPLY;
    else if (status & Ips.SEEN_REPLY) state = CtState.ESTABLISHED;
    else state = CtState.NEW;

    let verdict: number;
    if (proto === IPPROTO_TCP) verdict = tcpPacket(ct, i, reply ? 1 : 0, skb, bytes, h, verify);
    else if (proto === IPPROTO_UDP) verdict = udpPacket(ct, i, skb, bytes, h, verify, fragment);
    else if (proto === IPPROTO_ICMP) verdict = icmpPacket(ct, i);
    else if (proto === IPPROTO_GRE) verdict = grePacket(ct, i);
    else verdict = genericPacket(ct, i);

    if (verdict === CtVerdict.REPEAT) continue;
    if (verdict <= 0) {
      ct.stats.invalid++;
      if (created) ct.table.free(i);
      setNoCt(skb);
      return CtInResult.ACCEPT;
    }
    if (reply) {
      // The table cannot have grown since the lookup: only creating an entry allocates.
      const u = ct.table.u32;
      u[i * ROW_WORDS + F.STATUS] = u[i * ROW_WORDS + F.STATUS]! | Ips.SEEN_REPLY;
    }
    skb.ctEntry = tagBase + i;
    skb.ctState = state;
    return CtInResult.ACCEPT;
  }
}

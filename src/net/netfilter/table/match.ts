// Evaluates a compiled rule's matches against one packet, with iptables' semantics: every present
// match must hold; port/flag matches never match non-first fragments; ctstate without a conntrack
// entry sees INVALID (or UNTRACKED); addrtype uses the namespace's local addresses.

import type { SkBuff } from "../../../skb/skbuff.js";
import type { SeededRng } from "../../../util/rng.js";
import type { ParsedHeaders } from "../../../wire/headers.js";
import { CtMatchState, CtState, packetStateBits } from "../ct-state.js";
import { Ips } from "../conntrack/table.js";
import type { NetfilterHost } from "../host.js";
import type { RecentTables } from "./recent.js";
import { M, type NfRule } from "./rule.js";

/** Per-packet facts the matches read; one instance per traversal depth, refilled for each packet. */
export class MatchContext {
  h: ParsedHeaders | null = null;
  skb: SkBuff | null = null;
  inName = "";
  outName = "";
  /** Conntrack entry of the packet or -1, its status bits and direction (0 original, 1 reply). */
  ctIndex = -1;
  ctStatus = 0;
  ctDir = 0;
  /** Packet length as iptables counts it (the IPv4 total length). */
  length = 0;
  /** xt match modules called so far (ip_packet_match passed, so the rule's modules ran); monotonic. */
  modulesCalled = 0;
}

export interface MatchEnv {
  readonly host: NetfilterHost;
  readonly rng: SeededRng;
  readonly recent: RecentTables;
  readonly now: number;
}

function ifaceMatches(name: string, want: string, prefix: boolean): boolean {
  return prefix ? name.startsWith(want) : name === want;
}

/** xt_addrtype type code of an address (ADDR_TYPES index): LOCAL 0, UNICAST 1, BROADCAST 2, MULTICAST 3. */
export function addrTypeOf(host: NetfilterHost, addr: number): number {
  if (addr >>> 24 === 0 || addr === 0xffffffff) return 2;
  if (addr >>> 28 === 0xe) return 3;
  if (addr >>> 24 === 127 || host.isLocalAddress(addr)) return 0;
  return 1;
}

function inRanges(list: Uint16Array, port: number): boolean {
  for (let k = 0; k < list.length; k += 2) if (port >= list[k]! && port <= list[k + 1]!) return true;
  return false;
}

function ctMatches(r: NfRule, c: MatchContext): boolean {
  const skb = c.skb!;
  let bits = packetStateBits(skb.ctState);
  if (c.ctIndex >= 0) {
    if (c.ctStatus & Ips.SRC_NAT) bits |= CtMatchState.SNAT;
    if (c.ctStatus & Ips.DST_NAT) bits |= CtMatchState.DNAT;
  }
  if (r.has & M.CTSTATE && ((r.ctMask & bits) !== 0) === r.ctInv) return false;
  if (c.ctIndex < 0 || skb.ctState & CtState.UNTRACKED) return (r.has & M.CTSTATE) !== 0;
  return !(r.has & M.CTDIR) || c.ctDir === r.ctDir;
}

/** True when every match of rule r holds for the packet in c (may update statistic/recent state). */
export function ruleMatches(r: NfRule, c: MatchContext, env: MatchEnv): boolean {
  const has = r.has;
  if (has === 0) {
    c.modulesCalled += r.matchModules;
    return true;
  }
  const h = c.h!;
  if (has & M.SRC && (((h.src4 & r.srcMask) >>> 0) === r.srcNet) === r.srcInv) return false;
  if (has & M.DST && (((h.dst4 & r.dstMask) >>> 0) === r.dstNet) === r.dstInv) return false;
  if (has & M.PROTO && (h.ipProto === r.proto) === r.protoInv) return false;
  if (has & M.IN && ifaceMatches(c.inName, r.inName, r.inPrefix) === r.inInv) return false;
  if (has & M.OUT && ifaceMatches(c.outName, r.outName, r.outPrefix) === r.outInv) return false;
  // ip_packet_match passed: the kernel now calls the rule's match modules (counted whole, an upper bound
  // when an early one fails).
  c.modulesCalled += r.matchModules;
  if (has & (M.SPORT | M.DPORT | M.MULTIPORT | M.TCPFLAGS | M.ICMP)) {
    // L4 matches need the first fragment with a complete header.
    if (h.fragOffset !== 0 || h.l4Offset < 0 || h.status !== 0) return false;
    if (has & M.SPORT && (h.srcPort >= r.sportLo && h.srcPort <= r.sportHi) === r.sportInv) return false;
    if (has & M.DPORT && (h.dstPort >= r.dportLo && h.dstPort <= r.dportHi) === r.dportInv) return false;
    if (has & M.MULTIPORT) {
      const side = r.multiportSide;
      const hit =
        (side !== 1 && inRanges(r.multiport, h.srcPort)) || (side !== 0 && inRanges(r.multiport, h.dstPort));
      if (hit === r.multiportInv) return false;
    }
    if (has & M.TCPFLAGS && (((h.tcpFlags & r.tcpMask) === r.tcpComp) === r.tcpInv)) return false;
    if (has & M.ICMP) {
      const hit = h.icmpType === r.icmpType && h.icmpCode >= r.icmpCodeLo && h.icmpCode <= r.icmpCodeHi;
      if (hit === r.icmpInv) return false;
    }
  }
  if (has & M.MARK && (((c.skb!.mark & r.markMask) >>> 0 === r.markValue) === r.markInv)) return false;
  if (has & (M.CTSTATE | M.CTDIR) && !ctMatches(r, c)) return false;
  if (has & M.SRCTYPE && (addrTypeOf(env.host, h.src4) === r.srcType) === r.srcTypeInv) return false;
  if (has & M.DSTTYPE && (addrTypeOf(env.host, h.dst4) === r.dstType) === r.dstTypeInv) return false;
  if (has & M.STATISTIC) {
    let hit: boolean;
    if (r.statMode === 0) {
      hit = (env.rng.nextU32() & 0x7fffffff) < r.statProb31;
    } else {
      r.statCount = r.statCount === r.statEvery ? 0 : r.statCount + 1;
      hit = r.statCount === r.statPacket;
    }
    if (hit === r.statInv) return false;
  }
  if (has & M.RECENT) {
    const spec = r.spec.recent!;
    const addr = spec.side === "dest" ? h.dst4 : h.src4;
    if (!env.recent.match(spec, addr, env.now)) return false;
  }
  return true;
}

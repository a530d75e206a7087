// A rule compiled from its spec into flat numeric fields for matching, with its packet/byte
// counters. Bad specs are refused with an NfError naming the table, chain and field.

import { ipv4Mask, parseIPv4 } from "../../../util/ip.js";
import { err, ok, type Result } from "../../../util/result.js";
import { CtMatchState } from "../ct-state.js";
import { parseNatTo, parseToPorts, type NatRange } from "../nat/range.js";
import { PacketCounter } from "./packet-counter.js";
import type { NfChain } from "./table.js";
import {
  ADDR_TYPES,
  REJECT_WITH,
  type CidrSpec,
  type NfError,
  type NfProgramFn,
  type NfRuleSpec,
  type PortSpec,
} from "./spec.js";

/** Which matches a rule has (bits of NfRule.has). */
export const M = {
  SRC: 1 << 0,
  DST: 1 << 1,
  PROTO: 1 << 2,
  IN: 1 << 3,
  OUT: 1 << 4,
  SPORT: 1 << 5,
  DPORT: 1 << 6,
  MULTIPORT: 1 << 7,
  TCPFLAGS: 1 << 8,
  ICMP: 1 << 9,
  MARK: 1 << 10,
  CTSTATE: 1 << 11,
  CTDIR: 1 << 12,
  SRCTYPE: 1 << 13,
  DSTTYPE: 1 << 14,
  STATISTIC: 1 << 15,
  RECENT: 1 << 16,
} as const;

export const TargetKind = {
  ACCEPT: 0,
  DROP: 1,
  RETURN: 2,
  JUMP: 3,
  GOTO: 4,
  REJECT: 5,
  DNAT: 6,
  SNAT: 7,
  MASQUERADE: 8,
  REDIRECT: 9,
  MARK: 10,
  LOG: 11,
  NOTRACK: 12,
  PROGRAM: 13,
  NONE: 14,
} as const;
export const TARGET_NAMES = [
  "ACCEPT",
  "DROP",
  "RETURN",
  "JUMP",
  "GOTO",
  "REJECT",
  "DNAT",
  "SNAT",
  "MASQUERADE",
  "REDIRECT",
  "MARK",
  "LOG",
  "NOTRACK",
  "PROGRAM",
  "NONE",
] as const;

/** ICMP type/code REJECT sends for each --reject-with (code -1 = TCP reset). */
export const REJECT_CODES: { readonly [K in (typeof REJECT_WITH)[number]]: number } = {
  "icmp-net-unreachable": 0,
  "icmp-host-unreachable": 1,
  "icmp-proto-unreachable": 2,
  "icmp-port-unreachable": 3,
  "icmp-net-prohibited": 9,
  "icmp-host-prohibited": 10,
  "icmp-admin-prohibited": 13,
  "tcp-reset": -1,
};

const PORT_PROTOS = new Set([6, 17, 132, 136, 33]);
const NO_PORTS = new Uint16Array(0);
const PROTO_NAMES: { readonly [name: string]: number } = { all: 0, icmp: 1, tcp: 6, udp: 17, sctp: 132, udplite: 136, dccp: 33, gre: 47, ipip: 4, esp: 50, ah: 51 };

/** A compiled rule; its packets/bytes counters come from PacketCounter. */
export class NfRule extends PacketCounter {
  has = 0;
  srcNet = 0;
  srcMask = 0;
  srcInv = false;
  dstNet = 0;
  dstMask = 0;
  dstInv = false;
  proto = 0;
  protoInv = false;
  inName = "";
  inPrefix = false;
  inInv = false;
  outName = "";
  outPrefix = false;
  outInv = false;
  sportLo = 0;
  sportHi = 65535;
  sportInv = false;
  dportLo = 0;
  dportHi = 65535;
  dportInv = false;
  /** Pairs lo, hi (a shared empty array when the rule has no multiport match). */
  multiport: Uint16Array = NO_PORTS;
  multiportSide = 0;
  multiportInv = false;
  tcpMask = 0;
  tcpComp = 0;
  tcpInv = false;
  icmpType = 0;
  icmpCodeLo = 0;
  icmpCodeHi = 255;
  icmpInv = false;
  markValue = 0;
  markMask = 0xffffffff;
  markInv = false;
  ctMask = 0;
  ctInv = false;
  ctDir = 0;
  srcType = 0;
  srcTypeInv = false;
  dstType = 0;
  dstTypeInv = false;
  statMode = 0;
  statProb31 = 0;
  statEvery = 0;
  statPacket = 0;
  statCount = 0;
  statInv = false;

  target: number = TargetKind.ACCEPT;
  /** JUMP/GOTO: the chain, resolved by the table when the rule is inserted. */
  jumpName = "";
  jumpChain: NfChain | null = null;
  natRange: NatRange | null = null;
  rejectCode = 3;
  xmarkValue = 0;
  xmarkMask = 0;
  program: NfProgramFn | null = null;
  programName = "";
  /** A PROGRAM's state stamp (see the PROGRAM spec), null when it has none. */
  programVersion: (() => number) | null = null;
  /** Evaluating this rule reads more than a per-flow walk memo keys on (randomness, counters, flags, ICMP, local addresses) or its target has effects a replay cannot repeat. */
  unreplayable = false;
  /** xt match modules the rule calls besides ip_packet_match (tcp/udp, multiport, mark, conntrack, comment, ...). */
  matchModules = 0;

  constructor(readonly spec: NfRuleSpec) {
    super();
  }

  get comment(): string | undefined {
    return this.spec.comment;
  }
}

function fail(table: string, chain: string, field: string, reason: string): Result<never, NfError> {
  return err({ table, chain, field, reason });
}

function parseCidr(spec: CidrSpec): { net: number; mask: number; inv: boolean } | null {
  if (typeof spec !== "string") {
    if (spec.prefixLen < 0 || spec.prefixLen > 32) return null;
    const mask = ipv4Mask(spec.prefixLen);
    return { net: (spec.addr & mask) >>> 0, mask, inv: spec.invert === true };
  }
  let text = spec.trim();
  const inv = text.startsWith("!");
  if (inv) text = text.slice(1).trim();
  const slash = text.indexOf("/");
  const addr = parseIPv4(slash < 0 ? text : text.slice(0, slash));
  if (addr === null) return null;
  let prefix = 32;
  if (slash >= 0) {
    const p = text.slice(slash + 1);
    if (!/^\d{1,2}$/.test(p) || Number(p) > 32) return null;
    prefix = Number(p);
  }
  const mask = ipv4Mask(prefix);
  return { net: (addr & mask) >>> 0, mask, inv };
}

export function parsePortSpec(spec: PortSpec): { lo: number; hi: number; inv: boolean } | null {
  if (typeof spec === "number") return Number.isInteger(spec) && spec >= 0 && spec <= 65535 ? { lo: spec, hi: spec, inv: false } : null;
  if (typeof spec !== "string") {
    if (spec.lo < 0 || spec.hi > 65535 || spec.hi < spec.lo) return null;
    return { lo: spec.lo, hi: spec.hi, inv: spec.invert === true };
  }
  let text = spec.trim();
  const inv = text.startsWith("!");
  if (inv) text = text.slice(1).trim();
  const m = /^(\d{0,5})(?::(\d{0,5}))?$/.exec(text);
  if (m === null || (m[1] === "" && m[2] === undefined)) return null;
  const lo = m[1] === "" ? 0 : Number(m[1]);
  const hi = m[2] === undefined ? lo : m[2] === "" ? 65535 : Number(m[2]);
  if (lo > 65535 || hi > 65535 || hi < lo) return null;
  return { lo, hi, inv };
}

function parseIface(text: string): { name: string; prefix: boolean; inv: boolean } | null {
  let t = text.trim();
  const inv = t.startsWith("!");
  if (inv) t = t.slice(1).trim();
  if (t === "" || t.length > 15) return null;
  const prefix = t.endsWith("+");
  return { name: prefix ? t.slice(0, -1) : t, prefix, inv };
}

/** Compiles a rule spec for table/chain (names only used in errors). */
export function compileRule(spec: NfRuleSpec, table: string, chain: string): Result<NfRule, NfError> {
  const r = new NfRule(spec);
  if (spec.src !== undefined) {
    const c = parseCidr(spec.src);
    if (c === null) return fail(table, chain, "src", `bad address "${String(spec.src)}"`);
    r.has |= M.SRC;
    r.srcNet = c.net;
    r.srcMask = c.mask;
    r.srcInv = c.inv;
  }
  if (spec.dst !== undefined) {
    const c = parseCidr(spec.dst);
    if (c === null) return fail(table, chain, "dst", `bad address "${String(spec.dst)}"`);
    r.has |= M.DST;
    r.dstNet = c.net;
    r.dstMask = c.mask;
    r.dstInv = c.inv;
  }
  if (spec.proto !== undefined) {
    let p: number | undefined;
    let inv = false;
    if (typeof spec.proto === "number") p = spec.proto;
    else {
      let t = spec.proto.trim().toLowerCase();
      inv = t.startsWith("!");
      if (inv) t = t.slice(1).trim();
      p = /^\d+$/.test(t) ? Number(t) : PROTO_NAMES[t];
    }
    if (p === undefined || !Number.isInteger(p) || p < 0 || p > 255) return fail(table, chain, "proto", `unknown protocol "${String(spec.proto)}"`);
    if (p !== 0 || inv) {
      r.has |= M.PROTO;
      r.proto = p;
      r.protoInv = inv;
    }
  }
  const portProto = (r.has & M.PROTO) !== 0 && !r.protoInv && PORT_PROTOS.has(r.proto);
  for (const side of ["sport", "dport"] as const) {
    const ps = spec[side];
    if (ps === undefined) continue;
    if (!portProto) return fail(table, chain, side, "port match needs -p tcp, udp, sctp, udplite or dccp");
    const p = parsePortSpec(ps);
    if (p === null) return fail(table, chain, side, `bad port "${String(ps)}"`);
    if (side === "sport") {
      r.has |= M.SPORT;
      r.sportLo = p.lo;
      r.sportHi = p.hi;
      r.sportInv = p.inv;
    } else {
      r.has |= M.DPORT;
      r.dportLo = p.lo;
      r.dportHi = p.hi;
      r.dportInv = p.inv;
    }
  }
  if (spec.multiport !== undefined) {
    if (!portProto) return fail(table, chain, "multiport", "multiport needs -p tcp, udp, sctp, udplite or dccp");
    const list = spec.multiport.ports;
    if (list.length === 0 || list.length > 15) return fail(table, chain, "multiport", "1 to 15 ports or ranges");
    r.multiport = new Uint16Array(list.length * 2);
    for (let k = 0; k < list.length; k++) {
      const p = parsePortSpec(list[k]!);
      if (p === null || p.inv) return fail(table, chain, "multiport", `bad port "${String(list[k])}"`);
      r.multiport[2 * k] = p.lo;
      r.multiport[2 * k + 1] = p.hi;
    }
    r.has |= M.MULTIPORT;
    r.multiportSide = spec.multiport.side === "src" ? 0 : spec.multiport.side === "dst" ? 1 : 2;
    r.multiportInv = spec.multiport.invert === true;
  }
  if (spec.tcpFlags !== undefined) {
    if (!portProto || r.proto !== 6) return fail(table, chain, "tcpFlags", "--tcp-flags needs -p tcp");
    r.has |= M.TCPFLAGS;
    r.tcpMask = spec.tcpFlags.mask & 0xff;
    r.tcpComp = spec.tcpFlags.comp & 0xff;
    r.tcpInv = spec.tcpFlags.invert === true;
  }
  if (spec.icmpType !== undefined) {
    if ((r.has & M.PROTO) === 0 || r.protoInv || r.proto !== 1) return fail(table, chain, "icmpType", "--icmp-type needs -p icmp");
    const { type, code } = spec.icmpType;
    if (type < 0 || type > 255 || (code !== undefined && (code < 0 || code > 255))) return fail(table, chain, "icmpType", "type/code out of range");
    r.has |= M.ICMP;
    r.icmpType = type;
    r.icmpCodeLo = code ?? 0;
    r.icmpCodeHi = code ?? 255;
    r.icmpInv = spec.icmpType.invert === true;
  }
  for (const side of ["inIface", "outIface"] as const) {
    const s = spec[side];
    if (s === undefined) continue;
    const f = parseIface(s);
    if (f === null) return fail(table, chain, side, `bad interface "${s}"`);
    if (side === "inIface") {
      r.has |= M.IN;
      r.inName = f.name;
      r.inPrefix = f.prefix;
      r.inInv = f.inv;
    } else {
      r.has |= M.OUT;
      r.outName = f.name;
      r.outPrefix = f.prefix;
      r.outInv = f.inv;
    }
  }
  if (spec.mark !== undefined) {
    r.has |= M.MARK;
    r.markMask = (spec.mark.mask ?? 0xffffffff) >>> 0;
    r.markValue = spec.mark.value >>> 0;
    r.markInv = spec.mark.invert === true;
  }
  if (spec.ctstate !== undefined) {
    let mask = 0;
    for (const s of spec.ctstate.states) {
      const bit = CtMatchState[s];
      if (bit === undefined) return fail(table, chain, "ctstate", `unknown state "${String(s)}"`);
      mask |= bit;
    }
    if (mask === 0) return fail(table, chain, "ctstate", "no states given");
    r.has |= M.CTSTATE;
    r.ctMask = mask;
    r.ctInv = spec.ctstate.invert === true;
  }
  if (spec.ctdir !== undefined) {
    r.has |= M.CTDIR;
    r.ctDir = spec.ctdir === "REPLY" ? 1 : 0;
  }
  for (const side of ["srcType", "dstType"] as const) {
    const s = spec[side];
    if (s === undefined) continue;
    const code = ADDR_TYPES.indexOf(s.type);
    if (code < 0) return fail(table, chain, side, `unknown address type "${String(s.type)}"`);
    if (side === "srcType") {
      r.has |= M.SRCTYPE;
      r.srcType = code;
      r.srcTypeInv = s.invert === true;
    } else {
      r.has |= M.DSTTYPE;
      r.dstType = code;
      r.dstTypeInv = s.invert === true;
    }
  }
  if (spec.statistic !== undefined) {
    const st = spec.statistic;
    r.has |= M.STATISTIC;
    r.statInv = st.invert === true;
    if (st.mode === "random") {
      const p = st.probability;
      if (p === undefined || !(p >= 0 && p <= 1)) return fail(table, chain, "statistic", "--probability must be in [0, 1]");
      r.statMode = 0;
      // iptables stores lround(0x80000000 * p) and compares with a 31-bit random number.
      r.statProb31 = Math.round(0x80000000 * p);
    } else {
      const every = st.every;
      const packet = st.packet ?? 0;
      if (every === undefined || !Number.isInteger(every) || every < 1 || packet < 0 || packet >= every) {
        return fail(table, chain, "statistic", "--every n (n >= 1) and --packet p (0 <= p < n)");
      }
      r.statMode = 1;
      r.statEvery = every - 1;
      r.statPacket = packet;
    }
  }
  if (spec.recent !== undefined) {
    if (spec.recent.name === "") return fail(table, chain, "recent", "--name must not be empty");
    r.has |= M.RECENT;
  }
  r.matchModules = countMatchModules(r);
  return compileTarget(r, spec, table, chain);
}

/** The `-m` modules iptables would load for the rule (ports and TCP flags share the protocol's own module). */
function countMatchModules(r: NfRule): number {
  const h = r.has;
  let n = 0;
  if (h & (M.SPORT | M.DPORT | M.TCPFLAGS)) n++;
  if (h & M.MULTIPORT) n++;
  if (h & M.ICMP) n++;
  if (h & M.MARK) n++;
  if (h & (M.CTSTATE | M.CTDIR)) n++;
  if (h & M.SRCTYPE) n++;
  if (h & M.DSTTYPE) n++;
  if (h & M.STATISTIC) n++;
  if (h & M.RECENT) n++;
  if (r.spec.comment !== undefined) n++;
  return n;
}

/** Matches reading per-packet or outside state a walk memo does not key on. */
const UNREPLAYABLE_MATCHES = M.TCPFLAGS | M.ICMP | M.SRCTYPE | M.DSTTYPE | M.STATISTIC | M.RECENT;

/** Targets whose effect is fixed by the packet's flow key: verdicts, jumps, MARK, counting, versioned PROGRAMs. */
function replayableTarget(r: NfRule): boolean {
  switch (r.target) {
    case TargetKind.ACCEPT:
    case TargetKind.DROP:
    case TargetKind.RETURN:
    case TargetKind.JUMP:
    case TargetKind.GOTO:
    case TargetKind.MARK:
    case TargetKind.LOG:
    case TargetKind.NONE:
      return true;
    case TargetKind.PROGRAM:
      return r.programVersion !== null;
    default:
      return false;
  }
}

function compileTarget(r: NfRule, spec: NfRuleSpec, table: string, chain: string): Result<NfRule, NfError> {
  const t = spec.target;
  r.target = TargetKind[t.kind];
  switch (t.kind) {
    case "JUMP":
    case "GOTO":
      if (t.chain === "") return fail(table, chain, "target", "jump needs a chain name");
      r.jumpName = t.chain;
      break;
    case "REJECT": {
      const code = REJECT_CODES[t.with ?? "icmp-port-unreachable"];
      if (code === undefined) return fail(table, chain, "target", `unknown --reject-with "${String(t.with)}"`);
      if (code === -1 && (r.proto !== 6 || r.protoInv || (r.has & M.PROTO) === 0)) {
        return fail(table, chain, "target", "--reject-with tcp-reset needs -p tcp");
      }
      r.rejectCode = code;
      break;
    }
    case "DNAT":
    case "SNAT": {
      const range = parseNatTo(t.to, t);
      if (!range.ok) return fail(table, chain, "target", range.error);
      r.natRange = range.value;
      break;
    }
    case "MASQUERADE":
    case "REDIRECT": {
      const range = parseToPorts(t.toPorts, t);
      if (!range.ok) return fail(table, chain, "target", range.error);
      r.natRange = range.value;
      break;
    }
    case "MARK":
      r.xmarkValue = t.value >>> 0;
      r.xmarkMask = t.mask >>> 0;
      break;
    case "PROGRAM":
      r.program = t.run;
      r.programName = t.name;
      r.programVersion = t.version ?? null;
      break;
    default:
      break;
  }
  r.unreplayable = (r.has & UNREPLAYABLE_MATCHES) !== 0 || !replayableTarget(r);
  return ok(r);
}

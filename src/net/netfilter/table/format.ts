// Rules and tables as iptables-save text ("-A CHAIN -s .. -p tcp -m tcp --dport 80 -j ACCEPT"), for
// debugging, listings and comparing with the kernel's `iptables-save`.

import { formatIPv4 } from "../../../util/ip.js";
import { ADDR_TYPES, type NfRuleSpec } from "./spec.js";
import { M, REJECT_CODES, TargetKind, type NfRule } from "./rule.js";
import type { NfTable } from "./table.js";

const PROTO_TEXT: { readonly [p: number]: string } = { 1: "icmp", 6: "tcp", 17: "udp", 132: "sctp", 136: "udplite", 33: "dccp", 47: "gre", 4: "ipip" };
const TCP_FLAG_NAMES: readonly [number, string][] = [
  [0x01, "FIN"],
  [0x02, "SYN"],
  [0x04, "RST"],
  [0x08, "PSH"],
  [0x10, "ACK"],
  [0x20, "URG"],
];

const neg = (inv: boolean): string => (inv ? "! " : "");
const hex = (n: number): string => `0x${(n >>> 0).toString(16)}`;

function cidr(net: number, mask: number): string {
  let len = 0;
  while (len < 32 && ((mask >>> (31 - len)) & 1) === 1) len++;
  return `${formatIPv4(net)}/${len}`;
}

function ports(lo: number, hi: number): string {
  return lo === hi ? String(lo) : `${lo}:${hi}`;
}

function tcpFlags(bits: number): string {
  const names = TCP_FLAG_NAMES.filter(([b]) => bits & b).map(([, n]) => n);
  return names.length === 0 ? "NONE" : names.join(",");
}

/**
 * libxt_statistic's save: the probability the kernel holds (a 31-bit fraction, p31 / 2^31) printed
 * with "%.11f", i.e. the exact value rounded to 11 decimals, ties to even as glibc's printf does.
 */
export function storedProbability(p31: number): string {
  const num = BigInt(p31) * 10n ** 11n;
  const den = 1n << 31n;
  let q = num / den;
  const twice = (num % den) * 2n;
  if (twice > den || (twice === den && (q & 1n) === 1n)) q += 1n;
  const digits = q.toString().padStart(12, "0");
  return `${digits.slice(0, -11)}.${digits.slice(-11)}`;
}

function quote(text: string): string {
  return `"${text.replace(/(["\\])/g, "\\$1")}"`;
}

function targetText(r: NfRule, spec: NfRuleSpec): string {
  const t = spec.target;
  switch (r.target) {
    case TargetKind.JUMP:
      return `-j ${r.jumpName}`;
    case TargetKind.GOTO:
      return `-g ${r.jumpName}`;
    case TargetKind.REJECT: {
      const name = (Object.keys(REJECT_CODES) as (keyof typeof REJECT_CODES)[]).find((k) => REJECT_CODES[k] === r.rejectCode);
      return `-j REJECT --reject-with ${name ?? "icmp-port-unreachable"}`;
    }
    case TargetKind.MARK:
      return `-j MARK --set-xmark ${hex(r.xmarkValue)}/${hex(r.xmarkMask)}`;
    case TargetKind.NOTRACK:
      return "-j CT --notrack";
    case TargetKind.PROGRAM:
      return `-j PROGRAM --name ${r.programName}`;
    case TargetKind.NONE:
      return "";
    default:
      break;
  }
  const parts = [`-j ${t.kind}`];
  if (t.kind === "DNAT") parts.push(`--to-destination ${t.to}`);
  if (t.kind === "SNAT") parts.push(`--to-source ${t.to}`);
  if ((t.kind === "MASQUERADE" || t.kind === "REDIRECT") && t.toPorts !== undefined) parts.push(`--to-ports ${t.toPorts}`);
  if (t.kind === "LOG" && t.prefix !== undefined) parts.push(`--log-prefix ${quote(t.prefix)}`);
  if ("random" in t && t.random === true) parts.push("--random");
  if ("randomFully" in t && t.randomFully === true) parts.push("--random-fully");
  if ("persistent" in t && t.persistent === true) parts.push("--persistent");
  return parts.join(" ");
}

/** The rule's arguments after "-A CHAIN", in iptables-save's order. */
export function formatRuleArgs(r: NfRule): string {
  const spec = r.spec;
  const out: string[] = [];
  const has = r.has;
  if (has & M.SRC) out.push(`${neg(r.srcInv)}-s ${cidr(r.srcNet, r.srcMask)}`);
  if (has & M.DST) out.push(`${neg(r.dstInv)}-d ${cidr(r.dstNet, r.dstMask)}`);
  if (has & M.IN) out.push(`${neg(r.inInv)}-i ${r.inName}${r.inPrefix ? "+" : ""}`);
  if (has & M.OUT) out.push(`${neg(r.outInv)}-o ${r.outName}${r.outPrefix ? "+" : ""}`);
  const protoName = PROTO_TEXT[r.proto] ?? String(r.proto);
  if (has & M.PROTO) out.push(`${neg(r.protoInv)}-p ${protoName}`);
  if (spec.comment !== undefined) out.push(`-m comment --comment ${quote(spec.comment)}`);
  if (has & (M.SPORT | M.DPORT | M.TCPFLAGS)) {
    const m = [`-m ${protoName}`];
    if (has & M.SPORT) m.push(`${neg(r.sportInv)}--sport ${ports(r.sportLo, r.sportHi)}`);
    if (has & M.DPORT) m.push(`${neg(r.dportInv)}--dport ${ports(r.dportLo, r.dportHi)}`);
    if (has & M.TCPFLAGS) m.push(`${neg(r.tcpInv)}--tcp-flags ${tcpFlags(r.tcpMask)} ${tcpFlags(r.tcpComp)}`);
    out.push(m.join(" "));
  }
  if (has & M.MULTIPORT) {
    const list: string[] = [];
    for (let k = 0; k < r.multiport.length; k += 2) list.push(ports(r.multiport[k]!, r.multiport[k + 1]!));
    const opt = r.multiportSide === 0 ? "--sports" : r.multiportSide === 1 ? "--dports" : "--ports";
    out.push(`-m multiport ${neg(r.multiportInv)}${opt} ${list.join(",")}`);
  }
  if (has & M.ICMP) {
    const code = r.icmpCodeLo === r.icmpCodeHi ? `/${r.icmpCodeLo}` : "";
    out.push(`-m icmp ${neg(r.icmpInv)}--icmp-type ${r.icmpType}${code}`);
  }
  if (has & M.MARK) out.push(`-m mark ${neg(r.markInv)}--mark ${hex(r.markValue)}${r.markMask === 0xffffffff ? "" : `/${hex(r.markMask)}`}`);
  if (has & (M.CTSTATE | M.CTDIR)) {
    const m = ["-m conntrack"];
    if (has & M.CTSTATE) m.push(`${neg(r.ctInv)}--ctstate ${(spec.ctstate?.states ?? []).join(",")}`);
    if (has & M.CTDIR) m.push(`--ctdir ${r.ctDir === 1 ? "REPLY" : "ORIGINAL"}`);
    out.push(m.join(" "));
  }
  if (has & (M.SRCTYPE | M.DSTTYPE)) {
    const m = ["-m addrtype"];
    if (has & M.SRCTYPE) m.push(`${neg(r.srcTypeInv)}--src-type ${ADDR_TYPES[r.srcType]}`);
    if (has & M.DSTTYPE) m.push(`${neg(r.dstTypeInv)}--dst-type ${ADDR_TYPES[r.dstType]}`);
    out.push(m.join(" "));
  }
  if (has & M.STATISTIC) {
    out.push(
      r.statMode === 0
        ? `-m statistic --mode random ${neg(r.statInv)}--probability ${storedProbability(r.statProb31)}`
        : `-m statistic --mode nth ${neg(r.statInv)}--every ${r.statEvery + 1} --packet ${r.statPacket}`,
    );
  }
  if (has & M.RECENT) {
    const rc = spec.recent!;
    const m = [`-m recent ${neg(rc.invert === true)}--${rc.op}`];
    if (rc.seconds !== undefined) m.push(`--seconds ${rc.seconds}`);
    if (rc.hitcount !== undefined) m.push(`--hitcount ${rc.hitcount}`);
    if (rc.reap === true) m.push("--reap");
    m.push(`--name ${rc.name}`, `--mask ${formatIPv4((rc.mask ?? 0xffffffff) >>> 0)}`, rc.side === "dest" ? "--rdest" : "--rsource");
    out.push(m.join(" "));
  }
  const target = targetText(r, spec);
  if (target !== "") out.push(target);
  return out.join(" ");
}

/** One table in iptables-save format; with counters each rule is prefixed by [packets:bytes]. */
export function formatTableSave(table: NfTable, counters: boolean): string {
  const lines = [`*${table.name}`];
  for (const c of table.chains()) {
    const policy = c.builtin ? c.policy : "-";
    lines.push(`:${c.name} ${policy} [${c.builtin ? c.policyCounter.packets : 0}:${c.builtin ? c.policyCounter.bytes : 0}]`);
  }
  for (const c of table.chains()) {
    for (const r of c.rules) lines.push(`${counters ? `[${r.packets}:${r.bytes}] ` : ""}-A ${c.name} ${formatRuleArgs(r)}`);
  }
  lines.push("COMMIT", "");
  return lines.join("\n");
}

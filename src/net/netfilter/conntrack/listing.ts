// Conntrack entries as records and as `conntrack -L` text (conntrack-tools 1.4 default output:
// "tcp      6 431999 ESTABLISHED src=.. dst=.. sport=.. dport=.. src=.. .. [ASSURED] mark=0 use=1").

import { formatIPv4 } from "../../../util/ip.js";
import type { Conntrack } from "./conntrack.js";
import { F, G, Ips } from "./table.js";
import { TCP_STATE_NAMES } from "./tcp-states.js";
import { NS_PER_SECOND } from "./timeouts.js";

export interface CtTupleInfo {
  readonly src: string;
  readonly dst: string;
  /** TCP/UDP/SCTP ports (0 for others). */
  readonly sport: number;
  readonly dport: number;
  /** ICMP type/code/id (0 for others). */
  readonly type: number;
  readonly code: number;
  readonly id: number;
}

export interface CtEntryInfo {
  /** Row index (stable while the entry lives). */
  readonly index: number;
  readonly proto: number;
  readonly protoName: string;
  /** Seconds left, rounded down as the kernel prints it. */
  readonly timeout: number;
  /** TCP state name, "" for other protocols. */
  readonly state: string;
  readonly original: CtTupleInfo;
  readonly reply: CtTupleInfo;
  readonly unreplied: boolean;
  readonly assured: boolean;
  readonly srcNat: boolean;
  readonly dstNat: boolean;
  readonly mark: number;
}

/** conntrack-tools' names; protocols without their own tracker print as "unknown". */
const PROTO_NAMES: { readonly [proto: number]: string } = { 1: "icmp", 6: "tcp", 17: "udp", 132: "sctp", 136: "udplite", 47: "gre", 33: "dccp" };

export function protoName(proto: number): string {
  return PROTO_NAMES[proto] ?? "unknown";
}

function tupleInfo(ct: Conntrack, i: number, dir: number): CtTupleInfo {
  const t = ct.table;
  const proto = t.proto(i);
  const ports = t.ports(i, dir);
  const icmp = proto === 1;
  const hasPorts = proto === 6 || proto === 17 || proto === 132 || proto === 136 || proto === 33;
  return {
    src: formatIPv4(t.src(i, dir)),
    dst: formatIPv4(t.dst(i, dir)),
    sport: hasPorts ? ports >>> 16 : 0,
    dport: hasPorts ? ports & 0xffff : 0,
    type: icmp ? (ports >>> 8) & 0xff : 0,
    code: icmp ? ports & 0xff : 0,
    id: icmp ? ports >>> 16 : 0,
  };
}

export function describeEntry(ct: Conntrack, i: number): CtEntryInfo {
  const t = ct.table;
  const proto = t.proto(i);
  const status = t.status(i);
  const left = Math.max(0, t.getF(i, G.EXPIRES) - ct.clock.now);
  return {
    index: i,
    proto,
    protoName: protoName(proto),
    timeout: Math.floor(left / NS_PER_SECOND),
    state: proto === 6 ? (TCP_STATE_NAMES[t.get(i, F.TCP_STATE)] ?? "") : "",
    original: tupleInfo(ct, i, 0),
    reply: tupleInfo(ct, i, 1),
    unreplied: (status & Ips.SEEN_REPLY) === 0,
    assured: (status & Ips.ASSURED) !== 0,
    srcNat: (status & Ips.SRC_NAT) !== 0,
    dstNat: (status & Ips.DST_NAT) !== 0,
    mark: t.get(i, F.MARK),
  };
}

function formatTuple(proto: number, t: CtTupleInfo): string {
  const base = `src=${t.src} dst=${t.dst}`;
  if (proto === 1) return `${base} type=${t.type} code=${t.code} id=${t.id}`;
  if (proto === 6 || proto === 17 || proto === 132 || proto === 136 || proto === 33) {
    return `${base} sport=${t.sport} dport=${t.dport}`;
  }
  if (proto === 47) return `${base} srckey=0x0 dstkey=0x0`;
  return base;
}

/** One line as `conntrack -L` prints it. */
export function formatConntrackEntry(e: CtEntryInfo): string {
  const parts = [`${e.protoName.padEnd(8)} ${e.proto} ${e.timeout}`];
  if (e.state !== "") parts.push(e.state);
  parts.push(formatTuple(e.proto, e.original));
  if (e.unreplied) parts.push("[UNREPLIED]");
  parts.push(formatTuple(e.proto, e.reply));
  if (e.assured) parts.push("[ASSURED]");
  parts.push(`mark=${e.mark} use=1`);
  return parts.join(" ");
}

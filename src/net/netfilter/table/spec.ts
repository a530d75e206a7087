// Rules as data: the matches and target of one iptables rule (what `iptables -A` takes), written as
// plain objects. Text fields accept iptables' own spelling ("!10.0.0.0/8", "1000:2000", "cali+").

import type { SkBuff } from "../../../skb/skbuff.js";
import type { NetDevice } from "../../device.js";
import type { CtMatchStateName } from "../ct-state.js";

/** An address or CIDR, "!" inverts: "10.0.0.0/8", "!192.168.1.1". */
export type CidrSpec = string | { readonly addr: number; readonly prefixLen: number; readonly invert?: boolean };
/** A port or range: 80, "80", "1000:2000", "!53", or { lo, hi, invert }. */
export type PortSpec = number | string | { readonly lo: number; readonly hi: number; readonly invert?: boolean };
/** "tcp" | "udp" | "icmp" | "sctp" | "all" or a number; "!" inverts. */
export type ProtoSpec = number | string;
/** Interface name; a trailing "+" matches any name with that prefix; "!" inverts. */
export type IfaceSpec = string;

export const ADDR_TYPES = ["LOCAL", "UNICAST", "BROADCAST", "MULTICAST"] as const;
export type AddrType = (typeof ADDR_TYPES)[number];

export const REJECT_WITH = [
  "icmp-net-unreachable",
  "icmp-host-unreachable",
  "icmp-port-unreachable",
  "icmp-proto-unreachable",
  "icmp-net-prohibited",
  "icmp-host-prohibited",
  "icmp-admin-prohibited",
  "tcp-reset",
] as const;
export type RejectWith = (typeof REJECT_WITH)[number];

/** What a PROGRAM target returns. */
export const ProgramVerdict = { DROP: 0, ACCEPT: 1, STOLEN: 2, CONTINUE: 3, RETURN: 4 } as const;

/** Filled by a PROGRAM that returns DROP: the drop record's reason (default POLICY_DENIED) and explanation. */
export interface ProgramDrop {
  reason: number;
  explanation: string | undefined;
  dstIdentity: number;
}

/** A CNI's compiled check run as an iptables target (e.g. policy in FORWARD). Returns a ProgramVerdict. */
export type NfProgramFn = (skb: SkBuff, inDev: NetDevice | null, outDev: NetDevice | null, drop: ProgramDrop) => number;

export type NfTargetSpec =
  | { readonly kind: "ACCEPT" }
  | { readonly kind: "DROP" }
  | { readonly kind: "RETURN" }
  | { readonly kind: "JUMP"; readonly chain: string }
  | { readonly kind: "GOTO"; readonly chain: string }
  | { readonly kind: "REJECT"; readonly with?: RejectWith }
  /** to: "a.b.c.d[-e.f.g.h][:port[-port]]" */
  | { readonly kind: "DNAT"; readonly to: string; readonly random?: boolean; readonly persistent?: boolean }
  | { readonly kind: "SNAT"; readonly to: string; readonly random?: boolean; readonly randomFully?: boolean; readonly persistent?: boolean }
  | { readonly kind: "MASQUERADE"; readonly toPorts?: string; readonly random?: boolean; readonly randomFully?: boolean }
  | { readonly kind: "REDIRECT"; readonly toPorts?: string; readonly random?: boolean }
  /** mark = (mark & ~mask) ^ value, i.e. --set-xmark value/mask (see markTarget for set/or/and/xor). */
  | { readonly kind: "MARK"; readonly value: number; readonly mask: number }
  /** LOG-like: counts (rule counters) and continues. */
  | { readonly kind: "LOG"; readonly prefix?: string }
  /** raw table: the packet is not tracked (NOTRACK / CT --notrack). */
  | { readonly kind: "NOTRACK" }
  /**
   * version, when given, stamps everything the program reads besides the packet's addresses, ports,
   * protocol, devices and mark (e.g. a route table's version): walks that ran it may then be replayed
   * per flow while the stamp holds. A versioned program must not send packets.
   */
  | { readonly kind: "PROGRAM"; readonly name: string; readonly run: NfProgramFn; readonly version?: () => number }
  /** No target (a rule written without -j): it only counts the packets it matches, then the next rule runs. */
  | { readonly kind: "NONE" };

/** MARK target from iptables' spellings: --set-mark v[/m], --or-mark, --and-mark, --xor-mark, --set-xmark v[/m]. */
export function markTarget(op: "set" | "xset" | "or" | "and" | "xor", value: number, mask = 0xffffffff): NfTargetSpec {
  switch (op) {
    case "set":
      return { kind: "MARK", value: value >>> 0, mask: (value | mask) >>> 0 };
    case "xset":
      return { kind: "MARK", value: value >>> 0, mask: mask >>> 0 };
    case "or":
      return { kind: "MARK", value: value >>> 0, mask: value >>> 0 };
    case "and":
      return { kind: "MARK", value: 0, mask: ~value >>> 0 };
    case "xor":
      return { kind: "MARK", value: value >>> 0, mask: 0 };
  }
}

export interface StatisticSpec {
  readonly mode: "random" | "nth";
  /** random mode: probability in [0, 1]. */
  readonly probability?: number;
  /** nth mode: match every n-th packet, starting at packet (0-based). */
  readonly every?: number;
  readonly packet?: number;
  readonly invert?: boolean;
}

/** xt_recent (kube-proxy's sessionAffinity: ClientIP). */
export interface RecentSpec {
  readonly name: string;
  readonly op: "set" | "rcheck" | "update" | "remove";
  /** Which address is remembered/checked: the source (--rsource, default) or destination (--rdest). */
  readonly side?: "source" | "dest";
  readonly mask?: number;
  readonly seconds?: number;
  readonly hitcount?: number;
  readonly reap?: boolean;
  readonly invert?: boolean;
}

export interface NfRuleSpec {
  readonly src?: CidrSpec;
  readonly dst?: CidrSpec;
  readonly proto?: ProtoSpec;
  readonly inIface?: IfaceSpec;
  readonly outIface?: IfaceSpec;
  readonly sport?: PortSpec;
  readonly dport?: PortSpec;
  /** -m multiport --sports / --dports / --ports (any listed port or range). */
  readonly multiport?: { readonly side: "src" | "dst" | "any"; readonly ports: readonly PortSpec[]; readonly invert?: boolean };
  /** --tcp-flags mask comp (bit values as TcpFlagBit), --syn = { mask: SYN|RST|ACK|FIN, comp: SYN }. */
  readonly tcpFlags?: { readonly mask: number; readonly comp: number; readonly invert?: boolean };
  readonly icmpType?: { readonly type: number; readonly code?: number; readonly invert?: boolean };
  /** -m mark --mark value[/mask] */
  readonly mark?: { readonly value: number; readonly mask?: number; readonly invert?: boolean };
  /** -m conntrack --ctstate / -m state --state */
  readonly ctstate?: { readonly states: readonly CtMatchStateName[]; readonly invert?: boolean };
  /** -m conntrack --ctdir */
  readonly ctdir?: "ORIGINAL" | "REPLY";
  /** -m addrtype --src-type / --dst-type */
  readonly srcType?: { readonly type: AddrType; readonly invert?: boolean };
  readonly dstType?: { readonly type: AddrType; readonly invert?: boolean };
  readonly statistic?: StatisticSpec;
  readonly recent?: RecentSpec;
  /** -m comment --comment */
  readonly comment?: string;
  readonly target: NfTargetSpec;
}

/** A rule that could not be accepted: names the table, chain and the offending field. */
export interface NfError {
  readonly table: string;
  readonly chain: string;
  readonly field: string;
  readonly reason: string;
}

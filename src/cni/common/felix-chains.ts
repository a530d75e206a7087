// The static chains Calico's felix (3.2x, iptables dataplane) keeps in the raw, mangle and filter tables,
// in its own rule order, so that a packet walks what it walks on a Calico node: raw cali-PREROUTING
// (mark bits cleared, workload packets marked and checked by a strict rpfilter), mangle cali-PREROUTING
// (established traffic accepted), filter cali-FORWARD (mark cleared, host-endpoint chains, then the
// workload dispatch chains where the per-interface chains accept established traffic first) and
// cali-INPUT. Per-endpoint chains live in iptables-policy.ts. Marks are felix's defaults under
// IptablesMarkMask 0xffff0000: accept 0x10000, pass 0x20000, scratch0 0x40000 ("from a workload").
import { createHash } from "node:crypto";
import { DropReason } from "../../../datapath/reasons.js";
import { ProgramVerdict, type NfProgramFn, type NfRuleSpec, type NfTableName } from "../../net/netfilter/index.js";
import type { NetNamespace } from "../../net/stack/namespace.js";
import { read32 } from "../../wire/bytes.js";
import { formatIPv4 } from "../../util/ip.js";

export const MARK_ACCEPT = 0x10000;
export const MARK_SCRATCH0 = 0x40000;
/** Every mark bit felix owns (with the default 4 policy bits). */
export const MARK_ALL = 0xf0000;

export const CALI_CHAINS = {
  PREROUTING: "cali-PREROUTING",
  OUTPUT: "cali-OUTPUT",
  FORWARD: "cali-FORWARD",
  INPUT: "cali-INPUT",
  RPF_SKIP: "cali-rpf-skip",
  FROM_HOST_ENDPOINT: "cali-from-host-endpoint",
  TO_HOST_ENDPOINT: "cali-to-host-endpoint",
  FROM_HEP_FORWARD: "cali-from-hep-forward",
  TO_HEP_FORWARD: "cali-to-hep-forward",
  CIDR_BLOCK: "cali-cidr-block",
  WL_TO_HOST: "cali-wl-to-host",
  FROM_WL: "cali-from-wl-dispatch",
  TO_WL: "cali-to-wl-dispatch",
} as const;

/** The built-in chains felix jumps from, in each table: felix inserts these jumps at the top. */
export const FELIX_JUMPS: readonly [NfTableName, string, string][] = [
  ["raw", "PREROUTING", CALI_CHAINS.PREROUTING],
  ["raw", "OUTPUT", CALI_CHAINS.OUTPUT],
  ["mangle", "PREROUTING", CALI_CHAINS.PREROUTING],
  ["filter", "FORWARD", CALI_CHAINS.FORWARD],
  ["filter", "INPUT", CALI_CHAINS.INPUT],
];

/**
 * Every felix rule carries `-m comment --comment "cali:<id>"`, a hash of its chain and position (felix's
 * ids are 16 characters of a SHA-224 over the chain's rules); a rule with a comment of its own keeps it.
 */
export function felixRules(chain: string, rules: readonly NfRuleSpec[]): NfRuleSpec[] {
  return rules.map((r, i) => {
    if (r.comment !== undefined) return r;
    const id = createHash("sha224").update(`${chain}/${i}/${JSON.stringify(r.target.kind)}`).digest("base64url").slice(0, 16);
    return { ...r, comment: `cali:${id}` };
  });
}

const markClear = (mask: number): NfRuleSpec["target"] => ({ kind: "MARK", value: 0, mask });
const markSet = (bits: number): NfRuleSpec["target"] => ({ kind: "MARK", value: bits, mask: bits });

/**
 * `-m rpfilter --validmark --invert -j DROP` in strict mode: a packet is valid when the route back to its
 * source leaves by the interface it came in on (xt_rpfilter's rpfilter_lookup_reverse; 0.0.0.0 sources
 * to broadcast or local multicast, as DHCP sends them, pass).
 */
function rpfilterDrop(ns: NetNamespace): NfProgramFn {
  return (skb, inDev, _out, drop) => {
    const b = skb.data;
    const src = read32(b, skb.head + 12);
    const dst = read32(b, skb.head + 16);
    if (src === 0 && (dst === 0xffffffff || (dst & 0xffffff00) >>> 0 === 0xe0000000)) return ProgramVerdict.CONTINUE;
    const back = ns.routes.lookup(src);
    if (back !== null && back.dev === inDev) return ProgramVerdict.CONTINUE;
    drop.reason = DropReason.NETFILTER_DROP;
    drop.explanation = `rpfilter: the route back to ${formatIPv4(src)} does not leave by ${inDev?.name ?? "?"} (a workload sending from an address that is not its own)`;
    return ProgramVerdict.DROP;
  };
}

/** Options that change felix's rules. */
export interface FelixOptions {
  /** Workload interface prefix ("cali"). */
  readonly prefix: string;
  /** The IP pools use VXLAN (felix drops VXLAN that workloads send), IPIP (likewise for IPIP). */
  readonly vxlan: boolean;
  readonly ipip: boolean;
}

/** Creates felix's static chains in the three tables and the jumps to them. */
export function installFelixChains(ns: NetNamespace, options: FelixOptions): void {
  const wl = `${options.prefix}+`;
  const raw = ns.netfilter.table("raw");
  for (const c of [CALI_CHAINS.PREROUTING, CALI_CHAINS.OUTPUT, CALI_CHAINS.RPF_SKIP, CALI_CHAINS.FROM_HOST_ENDPOINT, CALI_CHAINS.TO_HOST_ENDPOINT]) raw.newChain(c);
  const rawPre: NfRuleSpec[] = [
    { target: markClear(MARK_ALL) },
    { inIface: wl, target: markSet(MARK_SCRATCH0) },
    { mark: { value: MARK_SCRATCH0, mask: MARK_SCRATCH0 }, target: { kind: "JUMP", chain: CALI_CHAINS.RPF_SKIP } },
    { mark: { value: MARK_SCRATCH0, mask: MARK_SCRATCH0 }, target: { kind: "PROGRAM", name: "rpfilter --validmark --invert", run: rpfilterDrop(ns), version: () => ns.routes.version() } },
    { mark: { value: 0, mask: MARK_SCRATCH0 }, target: { kind: "JUMP", chain: CALI_CHAINS.FROM_HOST_ENDPOINT } },
    { mark: { value: MARK_ACCEPT, mask: MARK_ACCEPT }, target: { kind: "ACCEPT" } },
  ];
  for (const r of felixRules(`raw/${CALI_CHAINS.PREROUTING}`, rawPre)) raw.append(CALI_CHAINS.PREROUTING, r);
  const rawOut: NfRuleSpec[] = [
    { target: markClear(MARK_ALL) },
    { target: { kind: "JUMP", chain: CALI_CHAINS.TO_HOST_ENDPOINT } },
    { mark: { value: MARK_ACCEPT, mask: MARK_ACCEPT }, target: { kind: "ACCEPT" } },
  ];
  for (const r of felixRules(`raw/${CALI_CHAINS.OUTPUT}`, rawOut)) raw.append(CALI_CHAINS.OUTPUT, r);

  const mangle = ns.netfilter.table("mangle");
  for (const c of [CALI_CHAINS.PREROUTING, CALI_CHAINS.FROM_HOST_ENDPOINT]) mangle.newChain(c);
  const manglePre: NfRuleSpec[] = [
    { ctstate: { states: ["RELATED", "ESTABLISHED"] }, target: { kind: "ACCEPT" } },
    { mark: { value: MARK_ACCEPT, mask: MARK_ACCEPT }, target: { kind: "ACCEPT" } },
    { target: { kind: "JUMP", chain: CALI_CHAINS.FROM_HOST_ENDPOINT } },
    { mark: { value: MARK_ACCEPT, mask: MARK_ACCEPT }, comment: "Host endpoint policy accepted packet.", target: { kind: "ACCEPT" } },
  ];
  for (const r of felixRules(`mangle/${CALI_CHAINS.PREROUTING}`, manglePre)) mangle.append(CALI_CHAINS.PREROUTING, r);

  const f = ns.netfilter.table("filter");
  for (const c of [CALI_CHAINS.FORWARD, CALI_CHAINS.INPUT, CALI_CHAINS.FROM_HOST_ENDPOINT, CALI_CHAINS.FROM_HEP_FORWARD, CALI_CHAINS.TO_HEP_FORWARD, CALI_CHAINS.CIDR_BLOCK, CALI_CHAINS.WL_TO_HOST, CALI_CHAINS.FROM_WL, CALI_CHAINS.TO_WL]) f.newChain(c);
  const fwd: NfRuleSpec[] = [
    { target: markClear(MARK_ALL & ~MARK_ACCEPT) },
    { mark: { value: 0, mask: MARK_ACCEPT }, target: { kind: "JUMP", chain: CALI_CHAINS.FROM_HEP_FORWARD } },
    { inIface: wl, target: { kind: "JUMP", chain: CALI_CHAINS.FROM_WL } },
    { outIface: wl, target: { kind: "JUMP", chain: CALI_CHAINS.TO_WL } },
    { target: { kind: "JUMP", chain: CALI_CHAINS.TO_HEP_FORWARD } },
    { target: { kind: "JUMP", chain: CALI_CHAINS.CIDR_BLOCK } },
  ];
  for (const r of felixRules(CALI_CHAINS.FORWARD, fwd)) f.append(CALI_CHAINS.FORWARD, r);
  const input: NfRuleSpec[] = [
    { inIface: wl, target: { kind: "GOTO", chain: CALI_CHAINS.WL_TO_HOST } },
    { mark: { value: MARK_ACCEPT, mask: MARK_ACCEPT }, target: { kind: "ACCEPT" } },
    { target: markClear(MARK_ALL) },
    { target: { kind: "JUMP", chain: CALI_CHAINS.FROM_HOST_ENDPOINT } },
    { mark: { value: MARK_ACCEPT, mask: MARK_ACCEPT }, comment: "Host endpoint policy accepted packet.", target: { kind: "ACCEPT" } },
  ];
  for (const r of felixRules(CALI_CHAINS.INPUT, input)) f.append(CALI_CHAINS.INPUT, r);
  f.append(CALI_CHAINS.WL_TO_HOST, felixRules(CALI_CHAINS.WL_TO_HOST, [{ target: { kind: "JUMP", chain: CALI_CHAINS.FROM_WL } }])[0]!);
  f.append(CALI_CHAINS.WL_TO_HOST, { comment: "Configured DefaultEndpointToHostAction", target: { kind: "ACCEPT" } });
  f.append(CALI_CHAINS.FROM_WL, { comment: "Unknown interface", target: { kind: "DROP" } });
  f.append(CALI_CHAINS.TO_WL, { comment: "Unknown interface", target: { kind: "DROP" } });
  assertFelixJumps(ns);
  // Appended at the end of FORWARD: what the workload chains accepted (mark set, returned) is accepted
  // after the other forwarding rules (kube-proxy's, flannel's) had their say.
  f.append("FORWARD", { mark: { value: MARK_ACCEPT, mask: MARK_ACCEPT }, comment: "Policy explicitly accepted packet.", target: { kind: "ACCEPT" } });
}

/** Puts felix's jumps back at the top of their built-in chains (insert mode), e.g. after kube-proxy prepended its own. */
export function assertFelixJumps(ns: NetNamespace): void {
  for (const [tableName, hook, chain] of FELIX_JUMPS) {
    const table = ns.netfilter.table(tableName);
    const rules = table.chain(hook)?.rules ?? [];
    const at = rules.findIndex((r) => r.jumpChain?.name === chain);
    if (at === 0) continue;
    if (at > 0) table.delete(hook, at + 1);
    table.insert(hook, felixRules(`${tableName}/${hook}`, [{ target: { kind: "JUMP", chain } }])[0]!, 1);
  }
}

/** The workload-originated encapsulated traffic felix drops in every cali-fw-* chain. */
export function encapDropRules(options: FelixOptions): NfRuleSpec[] {
  const rules: NfRuleSpec[] = [];
  if (options.vxlan) rules.push({ proto: "udp", dport: 4789, comment: "Drop VXLAN encapped packets originating in workloads", target: { kind: "DROP" } });
  if (options.ipip) rules.push({ proto: 4, comment: "Drop IPinIP encapped packets originating in workloads", target: { kind: "DROP" } });
  return rules;
}

// Netfilter hook numbers, verdicts and the kernel's per-hook order of work (IPv4 priorities:
// raw -300, conntrack -200, mangle -150, DNAT -100, filter 0, SNAT 100, confirm last).

export const NfHook = { PREROUTING: 0, INPUT: 1, FORWARD: 2, OUTPUT: 3, POSTROUTING: 4 } as const;
export type NfHook = (typeof NfHook)[keyof typeof NfHook];
export const NF_HOOK_NAMES = ["PREROUTING", "INPUT", "FORWARD", "OUTPUT", "POSTROUTING"] as const;
export type NfHookName = (typeof NF_HOOK_NAMES)[number];

export const NfVerdict = { DROP: 0, ACCEPT: 1, STOLEN: 2 } as const;
export type NfVerdict = (typeof NfVerdict)[keyof typeof NfVerdict];

/** Which address a NAT hook rewrites: SRC at POSTROUTING/INPUT, DST at PREROUTING/OUTPUT (HOOK2MANIP). */
export const NatManip = { SRC: 0, DST: 1 } as const;
export type NatManip = (typeof NatManip)[keyof typeof NatManip];

export function hookManip(hook: number): NatManip {
  return hook === NfHook.POSTROUTING || hook === NfHook.INPUT ? NatManip.SRC : NatManip.DST;
}

/** Kernel hook priorities (include/uapi/linux/netfilter_ipv4.h), for documentation and listings. */
export const NfPriority = {
  RAW: -300,
  CONNTRACK: -200,
  MANGLE: -150,
  NAT_DST: -100,
  FILTER: 0,
  SECURITY: 50,
  NAT_SRC: 100,
  CONNTRACK_CONFIRM: 2147483647,
} as const;

export const NF_TABLE_NAMES = ["raw", "mangle", "nat", "filter"] as const;
export type NfTableName = (typeof NF_TABLE_NAMES)[number];

/** Built-in chains of each table, as iptables creates them. */
export const BUILTIN_CHAINS: { readonly [T in NfTableName]: readonly NfHookName[] } = {
  raw: ["PREROUTING", "OUTPUT"],
  mangle: ["PREROUTING", "INPUT", "FORWARD", "OUTPUT", "POSTROUTING"],
  nat: ["PREROUTING", "INPUT", "OUTPUT", "POSTROUTING"],
  filter: ["INPUT", "FORWARD", "OUTPUT"],
};

export function hookByName(name: string): number {
  return (NF_HOOK_NAMES as readonly string[]).indexOf(name);
}

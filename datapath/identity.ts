// Security identity numbers shared by the datapath and the policy compiler, with Cilium's values
// (pkg/identity/numericidentity.go, bpf/lib/identity.h): reserved entities, user range, CIDR (local) scope.

/** Reserved identities; 0 is "unknown / any" (a wildcard in policy map keys). */
export const ReservedIdentity = {
  UNKNOWN: 0,
  HOST: 1,
  WORLD: 2,
  UNMANAGED: 3,
  HEALTH: 4,
  INIT: 5,
  REMOTE_NODE: 6,
  KUBE_APISERVER: 7,
  INGRESS: 8,
  WORLD_IPV4: 9,
  WORLD_IPV6: 10,
} as const;
export type ReservedIdentityName = keyof typeof ReservedIdentity;

/** Labels Cilium gives reserved identities (`reserved:<name>`), for output. */
export const RESERVED_IDENTITY_NAMES: Readonly<Record<number, string>> = {
  0: "unknown",
  1: "host",
  2: "world",
  3: "unmanaged",
  4: "health",
  5: "init",
  6: "remote-node",
  7: "kube-apiserver",
  8: "ingress",
  9: "world-ipv4",
  10: "world-ipv6",
};

/** First identity handed out for a label set (Cilium's MinimalNumericIdentity). */
export const FIRST_USER_IDENTITY = 256;
/** Largest cluster-scoped identity with cluster id 0 (Cilium: (1 << 16) - 1). */
export const MAX_USER_IDENTITY = 0xffff;
/** Bit marking locally scoped identities, used for CIDR identities (Cilium's LocalIdentityFlag). */
export const LOCAL_IDENTITY_FLAG = 1 << 24;
/** Range of CIDR identities: LOCAL_IDENTITY_FLAG | n for n in 1..0xFFFFFF. */
export const MIN_CIDR_IDENTITY = LOCAL_IDENTITY_FLAG | 1;
export const MAX_CIDR_IDENTITY = (LOCAL_IDENTITY_FLAG | 0xffffff) >>> 0;

/** CIDR identity number n (1..0xFFFFFF); null when n is out of range. */
export function cidrIdentity(n: number): number | null {
  if (!Number.isInteger(n) || n < 1 || n > 0xffffff) return null;
  return (LOCAL_IDENTITY_FLAG | n) >>> 0;
}

export function isCidrIdentity(id: number): boolean {
  return id >= MIN_CIDR_IDENTITY && id <= MAX_CIDR_IDENTITY;
}

export function isReservedIdentity(id: number): boolean {
  return Number.isInteger(id) && id >= 0 && id < FIRST_USER_IDENTITY && id in RESERVED_IDENTITY_NAMES;
}

/** The three identities a "world" peer can have (WORLD, and WORLD_IPV4/IPV6 in dual-stack clusters). */
export function isWorldIdentity(id: number): boolean {
  return id === ReservedIdentity.WORLD || id === ReservedIdentity.WORLD_IPV4 || id === ReservedIdentity.WORLD_IPV6;
}

/** Text for output: reserved names, `cidr:<n>` for CIDR identities, the number otherwise. */
export function describeIdentity(id: number): string {
  if (id === ReservedIdentity.UNKNOWN) return "unknown";
  const reserved = RESERVED_IDENTITY_NAMES[id];
  if (reserved !== undefined) return `reserved:${reserved}`;
  if (isCidrIdentity(id)) return `cidr:${id - LOCAL_IDENTITY_FLAG}`;
  return String(id);
}

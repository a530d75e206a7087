// Security identities of the policy control plane: a number per distinct equivalence class of
// addresses that no NetworkPolicy can tell apart. Pods: (namespace, pod labels, namespace labels,
// named container ports[, ipBlock atom]); nodes: host / remote-node; external addresses: one CIDR
// identity per ipBlock prefix. Numbers follow Cilium (datapath/identity.ts): reserved < 256, pods
// from 256, CIDR and other node-local identities with bit 24 set. Reference-counted.
import {
  FIRST_USER_IDENTITY,
  LOCAL_IDENTITY_FLAG,
  MAX_USER_IDENTITY,
  ReservedIdentity,
  RESERVED_IDENTITY_NAMES,
} from "../../datapath/identity.js";
import { formatLabels, type Labels } from "../k8s/selector.js";
import { formatPrefix, prefixKey, type Prefix } from "./prefix.js";
import type { ContainerPortInfo } from "./types.js";

/**
 * `atom` is the longest ipBlock prefix (of all policies) that contains the addresses of the class,
 * /0 when none does; ipBlock rules match an identity through its atom. It is null for cluster
 * addresses when ipBlocks do not select them (Cilium), so no ipBlock can ever match those.
 * Named ports are part of a pod identity so that egress rules with named ports resolve exactly
 * against each destination pod, as the spec says (replicas share ports, so this rarely splits).
 */
export type IdentityInfo =
  | {
      readonly kind: "pod";
      readonly namespace: string;
      readonly labels: Labels;
      readonly namespaceLabels: Labels;
      readonly ports: readonly ContainerPortInfo[];
      readonly atom: Prefix | null;
    }
  | { readonly kind: "host" | "remote-node"; readonly atom: Prefix | null }
  | { readonly kind: "cidr"; readonly atom: Prefix };

export const WORLD_ATOM: Prefix = { addr: 0, len: 0 };

function atomText(atom: Prefix | null): string {
  return atom === null ? "-" : String(prefixKey(atom));
}

function portsText(ports: readonly ContainerPortInfo[]): string {
  return ports
    .filter((p) => p.name !== null)
    .map((p) => `${p.name}=${p.port}/${p.protocol}`)
    .sort()
    .join(",");
}

/** Canonical key of an identity class: equal keys, equal identity. */
export function identityKey(info: IdentityInfo): string {
  switch (info.kind) {
    case "pod":
      return `pod|${info.namespace}|${formatLabels(info.labels)}|${formatLabels(info.namespaceLabels)}|${portsText(info.ports)}|${atomText(info.atom)}`;
    case "host":
    case "remote-node":
      return `${info.kind}|${atomText(info.atom)}`;
    case "cidr":
      return `cidr|${atomText(info.atom)}`;
  }
}

/** Reserved numbers for the classes Cilium gives reserved identities. */
function reservedNumber(info: IdentityInfo): number | null {
  // Node addresses in no ipBlock prefix longer than /0 keep Cilium's reserved numbers (atom null:
  // never selectable by ipBlock; atom /0: selectable only by an ipBlock 0.0.0.0/0).
  const plainNode = info.kind !== "cidr" && (info.atom === null || info.atom.len === 0);
  if (info.kind === "host" && plainNode) return ReservedIdentity.HOST;
  if (info.kind === "remote-node" && plainNode) return ReservedIdentity.REMOTE_NODE;
  if (info.kind === "cidr" && info.atom.len === 0) return ReservedIdentity.WORLD;
  return null;
}

type Slot = { readonly id: number; readonly key: string; readonly info: IdentityInfo; refs: number };

export class IdentityAllocator {
  private readonly byKey = new Map<string, Slot>();
  private readonly byId = new Map<number, Slot>();
  private readonly byNamespace = new Map<string, Set<number>>();
  private nextUser = FIRST_USER_IDENTITY;
  private nextLocal = 1;

  /** Takes a reference on the identity of `info`, creating it when new. */
  acquire(info: IdentityInfo): { id: number; created: boolean } {
    const key = identityKey(info);
    const slot = this.byKey.get(key);
    if (slot) {
      slot.refs++;
      return { id: slot.id, created: false };
    }
    const id = reservedNumber(info) ?? (info.kind === "pod" ? this.newUserId() : this.newLocalId());
    const fresh: Slot = { id, key, info, refs: 1 };
    this.byKey.set(key, fresh);
    this.byId.set(id, fresh);
    if (info.kind === "pod") {
      let set = this.byNamespace.get(info.namespace);
      if (!set) this.byNamespace.set(info.namespace, (set = new Set()));
      set.add(id);
    }
    return { id, created: true };
  }

  /** Drops a reference; returns true when the identity ceased to exist. */
  release(id: number): boolean {
    const slot = this.byId.get(id);
    if (!slot) return false;
    if (--slot.refs > 0) return false;
    this.byKey.delete(slot.key);
    this.byId.delete(id);
    if (slot.info.kind === "pod") {
      const set = this.byNamespace.get(slot.info.namespace)!;
      set.delete(id);
      if (set.size === 0) this.byNamespace.delete(slot.info.namespace);
    }
    return true;
  }

  /** References held on an identity (0 when it does not exist). */
  refCount(id: number): number {
    return this.byId.get(id)?.refs ?? 0;
  }

  info(id: number): IdentityInfo | undefined {
    return this.byId.get(id)?.info;
  }

  key(id: number): string | undefined {
    return this.byId.get(id)?.key;
  }

  /** Every live identity number. */
  ids(): IterableIterator<number> {
    return this.byId.keys();
  }

  /** Pod identities of one namespace. */
  podIdsIn(namespace: string): ReadonlySet<number> {
    return this.byNamespace.get(namespace) ?? EMPTY;
  }

  namespaces(): IterableIterator<string> {
    return this.byNamespace.keys();
  }

  get size(): number {
    return this.byId.size;
  }

  private newUserId(): number {
    if (this.nextUser <= MAX_USER_IDENTITY) return this.nextUser++;
    for (let id = FIRST_USER_IDENTITY; id <= MAX_USER_IDENTITY; id++) if (!this.byId.has(id)) return id;
    // Cilium's cluster-scoped range is exhausted too; fall back to the node-local range.
    return this.newLocalId();
  }

  private newLocalId(): number {
    return (LOCAL_IDENTITY_FLAG | this.nextLocal++) >>> 0;
  }
}

const EMPTY: ReadonlySet<number> = new Set();

/** Short text for an identity: "256 (pod web: run=web1)", "2 (reserved:world)", "16777217 (cidr 10.1.8.0/24)". */
export function describeIdentity(id: number, info: IdentityInfo | undefined): string {
  const reserved = RESERVED_IDENTITY_NAMES[id];
  if (reserved !== undefined && id < FIRST_USER_IDENTITY) return `${id} (reserved:${reserved})`;
  if (!info) return `${id} (unknown)`;
  switch (info.kind) {
    case "pod":
      return `${id} (pod ${info.namespace}: ${formatLabels(info.labels)})`;
    case "cidr":
      return `${id} (cidr ${formatPrefix(info.atom)})`;
    case "host":
    case "remote-node":
      return `${id} (${info.kind} in ${info.atom ? formatPrefix(info.atom) : "-"})`;
  }
}

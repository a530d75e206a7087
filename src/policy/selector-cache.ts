// Peer selectors of all policies, interned by meaning, each holding the set of identities it
// selects (like Cilium's SelectorCache). Identity and selector changes are evaluated here once;
// the compiler turns the resulting deltas into policy map entries of the affected endpoints only.
import type { CompiledSelector } from "../k8s/selector.js";
import type { IdentityAllocator, IdentityInfo } from "./identities.js";
import type { NormPeer } from "./normalize.js";
import { formatPrefix, prefixWithin, type Prefix } from "./prefix.js";

export type PeerMatcher =
  | {
      readonly kind: "pods";
      /** Set when the peer has no namespaceSelector: only pods of this namespace. */
      readonly namespace: string | null;
      readonly namespaceSelector: CompiledSelector | null;
      readonly podSelector: CompiledSelector | null;
    }
  | { readonly kind: "ipBlock"; readonly cidr: Prefix; readonly except: readonly Prefix[] }
  /** Every identity (used for egress named ports of rules without a peer list). */
  | { readonly kind: "all" }
  /** No identity (an IPv6 ipBlock in this IPv4 model). */
  | { readonly kind: "none" };

/** Whether a peer matcher selects an identity class. */
export function matcherSelects(m: PeerMatcher, info: IdentityInfo): boolean {
  switch (m.kind) {
    case "all":
      return true;
    case "none":
      return false;
    case "ipBlock":
      // The atom is the longest ipBlock prefix holding the class's addresses; since every ipBlock
      // prefix is in the universe, the addresses lie in cidr minus excepts exactly when the atom does.
      return info.atom !== null && prefixWithin(info.atom, m.cidr) && !m.except.some((x) => prefixWithin(info.atom!, x));
    case "pods":
      if (info.kind !== "pod") return false;
      if (m.namespace !== null && info.namespace !== m.namespace) return false;
      if (m.namespaceSelector !== null && !m.namespaceSelector.matches(info.namespaceLabels)) return false;
      return m.podSelector === null || m.podSelector.matches(info.labels);
  }
}

function matcherKey(m: PeerMatcher): string {
  switch (m.kind) {
    case "all":
    case "none":
      return m.kind;
    case "ipBlock":
      return `ip|${formatPrefix(m.cidr)}|${m.except.map(formatPrefix).sort().join(",")}`;
    case "pods":
      return `pods|${m.namespace ?? "*"}|${m.namespaceSelector?.key ?? "-"}|${m.podSelector?.key ?? "-"}`;
  }
}

export function matcherFor(peer: NormPeer, policyNamespace: string): PeerMatcher {
  if (peer.kind === "ipBlock") return { kind: "ipBlock", cidr: peer.cidr, except: peer.except };
  if (peer.kind === "ipv6Block") return { kind: "none" };
  return {
    kind: "pods",
    namespace: peer.namespaceSelector === null ? policyNamespace : null,
    namespaceSelector: peer.namespaceSelector,
    podSelector: peer.podSelector,
  };
}

/** A user of a selector: told when identities join or leave it. */
export interface SelectorUser {
  identityAdded(selector: PeerSelector, id: number): void;
  identityRemoved(selector: PeerSelector, id: number): void;
}

export class PeerSelector {
  readonly ids = new Set<number>();
  readonly users = new Set<SelectorUser>();
  refs = 0;
  constructor(
    readonly key: string,
    readonly matcher: PeerMatcher,
  ) {}
}

export class SelectorCache {
  private readonly selectors = new Map<string, PeerSelector>();
  /** Pod selectors restricted to one namespace, by that namespace. */
  private readonly byNamespace = new Map<string, Set<PeerSelector>>();
  /** Selectors that may match identities of any namespace or kind. */
  private readonly global = new Set<PeerSelector>();

  constructor(private readonly identities: IdentityAllocator) {}

  /** Takes a reference on the interned selector, evaluating a new one against every identity. */
  acquire(matcher: PeerMatcher): PeerSelector {
    const key = matcherKey(matcher);
    let sel = this.selectors.get(key);
    if (!sel) {
      sel = new PeerSelector(key, matcher);
      this.selectors.set(key, sel);
      if (matcher.kind === "pods" && matcher.namespace !== null) {
        let set = this.byNamespace.get(matcher.namespace);
        if (!set) this.byNamespace.set(matcher.namespace, (set = new Set()));
        set.add(sel);
        for (const id of this.identities.podIdsIn(matcher.namespace)) this.consider(sel, id);
      } else {
        this.global.add(sel);
        if (matcher.kind === "pods") {
          for (const ns of this.identities.namespaces()) for (const id of this.identities.podIdsIn(ns)) this.consider(sel, id);
        } else {
          for (const id of this.identities.ids()) this.consider(sel, id);
        }
      }
    }
    sel.refs++;
    return sel;
  }

  release(sel: PeerSelector): void {
    if (--sel.refs > 0) return;
    this.selectors.delete(sel.key);
    const m = sel.matcher;
    if (m.kind === "pods" && m.namespace !== null) {
      const set = this.byNamespace.get(m.namespace)!;
      set.delete(sel);
      if (set.size === 0) this.byNamespace.delete(m.namespace);
    } else {
      this.global.delete(sel);
    }
  }

  /** A new identity: add it to every selector that selects it and tell their users. */
  identityAdded(id: number, info: IdentityInfo): void {
    if (info.kind === "pod") {
      const local = this.byNamespace.get(info.namespace);
      if (local) for (const sel of local) this.addIfMatch(sel, id, info);
    }
    for (const sel of this.global) this.addIfMatch(sel, id, info);
  }

  /** An identity that ceased to exist: remove it from every selector holding it and tell their users. */
  identityRemoved(id: number, info: IdentityInfo): void {
    const visit = (sel: PeerSelector) => {
      if (!sel.ids.delete(id)) return;
      for (const u of sel.users) u.identityRemoved(sel, id);
    };
    if (info.kind === "pod") {
      const local = this.byNamespace.get(info.namespace);
      if (local) for (const sel of local) visit(sel);
    }
    for (const sel of this.global) visit(sel);
  }

  private consider(sel: PeerSelector, id: number): void {
    const info = this.identities.info(id);
    if (info && matcherSelects(sel.matcher, info)) sel.ids.add(id);
  }

  private addIfMatch(sel: PeerSelector, id: number, info: IdentityInfo): void {
    if (!matcherSelects(sel.matcher, info)) return;
    sel.ids.add(id);
    for (const u of sel.users) u.identityAdded(sel, id);
  }
}

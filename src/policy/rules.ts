// Compiled rules: one RuleState per rule of a policy, holding its interned peer selectors and its
// ports, and turning "rule R applies to endpoint E for peer identity I" into policy map entries
// (with named ports resolved: ingress against E's own ports, egress against the destination I's).
import { Direction as MapDirection } from "../../datapath/maps/policy.js";
import type { EndpointState } from "./endpoint.js";
import type { IdentityAllocator } from "./identities.js";
import type { NormPort, NormRule } from "./normalize.js";
import { matcherFor, type PeerSelector, type SelectorCache, type SelectorUser } from "./selector-cache.js";
import { IpProto, type ContainerPortInfo, type PolicyProtocol } from "./types.js";
import { Direction, type DirectionName } from "./verdict.js";

type NamedPort = { readonly name: string; readonly protocol: PolicyProtocol };

/** Receives selector deltas for a rule and applies them to the endpoints the rule's policy selects. */
export interface RuleHost {
  readonly identities: IdentityAllocator;
  /** Endpoints selected by the policy owning the rule (and isolated by it in the rule's direction). */
  targetsOf(rule: RuleState): Iterable<EndpointState>;
}

export class RuleState implements SelectorUser {
  readonly mapDirection: number;
  /** True when the rule has no peer list: every peer. */
  readonly anyPeer: boolean;
  readonly selectors: readonly PeerSelector[];
  /** For egress rules without a peer list but with named ports: all identities, to resolve the names per destination. */
  readonly allSelector: PeerSelector | null;
  /** Numeric ports as flat (proto, lo, hi) triples; any protocol and port when the rule has no ports. */
  readonly staticPorts: readonly number[];
  readonly namedPorts: readonly NamedPort[];

  constructor(
    readonly policyKey: string,
    readonly direction: DirectionName,
    readonly rule: NormRule,
    readonly ruleRef: number,
    policyNamespace: string,
    private readonly host: RuleHost,
    selectorCache: SelectorCache,
  ) {
    this.mapDirection = direction === Direction.INGRESS ? MapDirection.INGRESS : MapDirection.EGRESS;
    this.anyPeer = rule.peers === null;
    this.selectors = (rule.peers ?? []).map((p) => selectorCache.acquire(matcherFor(p, policyNamespace)));
    const ports = rule.ports ?? null;
    this.staticPorts = ports === null ? [0, 0, 65535] : ports.filter((p) => p.match.kind !== "named").flatMap(staticRange);
    this.namedPorts = (ports ?? []).flatMap((p) => (p.match.kind === "named" ? [{ name: p.match.name, protocol: p.protocol }] : []));
    this.allSelector =
      this.anyPeer && this.namedPorts.length > 0 && direction === Direction.EGRESS ? selectorCache.acquire({ kind: "all" }) : null;
    for (const s of this.selectors) s.users.add(this);
    if (this.allSelector) this.allSelector.users.add(this);
  }

  /** Unregisters from and releases the selectors. */
  dispose(selectorCache: SelectorCache): void {
    for (const s of this.selectors) {
      s.users.delete(this);
      selectorCache.release(s);
    }
    if (this.allSelector) {
      this.allSelector.users.delete(this);
      selectorCache.release(this.allSelector);
    }
  }

  identityAdded(selector: PeerSelector, id: number): void {
    for (const ep of this.host.targetsOf(this)) this.applyFromSelector(ep, selector, id, 1);
  }

  identityRemoved(selector: PeerSelector, id: number): void {
    for (const ep of this.host.targetsOf(this)) this.applyFromSelector(ep, selector, id, -1);
  }

  /** Adds (sign 1) or removes (sign -1) every entry this rule gives endpoint ep. */
  applyAll(ep: EndpointState, sign: 1 | -1): void {
    if (this.anyPeer) this.applyPeer(ep, 0, sign, false);
    for (const s of this.selectors) for (const id of s.ids) this.applyPeer(ep, id, sign, false);
    if (this.allSelector) for (const id of this.allSelector.ids) this.applyPeer(ep, id, sign, true);
  }

  private applyFromSelector(ep: EndpointState, selector: PeerSelector, id: number, sign: 1 | -1): void {
    for (const s of this.selectors) if (s === selector) this.applyPeer(ep, id, sign, false);
    if (this.allSelector === selector) this.applyPeer(ep, id, sign, true);
  }

  /**
   * Entries for one peer identity (0 = any peer). namedOnly: only the egress named ports, resolved
   * against the destination identity (the all-identities expansion of a rule without peers).
   */
  private applyPeer(ep: EndpointState, id: number, sign: 1 | -1, namedOnly: boolean): void {
    const dir = this.mapDirection;
    const sp = this.staticPorts;
    if (!namedOnly) for (let i = 0; i < sp.length; i += 3) emit(ep, sign, dir, id, sp[i]!, sp[i + 1]!, sp[i + 2]!, this.ruleRef);
    if (this.namedPorts.length === 0) return;
    let ports: readonly ContainerPortInfo[];
    if (this.direction === Direction.INGRESS) {
      ports = ep.pod.ports;
    } else {
      // Egress: a named port is the destination's port. Identity 0 (any peer) has none; for a rule
      // without peers the all-identities expansion (namedOnly) supplies the destinations instead.
      if (id === 0) return;
      const info = this.host.identities.info(id);
      if (info?.kind !== "pod") return;
      ports = info.ports;
    }
    for (const np of this.namedPorts) {
      const port = resolveNamed(ports, np);
      if (port !== null) emit(ep, sign, dir, id, IpProto[np.protocol], port, port, this.ruleRef);
    }
  }
}

function emit(ep: EndpointState, sign: 1 | -1, dir: number, id: number, proto: number, lo: number, hi: number, ruleRef: number): void {
  if (sign === 1) ep.add(dir, id, proto, lo, hi, ruleRef);
  else ep.remove(dir, id, proto, lo, hi, ruleRef);
}

function staticRange(p: NormPort): [proto: number, lo: number, hi: number] {
  const proto = IpProto[p.protocol];
  return p.match.kind === "range" ? [proto, p.match.lo, p.match.hi] : [proto, 0, 65535];
}

/** The number a named port has among a pod's container ports (same name and protocol), or null. */
export function resolveNamed(ports: readonly ContainerPortInfo[], np: NamedPort): number | null {
  for (const p of ports) if (p.name === np.name && p.protocol === np.protocol) return p.port;
  return null;
}

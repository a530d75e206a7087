// The NetworkPolicy compiler: keeps a cluster-wide ipcache (address -> identity; each node reads it
// through its own view) and one policy map per endpoint, in step with the policy world. Changes are
// incremental: a pod, label, namespace-label, node or policy change touches only the identities,
// selectors and endpoints it affects. Datapath decision: identity = ipcache.lookupV4(peer); verdict =
// policyMap.lookup(direction, identity, proto, port).
import { ReservedIdentity } from "../../datapath/identity.js";
import { IpCache } from "../../datapath/maps/ipcache.js";
import { Direction as MapDirection } from "../../datapath/maps/policy.js";
import { EndpointState, PortRangeIds, type EndpointCounters } from "./endpoint.js";
import { IdentityAllocator, WORLD_ATOM, type IdentityInfo } from "./identities.js";
import type { NormPolicy } from "./normalize.js";
import { prefixContainsAddr, prefixKey, PrefixSet, type Prefix } from "./prefix.js";
import { RULE_REF_DEFAULT_ALLOW, RULE_REF_OWN_NODE, RuleTable } from "./rule-table.js";
import { RuleState, type RuleHost } from "./rules.js";
import { SelectorCache } from "./selector-cache.js";
import type { PodInfo, PolicyOptions } from "./types.js";
import { Direction } from "./verdict.js";
import type { PolicyWorld, WorldChange } from "./world.js";

export type CompilerOptions = PolicyOptions & {
  /** Capacity of each endpoint's policy map (Cilium's default bpf-policy-map-max is 16384). */
  readonly policyMapMaxEntries?: number;
  readonly ipcacheMaxEntries?: number;
};

/** What the compiler did since the last resetCounters(): lets tests check that an update stayed local. */
export type CompilerCounters = EndpointCounters & {
  ipcacheWrites: number;
  identitiesCreated: number;
  identitiesFreed: number;
  /** Endpoints whose policy map changed. */
  readonly touchedEndpoints: Set<string>;
};

/** A node: its view of the cluster-wide ipcache, local endpoints, host identities. */
type NodeState = {
  readonly name: string;
  readonly ipcache: IpCache;
  readonly endpoints: Set<EndpointState>;
  readonly hostIds: Map<number, number>;
};
type NodeAddress = { readonly node: string; readonly hostId: number; readonly remoteId: number };

class PolicyState {
  readonly targets = new Set<EndpointState>();
  constructor(
    readonly norm: NormPolicy,
    readonly ingress: RuleState[] | null,
    readonly egress: RuleState[] | null,
  ) {}
  rules(): RuleState[] {
    return [...(this.ingress ?? []), ...(this.egress ?? [])];
  }
}

const DIRECTIONS = [MapDirection.INGRESS, MapDirection.EGRESS] as const;

export class PolicyCompiler implements RuleHost {
  readonly identities = new IdentityAllocator();
  readonly ruleTable = new RuleTable();
  readonly counters: CompilerCounters = {
    upserts: 0,
    deletes: 0,
    mapErrors: 0,
    ipcacheWrites: 0,
    identitiesCreated: 0,
    identitiesFreed: 0,
    touchedEndpoints: new Set(),
  };
  private readonly selectors = new SelectorCache(this.identities);
  private readonly universe = new PrefixSet();
  private readonly cidrIds = new Map<number, number>();
  private readonly nodes = new Map<string, NodeState>();
  /** Owner tags of node names in the shared ipcache (stable for the compiler's life, never reused). */
  private readonly owners = new Map<string, number>();
  private readonly ipcache: IpCache;
  private readonly nodeAddresses = new Map<number, NodeAddress>();
  private readonly endpoints = new Map<string, EndpointState>();
  private readonly endpointsByIp = new Map<number, EndpointState>();
  private readonly endpointsByNs = new Map<string, Set<EndpointState>>();
  private readonly policies = new Map<string, PolicyState>();
  private readonly policiesByNs = new Map<string, Set<PolicyState>>();
  /** Endpoint -> policies isolating it, per map direction. */
  private readonly isolation = new Map<EndpointState, [Set<PolicyState>, Set<PolicyState>]>();
  private readonly ruleOwner = new Map<RuleState, PolicyState>();
  private readonly portRanges = new PortRangeIds();
  private readonly unsubscribe: () => void;
  private readonly policyMapMax: number;
  private readonly ipcacheMax: number;
  /** True during the initial full compile: endpoints are not tracked as touched, policy maps are
   *  written once per endpoint at the end (EndpointState.defer/flush), the ipcache is filled once. */
  private building = true;
  private readonly touch = (ep: EndpointState) => {
    if (!this.building) this.counters.touchedEndpoints.add(ep.key);
  };

  constructor(
    readonly world: PolicyWorld,
    readonly options: CompilerOptions,
  ) {
    this.policyMapMax = options.policyMapMaxEntries ?? 16384;
    this.ipcacheMax = options.ipcacheMaxEntries ?? 1 << 20;
    this.ipcache = new IpCache(this.ipcacheMax);
    // The world identity (0.0.0.0/0) always exists: addresses no other entry covers.
    this.identities.acquire({ kind: "cidr", atom: WORLD_ATOM });
    this.buildFrom(world);
    this.building = false;
    this.unsubscribe = world.subscribe((c) => this.apply(c));
  }

  /** Stops following the world. */
  dispose(): void {
    this.unsubscribe();
  }

  resetCounters(): void {
    this.counters.upserts = 0;
    this.counters.deletes = 0;
    this.counters.mapErrors = 0;
    this.counters.ipcacheWrites = 0;
    this.counters.identitiesCreated = 0;
    this.counters.identitiesFreed = 0;
    this.counters.touchedEndpoints.clear();
  }

  // ---- read side (datapath and explanations)

  /** The ipcache of a node (its view of the cluster-wide one); undefined for a node the compiler has never seen. */
  ipcacheOf(node: string): IpCache | undefined {
    return this.nodes.get(node)?.ipcache;
  }

  endpoint(podKey: string): EndpointState | undefined {
    return this.endpoints.get(podKey);
  }

  endpointByIp(ip: number): EndpointState | undefined {
    return this.endpointsByIp.get(ip);
  }

  nodeNames(): string[] {
    return [...this.nodes.keys()];
  }

  /** Policies isolating an endpoint in a direction (map direction numbers). */
  isolatingPolicies(podKey: string, direction: number): string[] {
    const ep = this.endpoints.get(podKey);
    if (!ep) return [];
    return [...this.isolation.get(ep)![direction]!].map((p) => p.norm.key);
  }

  targetsOf(rule: RuleState): Iterable<EndpointState> {
    return this.ruleOwner.get(rule)?.targets ?? [];
  }

  // ---- change handling

  private apply(c: WorldChange): void {
    switch (c.kind) {
      case "pod":
        if (c.before && c.after && samePlacement(c.before, c.after)) this.relabelPod(c.after);
        else {
          if (c.before) this.removePod(c.before);
          if (c.after) this.addPod(c.after);
        }
        return;
      case "namespace":
        for (const ep of [...(this.endpointsByNs.get(c.name) ?? [])]) this.reidentify(ep, ep.pod);
        return;
      case "node":
        if (c.before) this.removeNode(c.before.name, c.before.ips);
        if (c.after) this.addNode(c.after.name, c.after.ips);
        return;
      case "policy":
        // New ipBlock prefixes first, so that a changed policy keeping its ipBlocks keeps their
        // CIDR identities instead of freeing and re-creating them.
        if (c.after) for (const prefix of policyPrefixes(c.after.norm)) if (this.universe.add(prefix)) this.prefixEntered(prefix, true);
        if (c.before) this.removePolicy(c.before.norm);
        if (c.after) this.addPolicyBody(c.after.norm);
        return;
    }
  }

  /** Full compile of the world as it is: universe first, then nodes, pods, and finally policies. */
  private buildFrom(world: PolicyWorld): void {
    const policies = [...world.allPolicies()].map((p) => p.norm);
    for (const p of policies) for (const prefix of policyPrefixes(p)) if (this.universe.add(prefix)) this.prefixEntered(prefix, false);
    for (const n of world.allNodes()) this.addNode(n.name, n.ips);
    for (const pod of world.allPods()) this.addPod(pod);
    for (const p of policies) this.addPolicyBody(p);
    for (const ep of this.endpoints.values()) ep.flush();
    this.fillIpcache();
  }

  // ---- identities

  private acquire(info: IdentityInfo): number {
    const r = this.identities.acquire(info);
    if (r.created) {
      this.counters.identitiesCreated++;
      this.selectors.identityAdded(r.id, info);
    }
    return r.id;
  }

  /** Drops a reference; the last one withdraws the identity from selectors (and thus from maps)
   *  while its info is still there to resolve named ports, then frees it. */
  private release(id: number): void {
    const info = this.identities.info(id);
    if (info && this.identities.refCount(id) === 1) this.selectors.identityRemoved(id, info);
    if (this.identities.release(id)) this.counters.identitiesFreed++;
  }

  /** The ipBlock atom of a cluster address, or null when ipBlocks never select cluster addresses. */
  private atomOf(ip: number): Prefix | null {
    if (!this.options.ipBlockSelectsClusterAddresses) return null;
    return this.universe.longestMatch(ip) ?? WORLD_ATOM;
  }

  private podIdentityInfo(pod: PodInfo): IdentityInfo {
    return {
      kind: "pod",
      namespace: pod.namespace,
      labels: pod.labels,
      namespaceLabels: this.world.namespace(pod.namespace).labels,
      ports: pod.ports,
      atom: this.atomOf(pod.ip),
    };
  }

  // ---- ipcache

  private node(name: string): NodeState {
    let n = this.nodes.get(name);
    if (!n) {
      let owner = this.owners.get(name);
      if (owner === undefined) this.owners.set(name, (owner = this.owners.size + 1));
      n = { name, ipcache: this.ipcache.view(owner), endpoints: new Set(), hostIds: new Map() };
      this.nodes.set(name, n);
    }
    return n;
  }

  private fillIpcache(): void {
    this.writeEntry({ addr: 0, len: 0 });
    for (const p of this.universe) this.writeEntry(p);
    for (const ip of this.endpointsByIp.keys()) this.writeEntry({ addr: ip, len: 32 });
    for (const ip of this.nodeAddresses.keys()) this.writeEntry({ addr: ip, len: 32 });
  }

  /**
   * Brings one prefix of the ipcache to what the compiler's state says it should be. A pod address is
   * owned by its node (whose view sees no tunnel endpoint), a node address by its node (whose view sees
   * the host identity; other nodes see remote-node).
   */
  private writeEntry(p: Prefix): void {
    let identity = -1;
    let tunnel = 0;
    let owner = 0;
    let ownerIdentity = 0;
    if (p.len === 32) {
      const ep = this.endpointsByIp.get(p.addr);
      const na = this.nodeAddresses.get(p.addr);
      if (ep) {
        identity = ownerIdentity = ep.identity;
        tunnel = this.nodeTunnelAddress(ep.pod.node);
        owner = this.owners.get(ep.pod.node) ?? 0;
      } else if (na) {
        identity = na.remoteId;
        ownerIdentity = na.hostId;
        owner = this.owners.get(na.node) ?? 0;
      }
    }
    if (identity < 0) {
      if (p.len === 0) identity = ReservedIdentity.WORLD;
      else if (this.universe.has(p)) identity = this.cidrIds.get(prefixKey(p))!;
      ownerIdentity = identity;
    }
    this.counters.ipcacheWrites++;
    if (identity < 0) this.ipcache.deleteV4(p.addr, p.len);
    else if (this.ipcache.upsertOwnedV4(p.addr, p.len, identity, tunnel, 0, owner, ownerIdentity) !== 0) this.counters.mapErrors++;
  }

  private writeIpcache(p: Prefix): void {
    if (!this.building) this.writeEntry(p);
  }

  /** The underlay address used as tunnel endpoint for pods of a node (its first address). */
  private nodeTunnelAddress(node: string): number {
    return this.world.node(node)?.ips[0] ?? 0;
  }

  // ---- ipBlock universe

  private prefixEntered(p: Prefix, reatom: boolean): void {
    if (p.len > 0) this.cidrIds.set(prefixKey(p), this.acquire({ kind: "cidr", atom: p }));
    this.writeIpcache(p);
    if (reatom) this.reatomWithin(p);
  }

  private prefixLeft(p: Prefix): void {
    const key = prefixKey(p);
    const id = this.cidrIds.get(key);
    this.cidrIds.delete(key);
    this.writeIpcache(p);
    if (id !== undefined) this.release(id);
    this.reatomWithin(p);
  }

  /** Cluster addresses inside p may have a new atom, hence a new identity. */
  private reatomWithin(p: Prefix): void {
    if (!this.options.ipBlockSelectsClusterAddresses) return;
    for (const ep of [...this.endpoints.values()]) if (prefixContainsAddr(p, ep.pod.ip)) this.reidentify(ep, ep.pod);
    for (const [ip, na] of [...this.nodeAddresses]) {
      if (!prefixContainsAddr(p, ip)) continue;
      this.dropNodeAddress(ip);
      this.addNodeAddress(ip, na.node);
    }
  }

  // ---- nodes

  private addNode(name: string, ips: readonly number[]): void {
    this.node(name);
    for (const ip of ips) this.addNodeAddress(ip, name);
    this.rewritePodsOf(name);
  }

  private removeNode(name: string, ips: readonly number[]): void {
    for (const ip of ips) this.dropNodeAddress(ip);
    const n = this.nodes.get(name);
    if (n && n.endpoints.size === 0) this.nodes.delete(name);
    else this.rewritePodsOf(name);
  }

  /** Pods of a node are reached through its tunnel address, which may have changed. */
  private rewritePodsOf(name: string): void {
    const n = this.nodes.get(name);
    if (n) for (const ep of n.endpoints) this.writeIpcache({ addr: ep.pod.ip, len: 32 });
  }

  private addNodeAddress(ip: number, node: string): void {
    const atom = this.atomOf(ip);
    const na: NodeAddress = { node, hostId: this.acquire({ kind: "host", atom }), remoteId: this.acquire({ kind: "remote-node", atom }) };
    this.nodeAddresses.set(ip, na);
    const n = this.node(node);
    const count = n.hostIds.get(na.hostId) ?? 0;
    n.hostIds.set(na.hostId, count + 1);
    if (count === 0) for (const ep of n.endpoints) this.allowOwnNode(ep, na.hostId, 1);
    this.writeIpcache({ addr: ip, len: 32 });
  }

  private dropNodeAddress(ip: number): void {
    const na = this.nodeAddresses.get(ip);
    if (!na) return;
    this.nodeAddresses.delete(ip);
    const n = this.nodes.get(na.node);
    if (n) {
      const count = n.hostIds.get(na.hostId)!;
      if (count === 1) {
        n.hostIds.delete(na.hostId);
        for (const ep of n.endpoints) this.allowOwnNode(ep, na.hostId, -1);
      } else n.hostIds.set(na.hostId, count - 1);
    }
    this.writeIpcache({ addr: ip, len: 32 });
    this.release(na.hostId);
    this.release(na.remoteId);
  }

  private allowOwnNode(ep: EndpointState, hostId: number, sign: 1 | -1): void {
    if (sign === 1) ep.add(MapDirection.INGRESS, hostId, 0, 0, 65535, RULE_REF_OWN_NODE);
    else ep.remove(MapDirection.INGRESS, hostId, 0, 0, 65535, RULE_REF_OWN_NODE);
  }

  // ---- pods

  private addPod(pod: PodInfo): void {
    const identity = this.acquire(this.podIdentityInfo(pod));
    const n = this.node(pod.node);
    const ep = new EndpointState(pod, identity, this.policyMapMax, this.counters, this.touch, this.portRanges);
    if (this.building) ep.defer();
    this.endpoints.set(pod.key, ep);
    this.endpointsByIp.set(pod.ip, ep);
    let byNs = this.endpointsByNs.get(pod.namespace);
    if (!byNs) this.endpointsByNs.set(pod.namespace, (byNs = new Set()));
    byNs.add(ep);
    n.endpoints.add(ep);
    this.isolation.set(ep, [new Set(), new Set()]);
    for (const d of DIRECTIONS) ep.add(d, 0, 0, 0, 65535, RULE_REF_DEFAULT_ALLOW);
    for (const hostId of n.hostIds.keys()) this.allowOwnNode(ep, hostId, 1);
    this.writeIpcache({ addr: pod.ip, len: 32 });
    for (const p of this.policiesByNs.get(pod.namespace) ?? []) if (p.norm.podSelector.matches(pod.labels)) this.attach(p, ep);
  }

  private removePod(pod: PodInfo): void {
    const ep = this.endpoints.get(pod.key);
    if (!ep) return;
    const [ingress, egress] = this.isolation.get(ep)!;
    for (const p of new Set([...ingress, ...egress])) p.targets.delete(ep);
    this.isolation.delete(ep);
    this.endpoints.delete(pod.key);
    this.endpointsByIp.delete(pod.ip);
    this.endpointsByNs.get(pod.namespace)?.delete(ep);
    this.nodes.get(pod.node)?.endpoints.delete(ep);
    this.counters.touchedEndpoints.add(pod.key);
    this.writeIpcache({ addr: pod.ip, len: 32 });
    this.release(ep.identity);
  }

  /** Same pod, same address, node and ports: only labels changed. */
  private relabelPod(after: PodInfo): void {
    const ep = this.endpoints.get(after.key);
    if (!ep) return this.addPod(after);
    this.reidentify(ep, after);
    for (const p of this.policiesByNs.get(after.namespace) ?? []) {
      const selected = p.norm.podSelector.matches(after.labels);
      if (selected && !p.targets.has(ep)) this.attach(p, ep);
      else if (!selected && p.targets.has(ep)) this.detach(p, ep);
    }
  }

  /** Recomputes a pod's identity (labels, namespace labels or ipBlock atom changed). */
  private reidentify(ep: EndpointState, pod: PodInfo): void {
    const old = ep.identity;
    ep.pod = pod;
    ep.identity = this.acquire(this.podIdentityInfo(pod));
    if (ep.identity !== old) this.writeIpcache({ addr: pod.ip, len: 32 });
    this.release(old);
  }

  // ---- policies

  private addPolicyBody(norm: NormPolicy): void {
    const make = (rules: NormPolicy["ingress"], dir: typeof Direction.INGRESS | typeof Direction.EGRESS) =>
      rules === null
        ? null
        : rules.map(
            (r) => new RuleState(norm.key, dir, r, this.ruleTable.refFor(norm.key, dir, r.index), norm.namespace, this, this.selectors),
          );
    const state = new PolicyState(norm, make(norm.ingress, Direction.INGRESS), make(norm.egress, Direction.EGRESS));
    for (const r of state.rules()) this.ruleOwner.set(r, state);
    this.policies.set(norm.key, state);
    let byNs = this.policiesByNs.get(norm.namespace);
    if (!byNs) this.policiesByNs.set(norm.namespace, (byNs = new Set()));
    byNs.add(state);
    for (const ep of this.endpointsByNs.get(norm.namespace) ?? []) if (norm.podSelector.matches(ep.pod.labels)) this.attach(state, ep);
  }

  private removePolicy(norm: NormPolicy): void {
    const state = this.policies.get(norm.key);
    if (!state) return;
    for (const ep of [...state.targets]) this.detach(state, ep);
    for (const r of state.rules()) {
      r.dispose(this.selectors);
      this.ruleOwner.delete(r);
    }
    this.policies.delete(norm.key);
    this.policiesByNs.get(norm.namespace)?.delete(state);
    for (const prefix of policyPrefixes(norm)) if (this.universe.remove(prefix)) this.prefixLeft(prefix);
  }

  private attach(p: PolicyState, ep: EndpointState): void {
    p.targets.add(ep);
    const iso = this.isolation.get(ep)!;
    DIRECTIONS.forEach((d, i) => {
      const rules = i === 0 ? p.ingress : p.egress;
      if (rules === null) return;
      if (iso[d]!.size === 0) ep.remove(d, 0, 0, 0, 65535, RULE_REF_DEFAULT_ALLOW);
      iso[d]!.add(p);
      for (const r of rules) r.applyAll(ep, 1);
    });
  }

  private detach(p: PolicyState, ep: EndpointState): void {
    p.targets.delete(ep);
    const iso = this.isolation.get(ep)!;
    DIRECTIONS.forEach((d, i) => {
      const rules = i === 0 ? p.ingress : p.egress;
      if (rules === null) return;
      for (const r of rules) r.applyAll(ep, -1);
      iso[d]!.delete(p);
      if (iso[d]!.size === 0) ep.add(d, 0, 0, 0, 65535, RULE_REF_DEFAULT_ALLOW);
    });
  }
}

function samePlacement(a: PodInfo, b: PodInfo): boolean {
  return a.ip === b.ip && a.node === b.node && a.namespace === b.namespace && JSON.stringify(a.ports) === JSON.stringify(b.ports);
}

/** Every ipBlock cidr and except of a policy (with repeats: the universe counts references). */
function policyPrefixes(p: NormPolicy): Prefix[] {
  const out: Prefix[] = [];
  for (const rules of [p.ingress, p.egress]) {
    for (const r of rules ?? []) {
      for (const peer of r.peers ?? []) if (peer.kind === "ipBlock") out.push(peer.cidr, ...peer.except);
    }
  }
  return out;
}

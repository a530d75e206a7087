// ClusterRuntime: a built cluster and the lookups later commands need (pods, nodes and external hosts
// by name, their namespaces and addresses), the simulator controls (runFor, runUntilIdle), and the
// store watch that updates the network without a rebuild (pods added/removed/relabelled, policies,
// namespace labels), and every pod's containers (`workloads`), started and stopped with their pods.
import type { CniPlugin } from "../cni/plugin.js";
import { podIpAllocator, type PodAddressAllocator } from "../cni/ipam/pod-ip-allocator.js";
import type { BgpTimers } from "../cni/calico/bgp/timers.js";
import type { Simulator } from "../engine/simulator.js";
import type { ClusterModel } from "../k8s/cluster-model.js";
import type { ObjectStore, StoreEvent } from "../k8s/store.js";
import type { KubeObject } from "../k8s/types.js";
import type { NetNamespace } from "../net/stack/namespace.js";
import type { NetWorld } from "../net/world.js";
import { PodWorkloads } from "./containers/workloads.js";
import { storeDnsData } from "./containers/dns-data.js";
import { formatClusterError, type ClusterError } from "./errors.js";
import type { PolicyFeed } from "./policy-feed.js";
import type { PodNetwork, PodRuntime } from "./pods.js";
import type { ServicesRuntime } from "./services.js";
import type { Attachment, ExternalHost, Underlay } from "./underlay.js";

export interface NodeRuntime extends Attachment {
  readonly name: string;
}

/** How long runUntilIdle may run at most (simulated): one hour. */
const IDLE_LIMIT_NS = 3600 * 1_000_000_000;

export class ClusterRuntime {
  /** Problems met after the build (a pod that could not be wired, a policy the compiler refused). */
  readonly errors: string[] = [];
  /** Every wired pod's containers and the servers they run (nginx, CoreDNS, declared ports). */
  readonly workloads: PodWorkloads;
  private unwatch: (() => void) | null = null;

  constructor(
    readonly model: ClusterModel,
    readonly store: ObjectStore,
    readonly sim: Simulator,
    readonly world: NetWorld,
    readonly underlay: Underlay,
    readonly nodes: ReadonlyMap<string, NodeRuntime>,
    readonly plugin: CniPlugin,
    readonly policy: PolicyFeed,
    private readonly podNet: PodNetwork,
    /** Service allocation, endpoints controller and kube-proxy per node. */
    readonly services: ServicesRuntime,
    private readonly bgpTimers: BgpTimers | null,
    /** The cluster DNS Service address (kube-system/kube-dns), null when the add-on is off. */
    readonly clusterDns: number | null = null,
  ) {
    this.workloads = new PodWorkloads(store, storeDnsData(store));
  }

  // ---- lookups

  pod(key: string): PodRuntime | undefined {
    return this.podNet.pods.get(key);
  }

  pods(): PodRuntime[] {
    return [...this.podNet.pods.values()].sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  }

  node(name: string): NodeRuntime | undefined {
    return this.nodes.get(name);
  }

  externalHost(name: string): ExternalHost | undefined {
    return this.underlay.hosts.get(name);
  }

  /** The network namespace of "pod ns/name", "node NAME" / "node/NAME", "ext NAME" / "ext/NAME", or a pod key. */
  namespaceOf(endpoint: string): NetNamespace | undefined {
    const [kind, rest] = splitEndpoint(endpoint);
    if (kind === "node") return this.nodes.get(rest)?.ns;
    if (kind === "ext") return this.underlay.hosts.get(rest)?.ns;
    return this.podNet.pods.get(rest)?.ns;
  }

  /** The primary IPv4 address of an endpoint (see namespaceOf), undefined when unknown. */
  addressOf(endpoint: string): number | undefined {
    const [kind, rest] = splitEndpoint(endpoint);
    if (kind === "node") return this.nodes.get(rest)?.ip;
    if (kind === "ext") return this.underlay.hosts.get(rest)?.ip;
    return this.podNet.pods.get(rest)?.ip;
  }

  /** Notices to print loudly (e.g. flannel: policies have no effect), then later problems. */
  notices(): string[] {
    return [...this.plugin.notices(), ...this.policy.problems, ...this.services.problems, ...this.errors, ...this.workloads.problems];
  }

  /** The kubelets' pod address allocator over the CNI's IPAM (for the lab's controllers). */
  podIpAllocator(): PodAddressAllocator {
    return podIpAllocator(this.plugin.ipam);
  }

  // ---- time

  runFor(ns: number): void {
    this.sim.runUntil(this.sim.now + Math.max(0, Math.floor(ns)));
  }

  /**
   * Runs until nothing but periodic control-plane timers (BGP connect/keepalive/hold) is pending (those
   * due earlier than other work run as usual), or an hour of simulated time passed. Returns the time spent.
   */
  runUntilIdle(): number {
    const start = this.sim.now;
    const t = this.bgpTimers;
    while (this.sim.pending > (t?.pending ?? 0) && this.sim.now - start < IDLE_LIMIT_NS) this.sim.step();
    return this.sim.now - start;
  }

  // ---- workloads

  /** Starts the containers of every wired pod (the build calls it once; the watch keeps them current). */
  startWorkloads(): void {
    for (const p of this.podNet.pods.values()) this.workloads.sync(p.key, p);
  }

  // ---- store watch

  /** Follows the store: changes to pods, namespaces and policies update the network. */
  watch(): void {
    if (this.unwatch !== null) return;
    this.unwatch = this.store.watch((e) => this.onEvent(e), ["Pod", "Namespace", "NetworkPolicy"]);
  }

  stopWatching(): void {
    this.unwatch?.();
    this.unwatch = null;
  }

  private onEvent(e: StoreEvent): void {
    switch (e.kind) {
      case "Pod": {
        if (e.type === "deleted") {
          const old = e.old as KubeObject<"Pod">;
          const key = `${old.metadata.namespace}/${old.metadata.name}`;
          this.podNet.remove(key);
          this.workloads.sync(key, undefined);
          return;
        }
        const pod = e.new as KubeObject<"Pod">;
        const r = this.podNet.sync(pod);
        if (!r.ok) this.errors.push(formatClusterError(r.error));
        const key = `${pod.metadata.namespace}/${pod.metadata.name}`;
        this.workloads.sync(key, this.podNet.pods.get(key));
        return;
      }
      case "Namespace":
        if (e.type === "deleted") this.policy.removeNamespace((e.old as KubeObject<"Namespace">).metadata.name);
        else this.policy.setNamespace(e.new as KubeObject<"Namespace">);
        return;
      case "NetworkPolicy":
        if (e.type === "deleted") {
          const old = e.old as KubeObject<"NetworkPolicy">;
          this.policy.removePolicy(old.metadata.namespace ?? "default", old.metadata.name);
        } else this.policy.setPolicy(e.new as KubeObject<"NetworkPolicy">);
        return;
    }
  }
}

function splitEndpoint(endpoint: string): ["pod" | "node" | "ext", string] {
  for (const kind of ["node", "ext", "pod"] as const) {
    if (endpoint.startsWith(`${kind}/`) || endpoint.startsWith(`${kind} `)) return [kind, endpoint.slice(kind.length + 1)];
  }
  return ["pod", endpoint];
}

export type { ClusterError };

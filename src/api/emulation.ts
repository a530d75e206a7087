// Opens an emulated cluster from files for `serve` and `top`: the LabCluster (store, controllers,
// scheduler, kubelets on simulated time) joined to the network ClusterRuntime built from the same
// files, with the Cluster's cost model. The two keep separate stores and simulators, so this joins
// them: the lab's kubelets take pod addresses from the CNI's IPAM, the lab's pods, policies,
// namespaces and services are mirrored into the network's store (which wires pods as they start),
// and both clocks advance in lockstep. Metrics-server scrapes on the network's clock. What the network
// build added on its own (the cluster DNS add-on: kube-dns Service, coredns Deployment) is handed to
// the lab first, so the lab's controllers run it like any other workload.
import { buildCluster, formatClusterError, type ClusterRuntime } from "../cluster/index.js";
import type { Simulator } from "../engine/simulator.js";
import { formatDiagnostic, loadFiles, type KindName, type KubeObject, type LoadResult, type ObjectStore } from "../k8s/index.js";
import { defaultScheduler, LabCluster } from "../lab/index.js";
import type { CostModel, StoreMeteringOptions } from "../metrics/index.js";
import { err, ok, type Result } from "../util/result.js";
import { clusterMetering, type RequestCounter } from "./cluster-metering.js";
import { costModelOf, warningsBesidesCostModel } from "./cost-model-source.js";

export interface Emulation {
  readonly lab: LabCluster;
  /** The network the lab's pods run on; null when the files describe none (Node objects, no Cluster). */
  readonly network: ClusterRuntime | null;
  readonly model: CostModel;
  /** Loader warnings, formatted. */
  readonly warnings: readonly string[];
  /** The simulator metrics-server scrapes on (the network's when there is one). */
  readonly clock: Simulator;
  /** Advances the lab and the network together by ns of simulated time. */
  advance(ns: number): void;
  /**
   * Advances until every pod bound to a node has started (phase past Pending) and has its network,
   * or limitNs passed; true when they all have. Traffic needs its endpoints running.
   */
  waitForPods(limitNs?: number): boolean;
  /** Brings the network up to the lab's time (after something advanced the lab alone, e.g. a lab script). */
  sync(): void;
  /** Metering hooks for StoreMeteredCluster (undefined without a network: declared usage only). */
  metering(extra?: readonly RequestCounter[]): Omit<StoreMeteringOptions, "epochMs"> | undefined;
  /** Stops mirroring the lab into the network. */
  close(): void;
}

export interface EmulationOptions {
  /**
   * Wall-clock ms of simulated time 0 (default: the lab's fixed epoch, for reproducible output); a
   * function gets the simulated time the network took to converge, at which the lab starts running.
   */
  readonly epochMs?: number | ((startNs: number) => number);
  /** Build the network runtime too (default true when the files have a Cluster object). */
  readonly network?: boolean;
}

/** Kinds the lab may change that the network follows. */
const MIRRORED: readonly KindName[] = ["Namespace", "Pod", "NetworkPolicy", "Service"];
/** Lockstep granularity: a pod the lab starts is wired within this much simulated time. */
const STEP_NS = 100_000_000;

function keyOf(o: KubeObject): string {
  return `${o.metadata.namespace ?? ""}/${o.metadata.name}`;
}

/** Copies the lab store's objects of the mirrored kinds into the network store (adds, updates, deletes). */
function mirrorAll(from: ObjectStore, to: ObjectStore): void {
  for (const kind of MIRRORED) {
    const present = new Set<string>();
    for (const o of from.list(kind)) {
      present.add(keyOf(o));
      to.apply(o);
    }
    for (const o of to.list(kind)) if (!present.has(keyOf(o))) to.delete(kind, o.metadata.namespace, o.metadata.name);
  }
}

/** Pods bound to a node that have not started yet (or, with a network, are not wired yet). */
function podsStarting(lab: LabCluster, network: ClusterRuntime | null): boolean {
  return lab.store.list("Pod").some((p) => {
    if ((p.spec?.nodeName ?? "") === "") return false;
    if ((p.status?.phase ?? "Pending") === "Pending") return true;
    return network !== null && p.status?.phase === "Running" && network.pod(`${p.metadata.namespace ?? "default"}/${p.metadata.name}`) === undefined;
  });
}

function waiter(lab: LabCluster, network: ClusterRuntime | null, advance: (ns: number) => void): (limitNs?: number) => boolean {
  return (limitNs = 60e9) => {
    const end = lab.sim.now + limitNs;
    while (podsStarting(lab, network)) {
      if (lab.sim.now >= end) return false;
      advance(STEP_NS);
    }
    return true;
  };
}

/** Kinds of the objects the network build may add by itself (the DNS add-on) that the lab must run. */
const ADDON_KINDS: readonly KindName[] = ["Service", "Deployment"];

/** Gives the lab the add-on objects only the network's store has, before the network follows the lab. */
function adoptAddons(lab: LabCluster, network: ClusterRuntime): void {
  for (const kind of ADDON_KINDS) {
    for (const o of network.store.list(kind)) {
      if (lab.store.get(kind, o.metadata.namespace, o.metadata.name) === undefined) lab.store.apply(o);
    }
  }
}

function joined(lab: LabCluster, network: ClusterRuntime): Pick<Emulation, "advance" | "sync" | "close"> {
  adoptAddons(lab, network);
  mirrorAll(lab.store, network.store);
  const unwatch = lab.store.watch((e) => {
    if (e.type === "deleted") network.store.delete(e.kind, e.old!.metadata.namespace, e.old!.metadata.name);
    else network.store.apply(e.new!);
  }, MIRRORED);
  const sync = (): void => {
    if (network.sim.now < lab.sim.now) network.runFor(lab.sim.now - network.sim.now);
  };
  // The network converged (BGP) before the lab started: let the lab catch up once.
  if (lab.sim.now < network.sim.now) lab.advance(network.sim.now - lab.sim.now);
  sync();
  return {
    advance(ns: number): void {
      const end = lab.sim.now + Math.max(0, Math.round(ns));
      while (lab.sim.now < end) {
        lab.advance(Math.min(STEP_NS, end - lab.sim.now));
        sync();
      }
    },
    sync,
    close: unwatch,
  };
}

export async function openEmulation(files: readonly string[], options: EmulationOptions = {}): Promise<Result<Emulation, string[]>> {
  return emulationFromLoad(await loadFiles([...files]), options);
}

export function emulationFromLoad(loaded: LoadResult, options: EmulationOptions = {}): Result<Emulation, string[]> {
  const warnings = warningsBesidesCostModel(loaded).map(formatDiagnostic);
  if (loaded.errors.length > 0) return err(loaded.errors.map(formatDiagnostic));
  const model = costModelOf(loaded);
  if (!model.ok) return err(model.error);
  let network: ClusterRuntime | null = null;
  if (options.network !== false && loaded.cluster !== undefined) {
    const built = buildCluster(loaded, { kubelet: "external" });
    if (!built.ok) return err([formatClusterError(built.error)]);
    network = built.value;
  }
  const rt = network;
  const lab = LabCluster.create(loaded, {
    scheduler: defaultScheduler,
    ...(rt === null ? {} : { ipAllocator: () => rt.podIpAllocator() }),
    ...(options.epochMs === undefined ? {} : { epochMs: typeof options.epochMs === "number" ? options.epochMs : options.epochMs(rt?.sim.now ?? 0) }),
  });
  if (!lab.ok) return err([lab.error]);
  const l = lab.value;
  if (rt === null) {
    return ok({
      lab: l,
      network: null,
      model: model.value,
      warnings,
      clock: l.sim,
      advance: (ns) => l.advance(ns),
      waitForPods: waiter(l, null, (ns) => l.advance(ns)),
      sync: () => undefined,
      metering: () => undefined,
      close: () => undefined,
    });
  }
  const join = joined(l, rt);
  return ok({
    lab: l,
    network: rt,
    model: model.value,
    warnings: [...warnings, ...rt.notices().map((n) => `network: ${n}`)],
    clock: rt.sim,
    ...join,
    waitForPods: waiter(l, rt, join.advance),
    metering: (extra = []) => clusterMetering(rt, extra),
  });
}

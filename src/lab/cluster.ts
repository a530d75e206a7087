// The emulated cluster a lab runs against: the object store filled from the loaded files, the
// simulator whose clock the controllers, scheduler and kubelets share, and the kubectl context
// (current namespace). Time only moves when the lab says so (advance / runUntil).
import { admitPod, ControllerManager, NodeBlockAllocator, WallClock, DEFAULT_EPOCH_MS, type KubeletOptions, type PodIpAllocator, type PodScheduler } from "../controllers/index.js";
import { Simulator } from "../engine/simulator.js";
import { buildClusterModel, formatDiagnostic, storeFromLoad, type ClusterModel, type LoadResult, type ObjectStore } from "../k8s/index.js";
import type { Node } from "kubernetes-types/core/v1.js";
import { err, ok, type Result } from "../util/result.js";
import type { SeededRng } from "../util/rng.js";
import { API_ACCESS_VOLUME_PREFIX } from "../controllers/index.js";

/** Builds the scheduler; `now()` gives RFC 3339 timestamps (microseconds) of simulated time. */
export type SchedulerFactory = (store: ObjectStore, rng: SeededRng, kubernetesVersion: string, clock: { now(): string }) => PodScheduler;

export interface LabClusterOptions {
  /** Builds the scheduler (the lab's default is src/scheduler's Scheduler). */
  readonly scheduler: SchedulerFactory;
  readonly ipAllocator?: (model: ClusterModel) => PodIpAllocator;
  readonly kubelet?: KubeletOptions;
  /** Wall-clock time of simulated time 0. */
  readonly epochMs?: number;
  /**
   * A running network's simulator and store (ClusterRuntime's) to share instead of making new ones:
   * the store must already hold the loaded objects (buildCluster filled it).
   */
  readonly shared?: { readonly sim: Simulator; readonly store: ObjectStore };
}

/** RFC 3339 with microseconds, as events.k8s.io eventTime carries it. */
function microTimestamp(wall: WallClock): string {
  const ns = wall.clock.now;
  const micros = Math.floor((ns % 1e9) / 1e3);
  return wall.timestamp().replace(/Z$/, `.${String(micros).padStart(6, "0")}Z`);
}

export class LabCluster {
  /** kubectl's current namespace (config set-context --current --namespace, kubens). */
  namespace = "default";

  private constructor(
    readonly sim: Simulator,
    readonly wall: WallClock,
    readonly store: ObjectStore,
    readonly model: ClusterModel,
    readonly manager: ControllerManager,
    /** Random choices the API server makes (service addresses, node ports). */
    readonly apiRng: SeededRng,
  ) {}

  static create(load: LoadResult, options: LabClusterOptions): Result<LabCluster, string> {
    if (load.errors.length > 0) return err(load.errors.map(formatDiagnostic).join("\n"));
    const nodes = load.objects.filter((o) => o.object.kind === "Node").map((o) => o.object as Node);
    const built = buildClusterModel(load.cluster?.object, nodes);
    if (!built.ok) return err(built.error);
    const model = built.value;
    if (model.nodes.length === 0) return err("the lab needs a cluster: give a Cluster file or Node objects with -f");
    const sim = options.shared?.sim ?? new Simulator({ seed: model.seed });
    const wall = new WallClock(sim, options.epochMs ?? DEFAULT_EPOCH_MS);
    const store = options.shared?.store ?? storeFromLoad(load, { timestamp: () => wall.timestamp() });
    const namesRng = sim.rng.fork();
    const schedulerRng = sim.rng.fork();
    const apiRng = sim.rng.fork();
    for (const pod of store.list("Pod")) {
      if ((pod.spec?.volumes ?? []).some((v) => v.name.startsWith(API_ACCESS_VOLUME_PREFIX))) continue;
      store.modify("Pod", pod.metadata.namespace, pod.metadata.name, (p) => admitPod(p, namesRng));
    }
    const manager = new ControllerManager({
      store,
      clock: sim,
      rng: namesRng,
      ipAllocator: options.ipAllocator?.(model) ?? NodeBlockAllocator.fromCluster(model),
      scheduler: options.scheduler(store, schedulerRng, model.kubernetesVersion, { now: () => microTimestamp(wall) }),
      ...(options.kubelet === undefined ? {} : { kubelet: options.kubelet }),
      epochMs: wall.epochMs,
    });
    manager.start();
    const cluster = new LabCluster(sim, wall, store, model, manager, apiRng);
    cluster.settle();
    return ok(cluster);
  }

  get now(): number {
    return this.sim.now;
  }

  /** Runs everything due now (the reconcile passes a change has queued). */
  settle(): void {
    this.sim.runUntil(this.sim.now);
  }

  advance(ns: number): void {
    this.sim.runUntil(this.sim.now + Math.max(0, Math.round(ns)));
  }

  /** Runs event by event until `done()` holds or `limitNs` has passed; true when done. */
  runUntil(done: () => boolean, limitNs: number): boolean {
    this.settle();
    const end = this.sim.now + limitNs;
    while (!done()) {
      if (this.sim.now >= end) return false;
      const next = this.sim.nextEventTime;
      this.sim.runUntil(Number.isFinite(next) ? Math.min(end, Math.max(next, this.sim.now)) : end);
    }
    return true;
  }
}

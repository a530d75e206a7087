// The control plane's loop: after every change in the store (except Events) one reconcile pass
// is scheduled at the current simulated time; it runs the controllers, the scheduler and the
// kubelets over and over until nothing changes any more. Timed work (container start, graceful
// stop, tolerationSeconds, drain retries) arrives as clock events that change the store in turn.
import { KIND_NAMES, type KindName, type ObjectStore } from "../k8s/index.js";
import type { SeededRng } from "../util/rng.js";
import type { ControlClock } from "./clock.js";
import { DEFAULT_EPOCH_MS, WallClock } from "./clock.js";
import type { ControllerContext } from "./context.js";
import { DaemonSetController } from "./daemonset.js";
import { DeploymentController } from "./deployment.js";
import { DisruptionController } from "./disruption.js";
import { EventRecorder } from "./events.js";
import { GarbageCollector } from "./garbage-collector.js";
import type { PodIpAllocator } from "./ip-allocator.js";
import { Kubelets, type KubeletOptions } from "./kubelet.js";
import { NodeLifecycleController } from "./node-lifecycle.js";
import { ReplicaSetController } from "./replicaset.js";
import { TaintEvictionController } from "./taint-eviction.js";

/** What the manager needs of the scheduler (src/scheduler's Scheduler has it). */
export interface PodScheduler {
  /** Tries the pending pods, binds those that fit, records FailedScheduling for the others. */
  scheduleAll(): unknown;
}

export interface ControllerManagerOptions {
  readonly store: ObjectStore;
  readonly clock: ControlClock;
  readonly rng: SeededRng;
  readonly ipAllocator: PodIpAllocator;
  readonly scheduler?: PodScheduler;
  readonly kubelet?: KubeletOptions;
  /** Wall-clock time of simulated time 0 (default DEFAULT_EPOCH_MS). */
  readonly epochMs?: number;
  /** Upper bound of controller passes in one reconcile (default 100). */
  readonly maxPasses?: number;
}

const WATCHED: readonly KindName[] = KIND_NAMES.filter((k) => k !== "Event");

export class ControllerManager {
  readonly ctx: ControllerContext;
  readonly deployments: DeploymentController;
  readonly replicaSets: ReplicaSetController;
  readonly daemonSets: DaemonSetController;
  readonly disruption: DisruptionController;
  readonly kubelets: Kubelets;
  private readonly nodeLifecycle: NodeLifecycleController;
  private readonly taintEviction: TaintEvictionController;
  private readonly garbageCollector: GarbageCollector;
  private scheduler: PodScheduler | undefined;
  private changes = 0;
  private queued = false;
  private stopWatch: (() => void) | null = null;
  private readonly maxPasses: number;

  constructor(private readonly options: ControllerManagerOptions) {
    const wall = new WallClock(options.clock, options.epochMs ?? DEFAULT_EPOCH_MS);
    this.ctx = { store: options.store, wall, rng: options.rng, events: new EventRecorder(options.store, wall) };
    this.deployments = new DeploymentController(this.ctx);
    this.replicaSets = new ReplicaSetController(this.ctx);
    this.daemonSets = new DaemonSetController(this.ctx);
    this.disruption = new DisruptionController(this.ctx);
    this.kubelets = new Kubelets(this.ctx, options.ipAllocator, options.kubelet);
    this.nodeLifecycle = new NodeLifecycleController(this.ctx);
    this.taintEviction = new TaintEvictionController(this.ctx);
    this.garbageCollector = new GarbageCollector(this.ctx);
    this.scheduler = options.scheduler;
    this.maxPasses = options.maxPasses ?? 100;
  }

  /** Plugs in (or replaces) the scheduler. */
  setScheduler(scheduler: PodScheduler | undefined): void {
    this.scheduler = scheduler;
  }

  /** Starts watching the store and schedules a first pass. */
  start(): void {
    if (this.stopWatch !== null) return;
    this.stopWatch = this.options.store.watch(() => this.noteChange(), WATCHED);
    this.enqueue();
  }

  stop(): void {
    this.stopWatch?.();
    this.stopWatch = null;
  }

  private noteChange(): void {
    this.changes++;
    this.enqueue();
  }

  private enqueue(): void {
    if (this.queued) return;
    this.queued = true;
    this.options.clock.schedule(0, () => {
      this.queued = false;
      this.reconcile();
    });
  }

  /** Runs controller passes until a pass changes nothing (bounded by maxPasses). Returns the passes run. */
  reconcile(): number {
    let passes = 0;
    for (; passes < this.maxPasses; passes++) {
      const before = this.changes;
      this.nodeLifecycle.sync();
      this.deployments.sync();
      this.replicaSets.sync();
      this.daemonSets.sync();
      this.disruption.sync();
      this.scheduler?.scheduleAll();
      this.kubelets.sync();
      this.taintEviction.sync();
      this.garbageCollector.sync();
      if (this.changes === before) break;
    }
    return passes + 1;
  }
}

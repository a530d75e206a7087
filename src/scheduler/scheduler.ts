// The scheduler: keeps a cache and a queue current from the store (event-handlers.ts), schedules the
// pending pods of its profiles in queue order, binds them (spec.nodeName + PodScheduled), and marks
// the others Unschedulable with kube-scheduler's FailedScheduling event; preemption evicts victims.
import type { Pod } from "kubernetes-types/core/v1.js";
import type { KubeObject, ObjectStore } from "../k8s/index.js";
import type { SeededRng } from "../util/rng.js";
import { isAssigned, SchedulerCache } from "./cache.js";
import { defaultProfile, type SchedulerConfiguration, type SchedulerProfile } from "./config/profile.js";
import { ClusterEventHandlers } from "./event-handlers.js";
import { EventRecorder, type EventClock } from "./events.js";
import { Framework } from "./framework/framework.js";
import type { Handle } from "./framework/plugin.js";
import { podInfo, podKey } from "./pod-info.js";
import { mutableStatus, setCondition } from "./pod-status.js";
import { SchedulingQueue, type QueuedPod } from "./queue.js";
import { buildResult, type ScheduleResult } from "./result.js";
import { scheduleCycle, type CycleCursor, type CycleOutcome } from "./schedule-one.js";
import { DEFAULT_KUBE_VERSION, parseKubeVersion, type KubeVersion } from "./version.js";

export interface SchedulerOptions {
  /** One profile (default: kube-scheduler's default profile). */
  readonly profile?: SchedulerProfile;
  /** A whole configuration with several profiles; wins over `profile`. */
  readonly configuration?: SchedulerConfiguration;
  /** "v1.30.2" (default) or a parsed version: selects version-dependent wording. */
  readonly kubernetesVersion?: string | KubeVersion;
  /** Breaks score ties and picks the preemption start offset. */
  readonly rng: SeededRng;
  /** Timestamps for Events and pod conditions; left unset without it. */
  readonly clock?: EventClock;
}

const TERMINAL = new Set(["Succeeded", "Failed"]);

/** The creation revision the store encodes in uids it assigns; otherwise the resourceVersion. */
function creationOrder(pod: Pod): number {
  const m = /^00000000-0000-4000-8000-([0-9a-f]{12})$/.exec(pod.metadata?.uid ?? "");
  return m !== null ? parseInt(m[1]!, 16) : Number(pod.metadata?.resourceVersion ?? 0);
}

export class Scheduler {
  private readonly cache = new SchedulerCache();
  private readonly queue = new SchedulingQueue();
  private readonly frameworks = new Map<string, Framework>();
  private readonly percentages = new Map<string, number>();
  private readonly cursor: CycleCursor = { nextStartNodeIndex: 0 };
  private readonly recorder: EventRecorder;
  private readonly rng: SeededRng;
  private readonly clock: EventClock | null;
  private readonly unwatch: () => void;
  readonly version: KubeVersion;

  constructor(
    private readonly store: ObjectStore,
    options: SchedulerOptions,
  ) {
    const v = options.kubernetesVersion;
    const parsed = typeof v === "string" ? parseKubeVersion(v) : (v ?? DEFAULT_KUBE_VERSION);
    if (parsed === null) throw new RangeError(`Scheduler: invalid kubernetesVersion ${JSON.stringify(v)}`);
    this.version = parsed;
    this.rng = options.rng;
    this.clock = options.clock ?? null;
    this.recorder = new EventRecorder(store, this.clock);
    const handle: Handle = { cache: this.cache, store, version: parsed, rng: options.rng };
    const config = options.configuration ?? { percentageOfNodesToScore: 0, profiles: [options.profile ?? defaultProfile()] };
    for (const p of config.profiles) {
      this.frameworks.set(p.schedulerName, new Framework(p, handle));
      this.percentages.set(p.schedulerName, p.percentageOfNodesToScore ?? config.percentageOfNodesToScore);
    }
    for (const ns of store.list("Namespace")) this.cache.setNamespace(ns);
    for (const n of store.list("Node")) this.cache.addNode(n);
    const pending: KubeObject<"Pod">[] = [];
    for (const p of store.list("Pod")) {
      if (isAssigned(p)) this.cache.setPod(p);
      else if (this.isPendingHere(p)) pending.push(p);
    }
    const ts = (p: Pod): string => p.metadata?.creationTimestamp ?? "";
    pending.sort((a, b) => (ts(a) < ts(b) ? -1 : ts(a) > ts(b) ? 1 : creationOrder(a) - creationOrder(b)));
    for (const p of pending) this.queue.add(p);
    const handlers = new ClusterEventHandlers(this.cache, this.queue, (p) => this.isPendingHere(p));
    this.unwatch = store.watch((e) => handlers.handle(e), ["Node", "Pod", "Namespace"]);
  }

  /** Stops watching the store. */
  dispose(): void {
    this.unwatch();
  }

  /** Pods waiting to be scheduled ("ns/name"), those to be tried next first. */
  pending(): string[] {
    return this.queue.keys();
  }

  /**
   * Tries every pod of the active queue in order until it is empty; pods that fail wait for a cluster
   * event (which may come from a later pod of the same run being bound or a victim being evicted).
   */
  scheduleAll(): ScheduleResult[] {
    const results: ScheduleResult[] = [];
    for (let q = this.queue.pop(); q !== null; q = this.queue.pop()) {
      const r = this.attempt(q);
      if (r !== null) results.push(r);
    }
    return results;
  }

  /** One scheduling attempt of the given pending pod ("ns/name" or the object), now. */
  scheduleOne(pod: string | Pod): ScheduleResult | null {
    const key = typeof pod === "string" ? pod : podKey(pod);
    const [ns, name] = key.split("/") as [string, string];
    const current = this.store.get("Pod", ns, name);
    if (current === undefined || !this.isPendingHere(current)) return null;
    this.queue.delete(key);
    return this.attempt({ key, pod: current, timestamp: 0, attempts: 1, unschedulablePlugins: new Set() });
  }

  private isPendingHere(p: Pod): boolean {
    return (
      (p.spec?.nodeName ?? "") === "" &&
      !TERMINAL.has(p.status?.phase ?? "") &&
      p.metadata?.deletionTimestamp === undefined &&
      this.frameworks.has(p.spec?.schedulerName ?? "default-scheduler")
    );
  }

  private attempt(q: QueuedPod): ScheduleResult | null {
    const pod = this.store.get("Pod", q.pod.metadata?.namespace, q.pod.metadata?.name ?? "");
    if (pod === undefined || !this.isPendingHere(pod)) return null;
    const schedulerName = pod.spec?.schedulerName ?? "default-scheduler";
    const fwk = this.frameworks.get(schedulerName)!;
    const info = podInfo(pod);
    const outcome = scheduleCycle(fwk, this.cache, info, this.rng, this.cursor, this.percentages.get(schedulerName) ?? 0);
    const result = buildResult(info.key, outcome, this.cache.list());
    if (outcome.node !== null) this.bind(pod, outcome.node);
    else this.reject(q, pod, outcome);
    return result;
  }

  private bind(pod: KubeObject<"Pod">, node: string): void {
    const now = this.clock?.now();
    this.store.modify("Pod", pod.metadata.namespace, pod.metadata.name, (p) => {
      p.spec!.nodeName = node;
      setCondition(p, { type: "PodScheduled", status: "True" }, now);
    });
    this.recorder.record(pod, "Normal", "Scheduled", "Binding", `Successfully assigned ${pod.metadata.namespace}/${pod.metadata.name} to ${node}`);
  }

  private reject(q: QueuedPod, pod: KubeObject<"Pod">, outcome: CycleOutcome): void {
    this.queue.markUnschedulable({ ...q, pod }, outcome.unschedulablePlugins);
    const message = outcome.message ?? "";
    const fitError = message.startsWith("0/");
    const post = outcome.postFilter;
    const now = this.clock?.now();
    this.store.modify("Pod", pod.metadata.namespace, pod.metadata.name, (p) => {
      setCondition(p, { type: "PodScheduled", status: "False", reason: fitError ? "Unschedulable" : "SchedulerError", message }, now);
      if (post?.nominatedNode !== undefined) mutableStatus(p).nominatedNodeName = post.nominatedNode;
    });
    this.recorder.record(pod, "Warning", "FailedScheduling", "Scheduling", message);
    for (const victim of post?.victims ?? []) {
      this.recorder.record(victim.pod, "Normal", "Preempted", "Preempting", `Preempted by pod ${pod.metadata.uid ?? ""} on node ${post!.nominatedNode}`, pod);
      this.store.delete("Pod", victim.namespace, victim.name);
    }
  }
}

// The scheduler: watches the store (nodes, pods, namespaces), keeps its cache and queue current,
// schedules pending pods of its profiles in queue order, binds them (spec.nodeName + PodScheduled),
// marks the others Unschedulable with the FailedScheduling event, and retries them on cluster events.
import type { Node, Pod, PodCondition, PodStatus } from "kubernetes-types/core/v1.js";
import type { KubeObject, ObjectStore, StoreEvent } from "../k8s/index.js";
import type { SeededRng } from "../util/rng.js";
import { termMatches } from "./affinity-term.js";
import { isAssigned, SchedulerCache } from "./cache.js";
import { ASSIGNED_POD_ADD, ASSIGNED_POD_DELETE, ASSIGNED_POD_UPDATE, NODE_ADD, nodeUpdateEvents, type ClusterEvent } from "./cluster-events.js";
import { defaultProfile, type SchedulerConfiguration, type SchedulerProfile } from "./config/profile.js";
import { EventRecorder, type EventClock } from "./events.js";
import { Framework } from "./framework/framework.js";
import type { Handle } from "./framework/plugin.js";
import { requiredNodeAffinity } from "./node-selector.js";
import { podInfo, podKey, type PodInfo } from "./pod-info.js";
import { insufficientResources } from "./plugins/noderesources/fit.js";
import { PluginName } from "./plugins/names.js";
import { SchedulingQueue, type QueuedPod } from "./queue.js";
import { buildResult, type ScheduleResult } from "./result.js";
import { scheduleCycle, type CycleCursor, type CycleOutcome } from "./schedule-one.js";
import { TaintEffect, findUntoleratedTaint } from "./taints.js";
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
    this.unwatch = store.watch((e) => this.onEvent(e), ["Node", "Pod", "Namespace"]);
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

  private onEvent(e: StoreEvent): void {
    switch (e.kind) {
      case "Namespace":
        if (e.new !== undefined) this.cache.setNamespace(e.new as KubeObject<"Namespace">);
        else this.cache.removeNamespace(e.old!.metadata.name);
        return;
      case "Node":
        return this.onNode(e.old as Node | undefined, e.new as Node | undefined);
      case "Pod":
        return this.onPod(e.old as KubeObject<"Pod"> | undefined, e.new as KubeObject<"Pod"> | undefined);
      default:
        return;
    }
  }

  private onNode(oldNode: Node | undefined, newNode: Node | undefined): void {
    if (newNode === undefined) {
      this.cache.removeNode(oldNode?.metadata?.name ?? "");
      return;
    }
    if (oldNode === undefined) {
      this.cache.addNode(newNode);
      this.queue.moveAll(NODE_ADD, this.preCheck(newNode));
      return;
    }
    this.cache.updateNode(newNode);
    for (const ev of nodeUpdateEvents(oldNode, newNode)) this.queue.moveAll(ev, this.preCheck(newNode));
  }

  /** preCheckForNode: skip pods the changed node could not take anyway (resources, name, selector, ports, NoSchedule taints). */
  private preCheck(node: Node): (pod: Pod) => boolean {
    return (pod) => {
      const n = this.cache.get(node.metadata?.name ?? "");
      if (n === undefined) return false;
      const info = podInfo(pod);
      if (insufficientResources(info.requests, n).length > 0) return false;
      const want = pod.spec?.nodeName ?? "";
      if (want !== "" && want !== n.name) return false;
      if (!requiredNodeAffinity(pod).match(n)) return false;
      for (const hp of info.hostPorts) if (n.usedPorts.conflicts(hp)) return false;
      return findUntoleratedTaint(n.taints, pod.spec?.tolerations ?? [], (t) => t.effect === TaintEffect.NO_SCHEDULE) === null;
    };
  }

  private onPod(oldPod: KubeObject<"Pod"> | undefined, newPod: KubeObject<"Pod"> | undefined): void {
    const wasAssigned = oldPod !== undefined && isAssigned(oldPod);
    const nowAssigned = newPod !== undefined && isAssigned(newPod);
    if (newPod === undefined) {
      this.queue.delete(podKey(oldPod!));
      if (wasAssigned) {
        this.cache.removePod(podKey(oldPod!));
        this.queue.moveAll(ASSIGNED_POD_DELETE);
      }
      return;
    }
    if (nowAssigned) {
      this.queue.delete(podKey(newPod));
      this.cache.setPod(newPod);
      this.moveCrossTopology(podInfo(newPod), wasAssigned ? ASSIGNED_POD_UPDATE : ASSIGNED_POD_ADD);
      return;
    }
    if (wasAssigned) {
      // Finished (Succeeded/Failed) or unbound: it no longer takes room.
      this.cache.removePod(podKey(newPod));
      this.queue.moveAll(ASSIGNED_POD_DELETE);
    }
    if (!this.isPendingHere(newPod)) {
      this.queue.delete(podKey(newPod));
      return;
    }
    if (oldPod === undefined || wasAssigned) this.queue.add(newPod);
    else this.queue.update(oldPod, newPod);
  }

  /**
   * getUnschedulablePodsWithCrossTopologyTerm: a bound pod appearing or changing can only help pods
   * rejected by PodTopologySpread or whose required affinity terms match it.
   */
  private moveCrossTopology(pod: PodInfo, event: ClusterEvent): void {
    const nsLabels = this.cache.namespaces.get(pod.namespace) ?? {};
    const candidates = this.queue.unschedulablePods().filter((q) => {
      if (q.unschedulablePlugins.has(PluginName.POD_TOPOLOGY_SPREAD)) return true;
      return podInfo(q.pod).requiredAffinityTerms.some((t) => termMatches(t, pod.namespace, pod.labels, nsLabels));
    });
    this.queue.movePods(candidates, event);
  }
}

/** kubernetes-types marks status read-only (clients do not write it); the scheduler is the server side here. */
function mutableStatus(p: Pod): PodStatus {
  const w = p as { status?: PodStatus };
  return (w.status ??= {});
}

function setCondition(p: Pod, c: PodCondition, now: string | undefined): void {
  const status = mutableStatus(p);
  const list: PodCondition[] = (status.conditions ??= []);
  const i = list.findIndex((x) => x.type === c.type);
  const prev = i >= 0 ? list[i] : undefined;
  const next: PodCondition = { ...c };
  const changed = prev === undefined || prev.status !== c.status;
  const since = changed ? now : prev?.lastTransitionTime;
  if (since !== undefined) next.lastTransitionTime = since;
  if (i >= 0) list[i] = next;
  else list.push(next);
}

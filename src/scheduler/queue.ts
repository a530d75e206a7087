// The scheduling queue (internal/queue PriorityQueue, as cnisim needs it): an active heap ordered by
// PrioritySort (higher priority first, then earlier arrival) and an unschedulable set remembering which
// plugins rejected each pod; cluster events move pods back to active. Backoff and the periodic flush of
// long-unschedulable pods are time-based upstream and are not modelled: a moved pod is tried next.
import type { Pod } from "kubernetes-types/core/v1.js";
import { worthRequeuing, type ClusterEvent } from "./cluster-events.js";
import { podKey } from "./pod-info.js";

export interface QueuedPod {
  readonly key: string;
  pod: Pod;
  /** When the pod (re-)entered the queue, as a sequence number: the PrioritySort tie-breaker. */
  timestamp: number;
  attempts: number;
  /** Plugins that rejected it in its last attempt. */
  unschedulablePlugins: ReadonlySet<string>;
}

const priorityOf = (q: QueuedPod): number => q.pod.spec?.priority ?? 0;

/** PrioritySort's Less. */
export function lessQueued(a: QueuedPod, b: QueuedPod): boolean {
  const pa = priorityOf(a);
  const pb = priorityOf(b);
  return pa > pb || (pa === pb && a.timestamp < b.timestamp);
}

export class SchedulingQueue {
  private seq = 0;
  private heap: QueuedPod[] = [];
  private readonly active = new Map<string, QueuedPod>();
  private readonly unschedulable = new Map<string, QueuedPod>();

  get activeCount(): number {
    return this.active.size;
  }

  get unschedulableCount(): number {
    return this.unschedulable.size;
  }

  has(key: string): boolean {
    return this.active.has(key) || this.unschedulable.has(key);
  }

  /** Keys of every queued pod, active first in pop order, then unschedulable ones. */
  keys(): string[] {
    const act = [...this.active.values()].sort((a, b) => (lessQueued(a, b) ? -1 : 1)).map((q) => q.key);
    return [...act, ...this.unschedulable.keys()];
  }

  /** A new pending pod, queued behind those already there (at equal priority). */
  add(pod: Pod): void {
    const key = podKey(pod);
    if (this.has(key)) return;
    this.push({ key, pod, timestamp: this.seq++, attempts: 0, unschedulablePlugins: new Set() });
  }

  /** The pending pod changed: keep the newest object; a rejected pod whose spec or metadata changed is retried. */
  update(oldPod: Pod, newPod: Pod): void {
    const key = podKey(newPod);
    const act = this.active.get(key);
    if (act !== undefined) {
      act.pod = newPod;
      return;
    }
    const uns = this.unschedulable.get(key);
    if (uns === undefined) return this.add(newPod);
    uns.pod = newPod;
    if (podUpdated(oldPod, newPod)) {
      this.unschedulable.delete(key);
      this.push(uns);
    }
  }

  delete(key: string): void {
    this.active.delete(key);
    this.unschedulable.delete(key);
  }

  /** The next pod to schedule, or null. */
  pop(): QueuedPod | null {
    while (this.heap.length > 0) {
      const top = this.heap[0]!;
      const last = this.heap.pop()!;
      if (this.heap.length > 0) {
        this.heap[0] = last;
        this.siftDown(0);
      }
      if (this.active.get(top.key) === top) {
        this.active.delete(top.key);
        top.attempts++;
        return top;
      }
    }
    return null;
  }

  /** After a failed attempt: park the pod until an event one of `plugins` registered for. */
  markUnschedulable(q: QueuedPod, plugins: ReadonlySet<string>): void {
    q.unschedulablePlugins = plugins;
    q.timestamp = this.seq++;
    this.unschedulable.set(q.key, q);
  }

  /** MoveAllToActiveOrBackoffQueue: unschedulable pods worth retrying on `event` (and passing `preCheck`). */
  moveAll(event: ClusterEvent, preCheck: ((pod: Pod) => boolean) | null = null): void {
    this.movePods([...this.unschedulable.values()], event, preCheck);
  }

  /** Only the given candidates (e.g. pods whose affinity terms match a new pod). */
  movePods(candidates: readonly QueuedPod[], event: ClusterEvent, preCheck: ((pod: Pod) => boolean) | null = null): void {
    for (const q of candidates) {
      if (this.unschedulable.get(q.key) !== q) continue;
      if (preCheck !== null && !preCheck(q.pod)) continue;
      if (!worthRequeuing(q.unschedulablePlugins, event)) continue;
      this.unschedulable.delete(q.key);
      this.push(q);
    }
  }

  unschedulablePods(): QueuedPod[] {
    return [...this.unschedulable.values()];
  }

  private push(q: QueuedPod): void {
    this.active.set(q.key, q);
    this.heap.push(q);
    this.siftUp(this.heap.length - 1);
  }

  private siftUp(i: number): void {
    const h = this.heap;
    const item = h[i]!;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (!lessQueued(item, h[parent]!)) break;
      h[i] = h[parent]!;
      i = parent;
    }
    h[i] = item;
  }

  private siftDown(i: number): void {
    const h = this.heap;
    const n = h.length;
    const item = h[i]!;
    for (;;) {
      let child = 2 * i + 1;
      if (child >= n) break;
      if (child + 1 < n && lessQueued(h[child + 1]!, h[child]!)) child++;
      if (!lessQueued(h[child]!, item)) break;
      h[i] = h[child]!;
      i = child;
    }
    h[i] = item;
  }
}

/** isPodUpdated: a change beyond status, resourceVersion, generation, managedFields and finalizers. */
export function podUpdated(oldPod: Pod, newPod: Pod): boolean {
  const strip = (p: Pod): unknown => {
    const { resourceVersion: _rv, generation: _g, managedFields: _m, finalizers: _f, ...meta } = p.metadata ?? {};
    return { ...p, metadata: meta, status: undefined };
  };
  return JSON.stringify(strip(oldPod)) !== JSON.stringify(strip(newPod));
}

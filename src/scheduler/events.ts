// Events the scheduler records on pods, as kube-scheduler's events.k8s.io recorder writes them (seen
// through core/v1): Warning FailedScheduling with the FitError text, Normal Scheduled "Successfully
// assigned ns/pod to node", Normal Preempted on victims. Repeats of the same event grow its series.
import type { Event, ObjectReference, Pod } from "kubernetes-types/core/v1.js";
import type { KubeObject, ObjectStore } from "../k8s/index.js";

export const SCHEDULER_COMPONENT = "default-scheduler";

export interface EventClock {
  /** RFC 3339 time with microseconds, e.g. "2024-06-20T10:00:00.000000Z". */
  now(): string;
}

function reference(pod: Pod): ObjectReference {
  const ref: ObjectReference = { apiVersion: "v1", kind: "Pod", namespace: pod.metadata?.namespace ?? "default", name: pod.metadata?.name ?? "" };
  if (pod.metadata?.uid !== undefined) ref.uid = pod.metadata.uid;
  if (pod.metadata?.resourceVersion !== undefined) ref.resourceVersion = pod.metadata.resourceVersion;
  return ref;
}

export class EventRecorder {
  private seq = 0;
  /** Event names by (pod, type, reason, message): a repeat grows the series instead of adding an Event. */
  private readonly recorded = new Map<string, string>();

  constructor(
    private readonly store: ObjectStore,
    private readonly clock: EventClock | null,
    private readonly schedulerName: string = SCHEDULER_COMPONENT,
  ) {}

  record(pod: Pod, type: "Normal" | "Warning", reason: string, action: string, message: string, related?: Pod): void {
    const ns = pod.metadata?.namespace ?? "default";
    const name = pod.metadata?.name ?? "";
    const now = this.clock?.now();
    const key = `${ns}/${name}\u0000${type}\u0000${reason}\u0000${message}`;
    const previous = this.recorded.get(key);
    if (previous !== undefined && this.store.get("Event", ns, previous) !== undefined) {
      this.store.modify("Event", ns, previous, (e) => {
        const series = (e.series ??= {});
        series.count = (series.count ?? 1) + 1;
        if (now !== undefined) series.lastObservedTime = now;
      });
      return;
    }
    this.seq++;
    const event: KubeObject<"Event"> = {
      apiVersion: "v1",
      kind: "Event",
      metadata: { name: `${name}.${this.seq.toString(16).padStart(16, "0")}`, namespace: ns },
      involvedObject: reference(pod),
      reason,
      message,
      type,
      action,
      reportingComponent: this.schedulerName,
      reportingInstance: `${this.schedulerName}-cnisim`,
      source: {},
    } as KubeObject<"Event">;
    if (now !== undefined) (event as Event).eventTime = now;
    if (related !== undefined) (event as Event).related = reference(related);
    this.store.add(event);
    this.recorded.set(key, event.metadata.name);
  }
}

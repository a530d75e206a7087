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

  constructor(
    private readonly store: ObjectStore,
    private readonly clock: EventClock | null,
    private readonly schedulerName: string = SCHEDULER_COMPONENT,
  ) {}

  record(pod: Pod, type: "Normal" | "Warning", reason: string, action: string, message: string, related?: Pod): void {
    const ns = pod.metadata?.namespace ?? "default";
    const name = pod.metadata?.name ?? "";
    const now = this.clock?.now();
    const existing = this.store.list("Event", {
      namespace: ns,
      where: (e) => e.involvedObject.name === name && e.involvedObject.kind === "Pod" && e.reason === reason && e.message === message,
    })[0];
    if (existing !== undefined) {
      this.store.modify("Event", ns, existing.metadata.name, (e) => {
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
  }
}

// Events as the cluster's components record them (core/v1 Event objects in the store): one
// object per (source, involved object, type, reason, message), its count and lastTimestamp
// bumped when the same thing happens again, as client-go's event correlator does.
import type { Event } from "kubernetes-types/core/v1.js";
import type { KubeObject, ObjectStore } from "../k8s/index.js";
import type { WallClock } from "./clock.js";

export type EventType = "Normal" | "Warning";

export interface EventSource {
  readonly component: string;
  readonly host?: string;
}

export class EventRecorder {
  private readonly byIdentity = new Map<string, { namespace: string; name: string }>();

  constructor(
    private readonly store: ObjectStore,
    private readonly wall: WallClock,
  ) {}

  record(involved: KubeObject, type: EventType, reason: string, message: string, source: EventSource, fieldPath?: string): void {
    const namespace = involved.metadata.namespace ?? "default";
    const identity = [source.component, source.host ?? "", involved.kind, namespace, involved.metadata.name, involved.metadata.uid ?? "", type, reason, message].join("\u0000");
    const now = this.wall.timestamp();
    const known = this.byIdentity.get(identity);
    if (known !== undefined && this.store.get("Event", known.namespace, known.name) !== undefined) {
      this.store.modify("Event", known.namespace, known.name, (e) => {
        e.count = (e.count ?? 1) + 1;
        e.lastTimestamp = now;
      });
      return;
    }
    const epochNs = BigInt(this.wall.epochMs) * 1_000_000n + BigInt(Math.trunc(this.wall.clock.now));
    let name = `${involved.metadata.name}.${epochNs.toString(16)}`;
    for (let i = 1; this.store.get("Event", namespace, name) !== undefined; i++) name = `${involved.metadata.name}.${(epochNs + BigInt(i)).toString(16)}`;
    const event: KubeObject<"Event"> = {
      apiVersion: "v1",
      kind: "Event",
      metadata: { name, namespace },
      involvedObject: {
        apiVersion: involved.apiVersion,
        kind: involved.kind,
        name: involved.metadata.name,
        namespace: involved.kind === "Node" ? "" : namespace,
        ...(involved.metadata.uid === undefined ? {} : { uid: involved.metadata.uid }),
        ...(involved.metadata.resourceVersion === undefined ? {} : { resourceVersion: involved.metadata.resourceVersion }),
        ...(fieldPath === undefined ? {} : { fieldPath }),
      },
      type,
      reason,
      message,
      source: source.host === undefined ? { component: source.component } : { component: source.component, host: source.host },
      firstTimestamp: now,
      lastTimestamp: now,
      count: 1,
      reportingComponent: source.component,
      reportingInstance: source.host ?? "",
    } as KubeObject<"Event">;
    this.store.add(event);
    this.byIdentity.set(identity, { namespace, name });
  }
}

/** Events about one object, oldest first (kubectl describe's order). */
export function eventsFor(store: ObjectStore, obj: KubeObject): Event[] {
  const ns = obj.kind === "Node" ? undefined : (obj.metadata.namespace ?? "default");
  const events = store.list("Event", {
    where: (e) =>
      e.involvedObject.kind === obj.kind &&
      e.involvedObject.name === obj.metadata.name &&
      (ns === undefined || (e.involvedObject.namespace ?? e.metadata.namespace) === ns) &&
      (obj.metadata.uid === undefined || e.involvedObject.uid === undefined || e.involvedObject.uid === obj.metadata.uid),
  });
  const at = (e: Event): string => e.firstTimestamp ?? e.eventTime ?? e.lastTimestamp ?? "";
  return events.sort((a, b) => (at(a) < at(b) ? -1 : at(a) > at(b) ? 1 : a.metadata!.name! < b.metadata!.name! ? -1 : 1));
}

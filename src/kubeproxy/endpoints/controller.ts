// The endpoints and EndpointSlice controllers for the emulated API server: on every Service, Pod
// and Endpoints change they recompute the affected services' endpoints, write the Endpoints object
// into the store (as kube-controller-manager does) and keep the services' EndpointSlices (the store
// has no EndpointSlice kind, so they live here), telling listeners such as kube-proxy what changed.
import type { EndpointSlice } from "kubernetes-types/discovery/v1.js";
import type { KubeObject, ObjectStore, StoreEvent } from "../../k8s/index.js";
import { deriveEndpoints } from "./derive-endpoints.js";
import { deriveEndpointSlices, mirrorEndpointSlices } from "./derive-slices.js";
import { serviceSelector, type Pod, type Service } from "./pod-state.js";

/** What kube-proxy needs from whoever holds the EndpointSlices. */
export interface EndpointSliceSource {
  /** Every current slice, in namespace/service order. */
  list(): readonly EndpointSlice[];
  /** Called after the slices of a service changed; returns an unsubscribe function. */
  watch(listener: (namespace: string, service: string) => void): () => void;
}

export interface EndpointsControllerOptions {
  /** Write Endpoints objects into the store (default true). */
  readonly writeEndpoints?: boolean;
}

const keyOf = (ns: string, name: string): string => `${ns}/${name}`;

export class EndpointsController implements EndpointSliceSource {
  private readonly slices = new Map<string, EndpointSlice[]>();
  private readonly listeners: ((namespace: string, service: string) => void)[] = [];
  private unwatch: (() => void) | null = null;
  /** Messages about pods whose named ports did not resolve, latest reconcile per service. */
  readonly warnings = new Map<string, string[]>();
  private readonly writeEndpoints: boolean;

  constructor(
    private readonly store: ObjectStore,
    options: EndpointsControllerOptions = {},
  ) {
    this.writeEndpoints = options.writeEndpoints ?? true;
  }

  /** Reconciles every service, then follows store changes. */
  start(): void {
    if (this.unwatch !== null) return;
    for (const svc of this.store.list("Service")) this.reconcile(svc.metadata.namespace ?? "default", svc.metadata.name);
    this.unwatch = this.store.watch((e) => this.onEvent(e), ["Service", "Pod", "Endpoints", "Node"]);
  }

  stop(): void {
    this.unwatch?.();
    this.unwatch = null;
  }

  list(): readonly EndpointSlice[] {
    return [...this.slices.keys()].sort().flatMap((k) => this.slices.get(k)!);
  }

  slicesFor(namespace: string, service: string): readonly EndpointSlice[] {
    return this.slices.get(keyOf(namespace, service)) ?? [];
  }

  watch(listener: (namespace: string, service: string) => void): () => void {
    this.listeners.push(listener);
    return () => {
      const i = this.listeners.indexOf(listener);
      if (i >= 0) this.listeners.splice(i, 1);
    };
  }

  /** Recomputes one service's Endpoints and slices (deleting them when the service is gone). */
  reconcile(namespace: string, name: string): void {
    const key = keyOf(namespace, name);
    const svc = this.store.get("Service", namespace, name);
    let next: EndpointSlice[] = [];
    if (svc === undefined) {
      this.warnings.delete(key);
      if (this.writeEndpoints && this.store.get("Endpoints", namespace, name) !== undefined) this.store.delete("Endpoints", namespace, name);
    } else if (serviceSelector(svc) === null) {
      const eps = this.store.get("Endpoints", namespace, name);
      next = eps === undefined ? [] : mirrorEndpointSlices(svc, eps);
    } else {
      const pods = this.store.list("Pod", { namespace });
      const derived = deriveEndpoints(svc, pods);
      const sliced = deriveEndpointSlices(svc, pods, this.nodeZones());
      next = sliced?.slices ?? [];
      const warnings = [...(derived?.warnings ?? [])];
      if (warnings.length > 0) this.warnings.set(key, warnings);
      else this.warnings.delete(key);
      if (this.writeEndpoints && derived !== null) this.store.apply(derived.endpoints);
    }
    const before = this.slices.get(key) ?? [];
    if (JSON.stringify(before) === JSON.stringify(next)) return;
    if (next.length === 0) this.slices.delete(key);
    else this.slices.set(key, next);
    for (const l of [...this.listeners]) l(namespace, name);
  }

  private nodeZones(): Map<string, string> {
    const zones = new Map<string, string>();
    for (const n of this.store.list("Node")) {
      const z = n.metadata.labels?.["topology.kubernetes.io/zone"];
      if (z !== undefined) zones.set(n.metadata.name, z);
    }
    return zones;
  }

  private onEvent(e: StoreEvent): void {
    const obj = (e.new ?? e.old)!;
    const ns = obj.metadata.namespace ?? "default";
    switch (e.kind) {
      case "Service":
        this.reconcile(ns, obj.metadata.name);
        break;
      case "Endpoints": {
        // Only selectorless services take their slices from Endpoints.
        const svc = this.store.get("Service", ns, obj.metadata.name);
        if (svc !== undefined && serviceSelector(svc) === null) this.reconcile(ns, obj.metadata.name);
        break;
      }
      case "Pod":
        for (const svc of this.servicesFor(ns, [e.old as Pod | undefined, e.new as Pod | undefined])) this.reconcile(ns, svc.metadata.name);
        break;
      case "Node": {
        const zone = (o: typeof e.old): string | undefined => o?.metadata.labels?.["topology.kubernetes.io/zone"];
        if (zone(e.old) === zone(e.new)) break;
        for (const svc of this.store.list("Service")) this.reconcile(svc.metadata.namespace ?? "default", svc.metadata.name);
        break;
      }
      default:
        break;
    }
  }

  /** Services of `ns` whose selector matches the pod before or after the change. */
  private servicesFor(ns: string, pods: (Pod | undefined)[]): Service[] {
    return this.store.list("Service", { namespace: ns }).filter((svc: KubeObject<"Service">) => {
      const match = serviceSelector(svc);
      return match !== null && pods.some((p) => p !== undefined && match(p.metadata.labels ?? {}));
    });
  }
}

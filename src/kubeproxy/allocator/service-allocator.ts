// What the API server's Service REST storage allocates on create: a ClusterIP (unless headless or
// ExternalName), NodePorts for NodePort/LoadBalancer ports (ports with the same port number share
// one), and a healthCheckNodePort for LoadBalancer + externalTrafficPolicy Local. Requested values
// are honoured or rejected with the API server's wording; a failed request releases what it took.
import type { KubeObject, ObjectStore, StoreEvent } from "../../k8s/index.js";
import { err, ok, type Result } from "../../util/result.js";
import type { SeededRng } from "../../util/rng.js";
import { ClusterIpAllocator } from "./cluster-ip.js";
import { NodePortAllocator } from "./node-port.js";

type Service = KubeObject<"Service">;

export interface ServiceAllocationError {
  /** The API status reason: Invalid (a field) or InternalError (nothing left to allocate). */
  readonly reason: "Invalid" | "InternalError";
  /** "ns/name". */
  readonly service: string;
  /** The object path for Invalid, e.g. "spec.ports[0].nodePort". */
  readonly field: string;
  /** As kubectl prints it: `Service "web" is invalid: spec.clusterIPs: Invalid value: ...`. */
  readonly message: string;
}

export interface ServiceAllocatorSettings {
  readonly serviceCIDR: string;
  readonly nodePortRange: { readonly min: number; readonly max: number };
}

const goStrings = (xs: readonly string[]): string => `[]string{${xs.map((x) => JSON.stringify(x)).join(", ")}}`;

function needsNodePorts(svc: Service): boolean {
  const t = svc.spec?.type;
  return t === "NodePort" || (t === "LoadBalancer" && svc.spec?.allocateLoadBalancerNodePorts !== false);
}

function needsHealthCheckNodePort(svc: Service): boolean {
  return svc.spec?.type === "LoadBalancer" && svc.spec.externalTrafficPolicy === "Local";
}

interface Holding {
  readonly ips: readonly string[];
  readonly ports: readonly number[];
}

const keyOf = (svc: Service): string => `${svc.metadata.namespace ?? "default"}/${svc.metadata.name}`;

export class ServiceAllocator {
  /** What each Service (ns/name) holds. */
  private readonly owned = new Map<string, Holding>();

  constructor(
    readonly ips: ClusterIpAllocator,
    readonly ports: NodePortAllocator,
  ) {}

  static create(settings: ServiceAllocatorSettings, rng: SeededRng): Result<ServiceAllocator, string> {
    const ips = ClusterIpAllocator.create(settings.serviceCIDR, rng);
    if (!ips.ok) return ips;
    const { min, max } = settings.nodePortRange;
    if (!Number.isInteger(min) || !Number.isInteger(max) || min < 1 || max > 65535 || max < min) return err(`nodePortRange: ${min}-${max} is not a port range`);
    return ok(new ServiceAllocator(ips.value, new NodePortAllocator(min, max, rng)));
  }

  /** Addresses and ports a Service holds now. */
  holding(namespace: string, name: string): Holding | undefined {
    return this.owned.get(`${namespace}/${name}`);
  }

  /**
   * Allocates for a Service being created or updated: returns a copy with spec.clusterIP(s),
   * nodePorts and healthCheckNodePort filled in, or the API server's error. Values the Service
   * already holds are kept; on success the ones it no longer uses are released, on failure
   * nothing changes.
   */
  admit(input: Service): Result<Service, ServiceAllocationError> {
    const svc = structuredClone(input) as Service;
    const spec = (svc.spec ??= {});
    const name = svc.metadata.name;
    const id = keyOf(svc);
    const prev = this.owned.get(id) ?? { ips: [], ports: [] };
    const taken: { ips: string[]; ports: number[] } = { ips: [], ports: [] };
    const kept: { ips: string[]; ports: number[] } = { ips: [], ports: [] };
    const fail = (reason: ServiceAllocationError["reason"], field: string, detail: string): Result<Service, ServiceAllocationError> => {
      for (const ip of taken.ips) this.ips.release(ip);
      for (const p of taken.ports) this.ports.release(p);
      const message = reason === "Invalid" ? `Service ${JSON.stringify(name)} is invalid: ${field}: ${detail}` : `Internal error occurred: ${detail}`;
      return err({ reason, service: id, field, message });
    };
    const takeIp = (ip: string): Result<string, string> => {
      if (prev.ips.includes(ip)) {
        kept.ips.push(ip);
        return ok(ip);
      }
      const r = this.ips.allocate(ip);
      if (r.ok) taken.ips.push(r.value);
      return r;
    };
    const takePort = (port: number): Result<number, string> => {
      if (prev.ports.includes(port) && !kept.ports.includes(port)) {
        kept.ports.push(port);
        return ok(port);
      }
      const r = this.ports.allocate(port);
      if (r.ok) taken.ports.push(port);
      return r;
    };
    const nextPort = (): Result<number, string> => {
      const r = this.ports.allocateNext();
      if (r.ok) taken.ports.push(r.value);
      return r;
    };

    if (spec.type !== "ExternalName") {
      const requested = spec.clusterIP ?? spec.clusterIPs?.[0] ?? "";
      if (requested === "") {
        const ip = this.ips.allocateNext();
        if (!ip.ok) return fail("InternalError", "spec.clusterIPs", `failed to allocate a serviceIP: ${ip.error}`);
        taken.ips.push(ip.value);
        spec.clusterIP = ip.value;
        spec.clusterIPs = [ip.value];
      } else if (requested !== "None") {
        const ip = takeIp(requested);
        if (!ip.ok) return fail("Invalid", "spec.clusterIPs", `Invalid value: ${goStrings(spec.clusterIPs ?? [requested])}: failed to allocate IP ${requested}: ${ip.error}`);
        spec.clusterIP = ip.value;
        spec.clusterIPs = [ip.value];
      }
    }

    const ports = spec.ports ?? [];
    const byServicePort = new Map<number, number>();
    for (const [i, p] of ports.entries()) {
      if ((p.nodePort ?? 0) === 0 && !needsNodePorts(svc)) continue;
      const field = `spec.ports[${i}].nodePort`;
      const shared = byServicePort.get(p.port);
      if (shared === undefined) {
        // A nodePort asked for on any port with this number is used for all of them.
        const requested = (p.nodePort ?? 0) !== 0 ? p.nodePort! : (ports.find((q) => q.port === p.port && (q.nodePort ?? 0) !== 0)?.nodePort ?? 0);
        const r = requested !== 0 ? takePort(requested) : nextPort();
        if (!r.ok) {
          if (requested !== 0) return fail("Invalid", field, `Invalid value: ${requested}: ${r.error}`);
          return fail("InternalError", field, `failed to allocate a nodePort: ${r.error}`);
        }
        p.nodePort = r.value;
        byServicePort.set(p.port, r.value);
      } else if ((p.nodePort ?? 0) === 0) {
        p.nodePort = shared;
      } else if (p.nodePort !== shared) {
        const r = takePort(p.nodePort!);
        if (!r.ok) return fail("Invalid", field, `Invalid value: ${p.nodePort}: ${r.error}`);
      }
    }

    if (needsHealthCheckNodePort(svc)) {
      const want = spec.healthCheckNodePort ?? 0;
      const r = want !== 0 ? takePort(want) : nextPort();
      if (!r.ok) {
        const what = want !== 0 ? `failed to allocate requested HealthCheck NodePort ${want}` : "failed to allocate a HealthCheck NodePort 0";
        return fail("InternalError", "spec.healthCheckNodePort", `${what}: ${r.error}`);
      }
      spec.healthCheckNodePort = r.value;
    }

    for (const ip of prev.ips) if (!kept.ips.includes(ip)) this.ips.release(ip);
    for (const p of prev.ports) if (!kept.ports.includes(p)) this.ports.release(p);
    this.owned.set(id, { ips: [...kept.ips, ...taken.ips], ports: [...kept.ports, ...taken.ports] });
    return ok(svc);
  }

  /** Gives back everything a deleted Service held. */
  release(namespace: string, name: string): void {
    const id = `${namespace}/${name}`;
    const h = this.owned.get(id);
    if (h === undefined) return;
    for (const ip of h.ips) this.ips.release(ip);
    for (const p of h.ports) this.ports.release(p);
    this.owned.delete(id);
  }

  /**
   * Allocates for every Service already in the store, in creation order (resourceVersion), as if each
   * had been created through this allocator. Rejected Services are removed (the API server would
   * not have stored them) and returned with their errors.
   */
  allocateStore(store: ObjectStore): ServiceAllocationError[] {
    const errors: ServiceAllocationError[] = [];
    const services = store.list("Service").sort((a, b) => Number(a.metadata.resourceVersion ?? 0) - Number(b.metadata.resourceVersion ?? 0));
    for (const svc of services) {
      const r = this.admit(svc);
      if (!r.ok) {
        errors.push(r.error);
        store.delete("Service", svc.metadata.namespace, svc.metadata.name);
        continue;
      }
      store.update(r.value);
    }
    return errors;
  }

  /**
   * Keeps allocations in step with later store changes: allocates for added and modified Services
   * (an added Service that is rejected is removed again), releases deleted ones. Errors go to `onError`.
   */
  follow(store: ObjectStore, onError: (e: ServiceAllocationError) => void): () => void {
    return store.watch((e: StoreEvent) => {
      if (e.kind !== "Service") return;
      const after = e.new as Service | undefined;
      if (after === undefined) {
        const before = e.old as Service;
        this.release(before.metadata.namespace ?? "default", before.metadata.name);
        return;
      }
      const r = this.admit(after);
      if (!r.ok) {
        onError(r.error);
        if (e.type === "added") store.delete("Service", after.metadata.namespace, after.metadata.name);
        return;
      }
      // The stored version may have moved on while events were queued: update without a precondition.
      const { resourceVersion: _rv, ...meta } = r.value.metadata;
      store.update({ ...r.value, metadata: meta });
    }, ["Service"]);
  }
}

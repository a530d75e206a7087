// The API server side of kubectl's writes: create (namespace must exist; pods admitted, services
// given a cluster IP and node ports), apply (create, or update spec/labels/annotations and say
// whether anything changed), and delete (pods gracefully, namespaces by finalization, the rest
// at once with the garbage collector removing what they owned).
import type { Service } from "kubernetes-types/core/v1.js";
import { admitPod, deletePod, stableJson } from "../../controllers/index.js";
import { CLUSTER_DEFAULTS } from "../../k8s/index.js";
import type { KindName, KubeObject, StoreError } from "../../k8s/index.js";
import { formatIPv4, parseIPv4Cidr } from "../../util/ip.js";
import { err, ok, type Result } from "../../util/result.js";
import type { LabCluster } from "../cluster.js";
import { resourceOfKind } from "./resources.js";

export type ApiError = { readonly reason: string; readonly message: string };

const storeError = (e: StoreError): ApiError => ({ reason: e.code, message: e.message });


function allocateServiceAddresses(cluster: LabCluster, svc: Service): void {
  const spec = (svc.spec ??= {});
  const used = new Set(cluster.store.list("Service").map((s) => s.spec?.clusterIP));
  if ((spec.clusterIP ?? "") === "" && spec.type !== "ExternalName") {
    const cidr = parseIPv4Cidr(cluster.model.network?.serviceCIDR.text ?? CLUSTER_DEFAULTS.serviceCIDR)!;
    const size = 2 ** (32 - cidr.prefixLength);
    for (let tries = 0; tries < 64; tries++) {
      const ip = formatIPv4((cidr.address + 2 + cluster.apiRng.nextInt(size - 3)) >>> 0);
      if (!used.has(ip)) {
        spec.clusterIP = ip;
        spec.clusterIPs = [ip];
        break;
      }
    }
  }
  if (spec.type === "NodePort" || spec.type === "LoadBalancer") {
    const range = cluster.model.network?.kubeProxy.nodePortRange ?? { min: 30000, max: 32767 };
    const taken = new Set(cluster.store.list("Service").flatMap((s) => (s.spec?.ports ?? []).map((p) => p.nodePort)));
    for (const port of spec.ports ?? []) {
      if (port.nodePort !== undefined && port.nodePort !== 0) continue;
      for (let tries = 0; tries < 256; tries++) {
        const candidate = range.min + cluster.apiRng.nextInt(range.max - range.min + 1);
        if (!taken.has(candidate)) {
          port.nodePort = candidate;
          taken.add(candidate);
          break;
        }
      }
    }
  }
}

export function createObject(cluster: LabCluster, object: KubeObject): Result<KubeObject, ApiError> {
  const obj = structuredClone(object) as KubeObject;
  const type = resourceOfKind(obj.kind);
  if (type.namespaced) {
    const ns = obj.metadata.namespace ?? cluster.namespace;
    obj.metadata.namespace = ns;
    const namespace = cluster.store.get("Namespace", undefined, ns);
    if (namespace === undefined) return err({ reason: "NotFound", message: `namespaces "${ns}" not found` });
    if (namespace.metadata.deletionTimestamp !== undefined) {
      return err({ reason: "Forbidden", message: `${type.plural} "${obj.metadata.name}" is forbidden: unable to create new content in namespace ${ns} because it is being terminated` });
    }
  }
  if (obj.kind === "Pod") admitPod(obj, cluster.apiRng);
  if (obj.kind === "Service") allocateServiceAddresses(cluster, obj);
  const r = cluster.store.add(obj);
  return r.ok ? ok(r.value) : err(storeError(r.error));
}

export type ApplyOutcome = "created" | "configured" | "unchanged";
/**
 * What `kubectl apply` stores over `current`: the manifest's fields, the manifest's labels, the
 * manifest's annotations added to the ones already there (controllers' annotations stay), and
 * the fields the server filled in (a Service's cluster IPs and node ports) when the manifest
 * leaves them out.
 */
function applied(current: KubeObject, manifest: KubeObject): KubeObject {
  const next = structuredClone(manifest) as KubeObject;
  const annotations = { ...current.metadata.annotations, ...manifest.metadata.annotations };
  next.metadata = { ...current.metadata, labels: { ...manifest.metadata.labels } };
  if (Object.keys(annotations).length > 0) next.metadata.annotations = annotations;
  else delete next.metadata.annotations;
  if (manifest.metadata.labels === undefined) delete next.metadata.labels;
  (next as { status?: unknown }).status = (current as { status?: unknown }).status;
  if (next.kind === "Service" && current.kind === "Service") {
    const spec = (next.spec ??= {});
    const was = current.spec ?? {};
    if (spec.clusterIP === undefined && was.clusterIP !== undefined) spec.clusterIP = was.clusterIP;
    if (spec.clusterIPs === undefined && was.clusterIPs !== undefined) spec.clusterIPs = was.clusterIPs;
    for (const port of spec.ports ?? []) {
      const old = was.ports?.find((p) => p.port === port.port)?.nodePort;
      if (port.nodePort === undefined && old !== undefined) port.nodePort = old;
    }
  }
  return next;
}

export function applyObject(cluster: LabCluster, object: KubeObject): Result<ApplyOutcome, ApiError> {
  const kind = object.kind;
  const ns = resourceOfKind(kind).namespaced ? (object.metadata.namespace ?? cluster.namespace) : undefined;
  const current = cluster.store.get(kind, ns, object.metadata.name);
  if (current === undefined) {
    const r = createObject(cluster, object);
    return r.ok ? ok("created") : r;
  }
  // Pods may change labels and annotations only (the rest of a running pod's spec is immutable).
  const next = kind === "Pod" ? { ...structuredClone(current), metadata: applied(current, object).metadata } : applied(current, object);
  const { resourceVersion: _a, ...nextMeta } = next.metadata;
  const { resourceVersion: _b, ...currentMeta } = current.metadata;
  if (stableJson({ ...next, metadata: nextMeta }) === stableJson({ ...current, metadata: currentMeta })) return ok("unchanged");
  const r = cluster.store.update({ ...next, metadata: nextMeta } as KubeObject);
  return r.ok ? ok("configured") : err(storeError(r.error));
}

export interface DeleteOptions {
  /** Seconds; 0 removes at once (--force / --grace-period=0). */
  readonly gracePeriodSeconds?: number;
}

export function deleteObject(cluster: LabCluster, kind: KindName, namespace: string | undefined, name: string, options: DeleteOptions): Result<KubeObject, ApiError> {
  const current = cluster.store.get(kind, namespace, name);
  if (current === undefined) return err({ reason: "NotFound", message: `${resourceOfKind(kind).plural} "${name}" not found` });
  if (kind === "Pod") {
    const r = deletePod(cluster.manager.ctx, current as KubeObject<"Pod">, options.gracePeriodSeconds);
    return r.ok ? ok(current) : err(storeError(r.error));
  }
  if (kind === "Namespace") {
    if (current.metadata.deletionTimestamp !== undefined) return ok(current);
    const r = cluster.store.modify("Namespace", undefined, name, (n) => {
      (n.metadata as { deletionTimestamp?: string }).deletionTimestamp = cluster.wall.timestamp();
      (n as { status?: { phase?: string } }).status = { phase: "Terminating" };
    });
    return r.ok ? ok(current) : err(storeError(r.error));
  }
  const r = cluster.store.delete(kind, namespace, name);
  return r.ok ? ok(current) : err(storeError(r.error));
}

/** True once the object is gone (or replaced by one with another uid). */
export function isGone(cluster: LabCluster, obj: KubeObject): boolean {
  const now = cluster.store.get(obj.kind, obj.metadata.namespace, obj.metadata.name);
  return now === undefined || now.metadata.uid !== obj.metadata.uid;
}

// EndpointSlices as the EndpointSlice controller builds them for a service with a selector: one
// endpoint per selected pod with an IP (terminating pods included), conditions ready / serving /
// terminating, nodeName and zone, grouped into slices by the pod's resolved port set, at most 100
// endpoints per slice; a service with no endpoints gets one empty placeholder slice. Selectorless
// services get slices mirrored from their Endpoints object, as the mirroring controller does.
import { createHash } from "node:crypto";
import type { EndpointSlice, Endpoint, EndpointPort } from "kubernetes-types/discovery/v1.js";
import type { KubeObject } from "../../k8s/index.js";
import { SERVICE_NAME_LABEL } from "../endpoint-info.js";
import { findPodPort } from "./pod-port.js";
import { isPodReady, isPodTerminating, podIPv4, selectedPods, shouldPodBeInEndpoints, type Pod, type Service } from "./pod-state.js";

export const MAX_ENDPOINTS_PER_SLICE = 100;
export const MANAGED_BY_LABEL = "endpointslice.kubernetes.io/managed-by";
const ZONE_LABEL = "topology.kubernetes.io/zone";
/** The alphabet of the API server's generateName suffixes (utilrand.String). */
const NAME_ALPHABET = "bcdfghjklmnpqrstvwxz2456789";

/** A deterministic generateName suffix for `seed` (the API server draws it at random). */
function nameSuffix(seed: string): string {
  const h = createHash("sha256").update(seed).digest();
  let out = "";
  for (let i = 0; i < 5; i++) out += NAME_ALPHABET[h[i]! % NAME_ALPHABET.length];
  return out;
}

function sliceLabels(svc: Service, managedBy: string): Record<string, string> {
  const labels: Record<string, string> = {};
  for (const [k, v] of Object.entries(svc.metadata.labels ?? {})) if (k !== SERVICE_NAME_LABEL && k !== MANAGED_BY_LABEL) labels[k] = v;
  if (svc.spec?.clusterIP === "None") labels["service.kubernetes.io/headless"] = "";
  labels[SERVICE_NAME_LABEL] = svc.metadata.name;
  labels[MANAGED_BY_LABEL] = managedBy;
  return labels;
}

function slice(svc: Service, managedBy: string, key: string, index: number, ports: EndpointPort[], endpoints: Endpoint[]): EndpointSlice {
  const ns = svc.metadata.namespace ?? "default";
  return {
    apiVersion: "discovery.k8s.io/v1",
    kind: "EndpointSlice",
    metadata: { name: `${svc.metadata.name}-${nameSuffix(`${ns}/${svc.metadata.name}/${key}/${index}`)}`, namespace: ns, labels: sliceLabels(svc, managedBy) },
    addressType: "IPv4",
    endpoints,
    ports,
  };
}

const portsKey = (ports: readonly EndpointPort[]): string => ports.map((p) => `${p.name ?? ""}/${p.protocol ?? "TCP"}/${p.port ?? 0}`).join(",");

export interface DerivedSlices {
  readonly slices: EndpointSlice[];
  readonly warnings: string[];
}

/** Slices for a service with a selector (null without one). `nodeZones` maps node name to its zone label. */
export function deriveEndpointSlices(svc: Service, pods: readonly Pod[], nodeZones: ReadonlyMap<string, string> = new Map()): DerivedSlices | null {
  if (svc.spec?.selector === undefined || Object.keys(svc.spec.selector).length === 0) return null;
  const managedBy = "endpointslice-controller.k8s.io";
  const publishNotReady = svc.spec.publishNotReadyAddresses === true;
  const warnings: string[] = [];
  const groups = new Map<string, { ports: EndpointPort[]; endpoints: Endpoint[] }>();
  for (const pod of selectedPods(svc, pods)) {
    if (!shouldPodBeInEndpoints(pod, true)) continue;
    const ports: EndpointPort[] = [];
    for (const sp of svc.spec.ports ?? []) {
      const n = findPodPort(pod, sp);
      if (!n.ok) {
        warnings.push(n.error);
        continue;
      }
      ports.push({ name: sp.name ?? "", port: n.value, protocol: sp.protocol ?? "TCP", ...(sp.appProtocol !== undefined ? { appProtocol: sp.appProtocol } : {}) });
    }
    const serving = isPodReady(pod);
    const terminating = isPodTerminating(pod);
    // "ready" is never true for a terminating pod, unless publishNotReadyAddresses.
    const ready = publishNotReady || (serving && !terminating);
    const node = pod.spec?.nodeName ?? "";
    const zone = nodeZones.get(node);
    const ep: Endpoint = {
      addresses: [podIPv4(pod)],
      conditions: { ready, serving, terminating },
      targetRef: { kind: "Pod", namespace: pod.metadata.namespace ?? "default", name: pod.metadata.name, ...(pod.metadata.uid !== undefined ? { uid: pod.metadata.uid } : {}) },
      ...(node !== "" ? { nodeName: node } : {}),
      ...(zone !== undefined ? { zone } : {}),
    };
    const key = portsKey(ports);
    let g = groups.get(key);
    if (g === undefined) {
      g = { ports, endpoints: [] };
      groups.set(key, g);
    }
    g.endpoints.push(ep);
  }
  const slices: EndpointSlice[] = [];
  for (const [key, g] of [...groups.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    for (let i = 0; i * MAX_ENDPOINTS_PER_SLICE < g.endpoints.length; i++) {
      slices.push(slice(svc, managedBy, key, i, g.ports, g.endpoints.slice(i * MAX_ENDPOINTS_PER_SLICE, (i + 1) * MAX_ENDPOINTS_PER_SLICE)));
    }
  }
  if (slices.length === 0) slices.push(slice(svc, managedBy, "placeholder", 0, [], []));
  return { slices, warnings };
}

/** Slices mirrored from a selectorless service's Endpoints (EndpointSliceMirroring). */
export function mirrorEndpointSlices(svc: Service, endpoints: KubeObject<"Endpoints">): EndpointSlice[] {
  const managedBy = "endpointslicemirroring-controller.k8s.io";
  const out: EndpointSlice[] = [];
  (endpoints.subsets ?? []).forEach((ss, i) => {
    const ports: EndpointPort[] = (ss.ports ?? []).map((p) => ({ name: p.name ?? "", port: p.port, protocol: p.protocol ?? "TCP" }));
    const eps: Endpoint[] = [];
    const push = (addrs: typeof ss.addresses, ready: boolean): void => {
      for (const a of addrs ?? []) {
        if (a.ip.includes(":")) continue;
        eps.push({ addresses: [a.ip], conditions: { ready }, ...(a.nodeName !== undefined ? { nodeName: a.nodeName } : {}), ...(a.targetRef !== undefined ? { targetRef: a.targetRef } : {}) });
      }
    };
    push(ss.addresses, true);
    push(ss.notReadyAddresses, false);
    for (let j = 0; j * MAX_ENDPOINTS_PER_SLICE < eps.length; j++) {
      out.push(slice(svc, managedBy, `mirror/${i}`, j, ports, eps.slice(j * MAX_ENDPOINTS_PER_SLICE, (j + 1) * MAX_ENDPOINTS_PER_SLICE)));
    }
  });
  return out;
}

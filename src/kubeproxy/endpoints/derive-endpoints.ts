// The Endpoints object the endpoints controller writes for a service with a selector: one address
// per selected pod with an IP (ready pods in addresses, the others in notReadyAddresses unless
// publishNotReadyAddresses), ports resolved per pod, then repacked so pods serving the same port
// set share a subset (endpoints.RepackSubsets). Upstream orders ports and subsets by an object
// hash; here they are ordered by name/port and by first address, which is deterministic too.
// Addresses are sorted as upstream sorts them: by IP text, then pod UID.
import type { EndpointAddress, EndpointPort, EndpointSubset } from "kubernetes-types/core/v1.js";
import type { KubeObject } from "../../k8s/index.js";
import { findPodPort } from "./pod-port.js";
import { isPodReady, podIPv4, selectedPods, shouldPodBeInEndpoints, type Pod, type Service } from "./pod-state.js";

export interface DerivedEndpoints {
  readonly endpoints: KubeObject<"Endpoints">;
  /** Pods left out of a port because its named targetPort did not resolve. */
  readonly warnings: string[];
}

function portKey(p: EndpointPort): string {
  return `${p.name ?? ""}\u0000${String(p.port).padStart(5, "0")}\u0000${p.protocol ?? "TCP"}`;
}

function addressOf(pod: Pod): EndpointAddress {
  const meta = pod.metadata;
  const addr: EndpointAddress = {
    ip: podIPv4(pod),
    targetRef: { kind: "Pod", namespace: meta.namespace ?? "default", name: meta.name, ...(meta.uid !== undefined ? { uid: meta.uid } : {}) },
  };
  if (pod.spec?.nodeName !== undefined && pod.spec.nodeName !== "") addr.nodeName = pod.spec.nodeName;
  return addr;
}

/** addrsByIPAndUID: the IP text byte by byte (so "10.0.0.10" < "10.0.0.9"), then the UID. */
function compareAddress(a: EndpointAddress, b: EndpointAddress): number {
  if (a.ip !== b.ip) return a.ip < b.ip ? -1 : 1;
  const ua = a.targetRef?.uid ?? "";
  const ub = b.targetRef?.uid ?? "";
  return ua < ub ? -1 : ua > ub ? 1 : 0;
}

/** Endpoints for `svc` from `pods` (all pods; the selector picks). Null when the service has no selector. */
export function deriveEndpoints(svc: Service, pods: readonly Pod[]): DerivedEndpoints | null {
  if (svc.spec?.selector === undefined || Object.keys(svc.spec.selector).length === 0) return null;
  const tolerateUnready = svc.spec.publishNotReadyAddresses === true;
  const warnings: string[] = [];
  // RepackSubsets, first step: every port maps to the addresses offering it (and their readiness).
  const NO_PORT = "\u0002";
  const portDefs = new Map<string, EndpointPort | null>();
  const addrsByPort = new Map<string, Map<string, { addr: EndpointAddress; ready: boolean }>>();
  const offer = (pk: string, def: EndpointPort | null, addr: EndpointAddress, ready: boolean): void => {
    portDefs.set(pk, def);
    let set = addrsByPort.get(pk);
    if (set === undefined) {
      set = new Map();
      addrsByPort.set(pk, set);
    }
    const ak = `${addr.ip}\u0000${addr.targetRef?.uid ?? ""}`;
    const had = set.get(ak);
    set.set(ak, { addr, ready: ready || had?.ready === true });
  };
  for (const pod of selectedPods(svc, pods)) {
    if (!shouldPodBeInEndpoints(pod, tolerateUnready)) continue;
    const ready = tolerateUnready || isPodReady(pod);
    const addr = addressOf(pod);
    const servicePorts = svc.spec.ports ?? [];
    if (servicePorts.length === 0) {
      // Only headless services may have no ports; their addresses are kept without ports.
      if (svc.spec.clusterIP === "None") offer(NO_PORT, null, addr, ready);
      continue;
    }
    for (const sp of servicePorts) {
      const n = findPodPort(pod, sp);
      if (!n.ok) {
        warnings.push(n.error);
        continue;
      }
      const ep: EndpointPort = { port: n.value, protocol: sp.protocol ?? "TCP" };
      if (sp.name !== undefined && sp.name !== "") ep.name = sp.name;
      if (sp.appProtocol !== undefined) ep.appProtocol = sp.appProtocol;
      offer(portKey(ep), ep, addr, ready);
    }
  }
  // Second step: ports offered by exactly the same addresses share a subset.
  const groups = new Map<string, { addrs: Map<string, { addr: EndpointAddress; ready: boolean }>; ports: EndpointPort[] }>();
  for (const [pk, addrs] of addrsByPort) {
    const key = [...addrs.entries()]
      .map(([k, v]) => `${k}=${v.ready ? 1 : 0}`)
      .sort()
      .join("\u0001");
    let g = groups.get(key);
    if (g === undefined) {
      g = { addrs, ports: [] };
      groups.set(key, g);
    }
    const def = portDefs.get(pk);
    if (def !== undefined && def !== null) g.ports.push(def);
  }
  const subsets: EndpointSubset[] = [];
  for (const g of groups.values()) {
    const all = [...g.addrs.values()];
    const ready = all.filter((a) => a.ready).map((a) => a.addr);
    const notReady = all.filter((a) => !a.ready).map((a) => a.addr);
    const s: EndpointSubset = {};
    if (ready.length > 0) s.addresses = ready.sort(compareAddress);
    if (notReady.length > 0) s.notReadyAddresses = notReady.sort(compareAddress);
    if (g.ports.length > 0) s.ports = g.ports.sort((a, b) => (portKey(a) < portKey(b) ? -1 : portKey(a) > portKey(b) ? 1 : 0));
    subsets.push(s);
  }
  const first = (s: EndpointSubset): string => `${(s.addresses ?? s.notReadyAddresses ?? [])[0]?.ip ?? ""} ${(s.ports ?? []).map(portKey).join(",")}`;
  subsets.sort((a, b) => (first(a) < first(b) ? -1 : first(a) > first(b) ? 1 : 0));
  const labels = { ...(svc.metadata.labels ?? {}) };
  if (svc.spec.clusterIP === "None") labels["service.kubernetes.io/headless"] = "";
  const endpoints: KubeObject<"Endpoints"> = {
    apiVersion: "v1",
    kind: "Endpoints",
    metadata: { name: svc.metadata.name, namespace: svc.metadata.namespace ?? "default", ...(Object.keys(labels).length > 0 ? { labels } : {}) },
    ...(subsets.length > 0 ? { subsets } : {}),
  };
  return { endpoints, warnings };
}

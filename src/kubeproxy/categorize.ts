// Which endpoints a service port uses on this node (proxy.CategorizeEndpoints): ready endpoints,
// falling back to serving-and-terminating ones, separately for the Cluster and the Local policy.
// Topology hints are not modelled (cnisim's slices carry none), so every ready endpoint counts.
import type { EndpointInfo } from "./endpoint-info.js";
import { usesClusterEndpoints, usesLocalEndpoints, type ServicePortInfo } from "./service-port.js";

export interface CategorizedEndpoints {
  /** Endpoints for Cluster traffic policy (empty when the port never uses it). */
  readonly cluster: readonly EndpointInfo[];
  /** Endpoints for Local traffic policy (empty when the port never uses it). */
  readonly local: readonly EndpointInfo[];
  /** Union of the two: the endpoints that get a KUBE-SEP chain on this node. */
  readonly reachable: readonly EndpointInfo[];
  /** Some usable endpoint exists anywhere in the cluster. */
  readonly hasAny: boolean;
}

const servingTerminating = (ep: EndpointInfo): boolean => ep.serving && ep.terminating;

export function categorizeEndpoints(endpoints: readonly EndpointInfo[], svc: ServicePortInfo): CategorizedEndpoints {
  let cluster: EndpointInfo[] = [];
  let hasAny = false;
  if (usesClusterEndpoints(svc)) {
    cluster = endpoints.filter((ep) => ep.ready);
    if (cluster.length === 0) cluster = endpoints.filter(servingTerminating);
    hasAny = cluster.length > 0;
  }
  if (!usesLocalEndpoints(svc)) return { cluster, local: [], reachable: cluster, hasAny };

  let localReady = false;
  let localServingTerminating = false;
  for (const ep of endpoints) {
    if (ep.ready) {
      hasAny = true;
      if (ep.isLocal) localReady = true;
    } else if (servingTerminating(ep)) {
      hasAny = true;
      if (ep.isLocal) localServingTerminating = true;
    }
  }
  let local: EndpointInfo[] = [];
  if (localReady) local = endpoints.filter((ep) => ep.isLocal && ep.ready);
  else if (localServingTerminating) local = endpoints.filter((ep) => ep.isLocal && servingTerminating(ep));

  if (!usesClusterEndpoints(svc)) return { cluster, local, reachable: local, hasAny };
  // Ready local endpoints are all in `cluster` already; terminating ones may not be.
  if (!localServingTerminating || localReady) return { cluster, local, reachable: cluster, hasAny };
  const merged = new Map<string, EndpointInfo>();
  for (const ep of [...cluster, ...local]) merged.set(ep.endpoint, ep);
  const reachable = [...merged.values()].sort((a, b) => (a.endpoint < b.endpoint ? -1 : a.endpoint > b.endpoint ? 1 : 0));
  return { cluster, local, reachable, hasAny };
}

// The network side of metering for a built cluster (ClusterRuntime): each node's host namespace and
// eBPF maps, each pod's namespace, host-side interface and compiled policy map, and the requests its
// workloads served, as StoreMeteredCluster hooks. (metrics may not import cluster, so it lives here.)
import { DatapathAttachment } from "../../datapath/attach.js";
import type { DatapathMaps } from "../../datapath/lib/maps.js";
import type { ClusterRuntime } from "../cluster/index.js";
import type { KubeObject } from "../k8s/index.js";
import type { NodeNetwork, PodNetwork, StoreMeteringOptions, TcpCounterView } from "../metrics/index.js";
import type { NetDevice } from "../net/device.js";
import type { NetNamespace } from "../net/stack/namespace.js";
import { TcpStack } from "../net/tcp/index.js";

/** Something that counts the requests a pod's workloads answered (HTTP requests, DNS queries, datagrams). */
export interface RequestCounter {
  requestsServed(podKey: string): number;
}

/** The namespace's TCP counters once it uses TCP (a bound port); before that SNMP counts are used. */
function tcpOf(ns: NetNamespace): TcpCounterView | null {
  return ns.sockets.tcp.size > 0 ? TcpStack.of(ns).counters : null;
}

/** The maps the datapath programs on a device read (eBPF personality), or null when none is attached. */
export function datapathMapsOf(dev: NetDevice): DatapathMaps | null {
  for (const prog of [dev.tcIngress, dev.tcEgress, dev.xdp]) if (prog instanceof DatapathAttachment) return prog.ctx.maps;
  return null;
}

/** The runtime's own workload counters (`rt.workloads.requestsServed`), when the runtime has them. */
export function runtimeRequestCounter(runtime: ClusterRuntime): RequestCounter | null {
  const w = (runtime as { workloads?: unknown }).workloads;
  if (typeof w !== "object" || w === null) return null;
  const counter = w as Partial<RequestCounter>;
  return typeof counter.requestsServed === "function" ? (counter as RequestCounter) : null;
}

/**
 * Metering hooks for `runtime`; requests served are the runtime's workload counters (when it has
 * them) plus those of `extra` counters (e.g. servers a traffic driver started itself), read at each
 * scrape, so a caller may add counters to the array later.
 */
export function clusterMetering(runtime: ClusterRuntime, extra: readonly RequestCounter[] = []): Omit<StoreMeteringOptions, "epochMs"> {
  const own = runtimeRequestCounter(runtime);
  return {
    nodeNetwork(name: string): NodeNetwork | null {
      const node = runtime.node(name);
      return node === undefined ? null : { ns: node.ns, tcp: tcpOf(node.ns), maps: datapathMapsOf(node.eth0) };
    },
    podNetwork(pod: KubeObject<"Pod">): PodNetwork | null {
      const key = `${pod.metadata.namespace ?? "default"}/${pod.metadata.name}`;
      const p = runtime.pod(key);
      if (p === undefined || p.hostNetwork) return null;
      return { ns: p.ns, hostInterface: p.hostIface, tcp: tcpOf(p.ns), policyMap: runtime.policy.compiler.endpoint(key)?.map ?? null };
    },
    requestsServed(pod: KubeObject<"Pod">): number {
      const key = `${pod.metadata.namespace ?? "default"}/${pod.metadata.name}`;
      let n = own?.requestsServed(key) ?? 0;
      for (const c of extra) n += c.requestsServed(key);
      return n;
    },
  };
}

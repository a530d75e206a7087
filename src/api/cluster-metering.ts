// The network side of metering for a built cluster (ClusterRuntime): each node's host namespace and
// each pod's namespace, host-side interface and compiled policy map, as StoreMeteredCluster hooks.
// (metrics may not import cluster, so the adapter lives here, above both.)
import type { ClusterRuntime } from "../cluster/index.js";
import type { KubeObject } from "../k8s/index.js";
import type { NodeNetwork, PodNetwork, StoreMeteringOptions, TcpCounterView } from "../metrics/index.js";
import type { NetNamespace } from "../net/stack/namespace.js";
import { TcpStack } from "../net/tcp/index.js";

/** The namespace's TCP counters once it uses TCP (a bound port); before that SNMP counts are used. */
function tcpOf(ns: NetNamespace): TcpCounterView | null {
  return ns.sockets.tcp.size > 0 ? TcpStack.of(ns).counters : null;
}

export function clusterMetering(runtime: ClusterRuntime): Omit<StoreMeteringOptions, "epochMs"> {
  return {
    nodeNetwork(name: string): NodeNetwork | null {
      const node = runtime.node(name);
      // The eBPF personality's maps are private to the CNI plugin so far: their lookups are not charged.
      return node === undefined ? null : { ns: node.ns, tcp: tcpOf(node.ns), maps: null };
    },
    podNetwork(pod: KubeObject<"Pod">): PodNetwork | null {
      const key = `${pod.metadata.namespace ?? "default"}/${pod.metadata.name}`;
      const p = runtime.pod(key);
      if (p === undefined || p.hostNetwork) return null;
      return { ns: p.ns, hostInterface: p.hostIface, tcp: tcpOf(p.ns), policyMap: runtime.policy.compiler.endpoint(key)?.map ?? null };
    },
  };
}

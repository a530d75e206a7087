// Services on the cluster: ClusterIP/NodePort allocation as the API server does it, the endpoints
// controller (Endpoints objects and EndpointSlices from selectors and readiness), and kube-proxy in
// iptables mode on every node, each loading its ruleset into the node's netfilter. A CNI whose chains
// must come first (Calico's felix inserts cali-FORWARD at the top) re-asserts them after each sync. A
// dataplane that replaces kube-proxy (Calico eBPF) gets the Services and EndpointSlices instead.
import type { CniPlugin } from "../cni/plugin.js";
import type { NetworkModel } from "../k8s/cluster-model.js";
import type { ObjectStore } from "../k8s/store.js";
import { EndpointsController, KubeProxy, ServiceAllocator } from "../kubeproxy/index.js";
import { formatIPv4 } from "../util/ip.js";
import type { SeededRng } from "../util/rng.js";
import type { NodeRuntime } from "./runtime.js";

export interface ServicesRuntime {
  readonly allocator: ServiceAllocator;
  readonly endpoints: EndpointsController;
  readonly proxies: ReadonlyMap<string, KubeProxy>;
  readonly problems: string[];
  stop(): void;
}

export function startServices(
  store: ObjectStore,
  network: NetworkModel,
  nodes: ReadonlyMap<string, NodeRuntime>,
  rng: SeededRng,
  plugin: CniPlugin,
  afterSync: () => void,
): ServicesRuntime | string {
  const created = ServiceAllocator.create({ serviceCIDR: network.serviceCIDR.text, nodePortRange: network.kubeProxy.nodePortRange }, rng);
  if (!created.ok) return created.error;
  const allocator = created.value;
  const problems: string[] = [];
  for (const e of allocator.allocateStore(store)) problems.push(e.message);
  const stops: (() => void)[] = [allocator.follow(store, (e) => problems.push(e.message))];
  const endpoints = new EndpointsController(store);
  endpoints.start();
  stops.push(() => endpoints.stop());
  const proxies = new Map<string, KubeProxy>();
  if (plugin.replacesKubeProxy === true) {
    // The CNI's dataplane translates Services itself: feed it instead of running kube-proxy.
    const sync = (): void => plugin.syncServices?.(store.list("Service"), endpoints.list());
    sync();
    stops.push(store.watch(sync, ["Service"]), endpoints.watch(sync));
    return { allocator, endpoints, proxies, problems, stop: () => stops.forEach((s) => s()) };
  }
  for (const n of nodes.values()) {
    const clusterCIDR = network.kubeProxy.clusterCIDR?.text;
    const kp = KubeProxy.create({
      store,
      slices: endpoints,
      netfilter: n.ns.netfilter,
      config: { nodeName: n.name, nodeIP: formatIPv4(n.ip), ...(clusterCIDR === undefined ? {} : { clusterCIDR }) },
    });
    if (!kp.ok) return `kube-proxy on ${n.name}: ${kp.error.kind === "config" ? kp.error.message : JSON.stringify(kp.error)}`;
    const started = kp.value.start();
    if (!started.ok) problems.push(`kube-proxy on ${n.name}: ${JSON.stringify(started.error)}`);
    proxies.set(n.name, kp.value);
    stops.push(() => kp.value.stop());
  }
  afterSync();
  stops.push(store.watch(() => afterSync(), ["Service", "Pod", "Endpoints"]));
  stops.push(endpoints.watch(() => afterSync()));
  return { allocator, endpoints, proxies, problems, stop: () => stops.forEach((s) => s()) };
}

// Wires the topology to the control plane: an object store with the pods and services, the
// endpoints controller, and a KubeProxy on the node's namespace (kube-proxy defaults: no
// clusterCIDR, as in the seed lab).
import { ObjectStore } from "../../src/k8s/index.js";
import { EndpointsController, KubeProxy, type ProxierConfigInput } from "../../src/kubeproxy/index.js";
import { unwrap } from "../../src/util/result.js";
import { podObject, type PodOptions, type ServiceObject } from "./objects.js";
import { NODE_IP, NODE_NAME, Topology, type Pod } from "./topology.js";

export interface PodSpec extends PodOptions {
  readonly name: string;
  /** Only an object: a pod on another node, at this address (no namespace in this topology). */
  readonly remoteIP?: string;
  /** Serving port of a local pod (default 8080). */
  readonly serve?: number;
}

export interface Cluster {
  readonly topo: Topology;
  readonly store: ObjectStore;
  readonly endpoints: EndpointsController;
  readonly proxy: KubeProxy;
  pod(name: string): Pod;
}

export function cluster(seed: number, pods: readonly PodSpec[], services: readonly ServiceObject[], config: Partial<ProxierConfigInput> = {}, syncDelayNs?: number): Cluster {
  const topo = new Topology(seed);
  const store = new ObjectStore();
  for (const p of pods) {
    if (p.remoteIP !== undefined) {
      unwrap(store.add(podObject(p.name, p.remoteIP, { node: "node-b", ...p })));
      continue;
    }
    const pod = topo.addPod(p.name);
    pod.serve(p.serve ?? 8080);
    unwrap(store.add(podObject(p.name, pod.address, { node: NODE_NAME, ...p })));
  }
  for (const s of services) unwrap(store.add(s));
  const endpoints = new EndpointsController(store);
  endpoints.start();
  const proxy = unwrap(
    KubeProxy.create({
      store,
      slices: endpoints,
      netfilter: topo.node.netfilter,
      config: { nodeName: NODE_NAME, nodeIP: NODE_IP, ...config },
      ...(syncDelayNs !== undefined ? { syncDelayNs } : {}),
    }),
  );
  unwrap(proxy.start());
  return {
    topo,
    store,
    endpoints,
    proxy,
    pod: (name) => {
      const p = topo.pods.get(name);
      if (p === undefined) throw new Error(`no pod ${name}`);
      return p;
    },
  };
}

/** Name of the pod whose serving port got the SYN from `sport`, or "" when none did. */
export function backendOf(c: Cluster, sport: number): string {
  for (const [name, pod] of c.topo.pods) if (pod.syns.some((s) => s.sport === sport)) return name;
  return "";
}

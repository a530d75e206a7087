// buildCluster: from loaded YAML (or files) to a running ClusterRuntime. Order: the numeric cluster
// model, the simulator seeded from the Cluster's seed, the underlay, one namespace per node, the
// policy compiler fed from the store, the CNI plugin (nodes, then start: BGP sessions, peer routes),
// pods bound to nodes, the cluster DNS add-on, policies, Services, the pods' containers, and finally a
// run until the control plane converged (BGP sessions established and their UPDATEs applied), so that
// routes exist because they were announced.
import type { Node } from "kubernetes-types/core/v1.js";
import { CalicoPlugin } from "../cni/calico/plugin.js";
import type { BgpTransport } from "../cni/calico/bgp/transport.js";
import { tcpBgpTransport } from "../cni/calico/bgp/tcp-transport.js";
import type { CniNode } from "../cni/plugin.js";
import { Simulator } from "../engine/simulator.js";
import { buildClusterModel } from "../k8s/cluster-model.js";
import { formatDiagnostic } from "../k8s/diagnostics.js";
import { loadFiles, type LoadResult } from "../k8s/load.js";
import { storeFromLoad } from "../k8s/store-from-load.js";
import { NetWorld } from "../net/world.js";
import { policyOptionsFor, Personality } from "../policy/types.js";
import { err, ok, type Result } from "../util/result.js";
import { FlannelPlugin } from "../cni/flannel/plugin.js";
import { createCniPlugin } from "./cni-factory.js";
import { startServices } from "./services.js";
import type { ClusterError } from "./errors.js";
import { PolicyFeed } from "./policy-feed.js";
import { PodNetwork } from "./pods.js";
import { ClusterRuntime, type NodeRuntime } from "./runtime.js";
import { buildUnderlay, underlayMac } from "./underlay.js";
import { addDnsObjects, clusterDnsAddress, DNS_NAMESPACE, DNS_SERVICE, hasClusterDns, hasDnsPods, placeDnsPods } from "./dns-addon.js";
import type { ClusterModel } from "../k8s/cluster-model.js";
import type { ObjectStore, StoreOptions } from "../k8s/store.js";
import { parseIPv4 } from "../util/ip.js";

export interface BuildOptions {
  /** BGP transport per node (default: the model's TCP, port 179); null = no BGP (Calico then reaches pods only on their own node). */
  readonly bgpTransport?: ((node: CniNode) => BgpTransport) | null;
  /** Longest simulated time to wait for the control plane to converge (default 60 s). */
  readonly convergeWithinNs?: number;
  /** Keep following the store after the build (default true). */
  readonly watch?: boolean;
  /**
   * Who writes pod status: "runtime" (default) marks a wired pod Running and Ready as a kubelet would;
   * "external" leaves it to the controllers' kubelets (the lab).
   */
  readonly kubelet?: "runtime" | "external";
  /** Options of the object store, given the simulator (the lab stamps creation times from its wall clock). */
  readonly storeOptions?: (sim: Simulator) => StoreOptions;
}

const SECOND = 1_000_000_000;

export async function buildClusterFromFiles(paths: readonly string[], options: BuildOptions = {}): Promise<Result<ClusterRuntime, ClusterError>> {
  return buildCluster(await loadFiles(paths), options);
}

export function buildCluster(load: LoadResult, options: BuildOptions = {}): Result<ClusterRuntime, ClusterError> {
  if (load.errors.length > 0) return err({ source: load.errors[0]?.file ?? "input", reason: `the input has errors:\n${load.errors.map(formatDiagnostic).join("\n")}` });
  const source = load.cluster?.source.file ?? "input";
  if (load.cluster === undefined) return err({ source, reason: "no Cluster object (apiVersion cnisim.io/v1alpha1, kind Cluster): cnisim needs one to build the network" });
  const nodeObjects = load.objects.filter((o) => o.object.kind === "Node").map((o) => o.object as Node);
  const built = buildClusterModel(load.cluster.object, nodeObjects);
  if (!built.ok) return err({ source, reason: built.error });
  const model = built.value;
  const network = model.network!;
  const missing = model.nodes.find((n) => n.ipInt === null);
  if (missing !== undefined) return err({ source, reason: `node ${missing.name} has no underlay address` });

  const sim = new Simulator({ seed: model.seed });
  const world = new NetWorld(sim);
  const macRng = sim.rng.fork();
  const cniRng = sim.rng.fork();
  const svcRng = sim.rng.fork();
  const store = storeFromLoad(load, options.storeOptions?.(sim) ?? {});
  const underlay = buildUnderlay(world, macRng, network, model.nodes);
  const nodes = new Map<string, NodeRuntime>();
  const cniNodes = new Map<string, CniNode>();
  model.nodes.forEach((n, index) => {
    const a = underlay.nodes.get(n.name)!;
    nodes.set(n.name, { ...a, name: n.name });
    cniNodes.set(n.name, { name: n.name, index, ip: a.ip, ns: a.ns, uplink: a.eth0 });
  });

  // Calico's reading of ipBlock (it matches cluster addresses too) for every plugin cnisim models.
  const feed = new PolicyFeed(policyOptionsFor(Personality.IPTABLES));
  const created = createCniPlugin(
    { world, network, nodes: [...cniNodes.values()], policy: feed.compiler, rng: cniRng },
    {
      source,
      bgpTransport: options.bgpTransport === undefined ? (n) => tcpBgpTransport(n.ns) : options.bgpTransport,
      underlayMac: (ip) => underlayMac(underlay, ip),
    },
  );
  if (!created.ok) return created;
  const plugin = created.value;
  for (const n of cniNodes.values()) {
    const r = plugin.setupNode(n);
    if (!r.ok) return err({ source: r.error.subject, reason: r.error.reason });
    feed.setNode(n.name, [n.ip, ...plugin.nodeAddresses(n.name)]);
  }
  for (const ns of store.list("Namespace")) feed.setNamespace(ns);
  const started = plugin.start();
  if (!started.ok) return err({ source: started.error.subject, reason: started.error.reason });

  const calicoIpam = network.cni.plugin === "calico" || network.cni.plugin === "canal";
  const podNet = new PodNetwork(world, store, plugin, cniNodes, feed, calicoIpam, options.kubelet !== "external");
  for (const pod of store.list("Pod")) {
    const r = podNet.sync(pod);
    if (!r.ok) return r;
  }
  const dns = installClusterDns(store, model, podNet, sim, options.kubelet !== "external");
  if (!dns.ok) return dns;
  for (const p of store.list("NetworkPolicy")) feed.setPolicy(p);
  // Tunnel addresses may appear with the first pod (Calico's blocks in mode none): refresh node identities.
  for (const n of cniNodes.values()) feed.setNode(n.name, [n.ip, ...plugin.nodeAddresses(n.name)]);

  const reassert = (): void => {
    if (plugin instanceof CalicoPlugin || plugin instanceof FlannelPlugin) plugin.reassertChains();
  };
  const services = startServices(store, network, nodes, svcRng, plugin, reassert);
  if (typeof services === "string") return err({ source, reason: services });
  const timers = plugin instanceof CalicoPlugin ? plugin.timers : null;
  const runtime = new ClusterRuntime(model, store, sim, world, underlay, nodes, plugin, feed, podNet, services, timers, dns.value.address);
  runtime.errors.push(...dns.value.problems);
  runtime.startWorkloads();
  if (options.watch !== false) runtime.watch();
  const limit = sim.now + (options.convergeWithinNs ?? 60 * SECOND);
  if (plugin instanceof CalicoPlugin) while (!plugin.converged && sim.pending > 0 && sim.now < limit) sim.step();
  runtime.runUntilIdle();
  return ok(runtime);
}

/**
 * The cluster DNS: the user's own kube-system/kube-dns Service when the input has one, else (unless
 * `addons.dns: false`) kubeadm's CoreDNS add-on. Its pods are created after the user's pods, so the
 * users' pods keep the addresses they would have without it. Returns the kube-dns ClusterIP (null: none).
 */
function installClusterDns(
  store: ObjectStore,
  model: ClusterModel,
  podNet: PodNetwork,
  sim: Simulator,
  placePods: boolean,
): Result<{ address: number | null; problems: string[] }, ClusterError> {
  if (hasClusterDns(store)) {
    const ip = store.get("Service", DNS_NAMESPACE, DNS_SERVICE)?.spec?.clusterIP;
    return ok({ address: ip === undefined ? null : parseIPv4(ip), problems: [] });
  }
  const network = model.network!;
  if (!network.addons.dns) return ok({ address: null, problems: [] });
  const address = clusterDnsAddress(network.serviceCIDR.address);
  // DNS pods the user brought (k8s-app=kube-dns in kube-system) get the Service; otherwise kubeadm's coredns.
  const ownPods = hasDnsPods(store);
  addDnsObjects(store, address, !ownPods);
  if (!placePods || ownPods) return ok({ address, problems: [] });
  const placed = placeDnsPods(store, sim.rng.fork(), model.kubernetesVersion);
  for (const key of placed.pods) {
    const pod = store.get("Pod", DNS_NAMESPACE, key.slice(DNS_NAMESPACE.length + 1));
    if (pod === undefined) continue;
    const r = podNet.sync(pod);
    if (!r.ok) return r;
  }
  return ok({ address, problems: placed.problems });
}
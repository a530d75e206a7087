// Pods on the network: for every pod bound to a node (spec.nodeName) the runtime creates its network
// namespace, asks the CNI plugin to wire it (the address from the plugin's IPAM, honouring a requested
// one), writes status.podIP back to the store and tells the policy layer; relabelled pods only update
// policy; deleted or moved pods are torn down. hostNetwork pods share their node's namespace. When the
// controllers' kubelets run (markReady off), a pod is wired once its kubelet gave it an address from the
// same IPAM (ClusterRuntime.podIpAllocator).
import { CALICO_IP_ANNOTATION, requestedAddresses } from "../k8s/checks/objects.js";
import type { ObjectStore } from "../k8s/store.js";
import type { KubeObject } from "../k8s/types.js";
import type { NetDevice } from "../net/device.js";
import { NetNamespace } from "../net/stack/namespace.js";
import type { NetWorld } from "../net/world.js";
import type { CniNode, CniPlugin, HostPort } from "../cni/plugin.js";
import { formatIPv4, parseIPv4 } from "../util/ip.js";
import { err, ok, type Result } from "../util/result.js";
import type { ClusterError } from "./errors.js";
import type { PolicyFeed } from "./policy-feed.js";

export interface PodRuntime {
  /** "namespace/name". */
  readonly key: string;
  readonly namespace: string;
  readonly name: string;
  readonly node: string;
  readonly ns: NetNamespace;
  readonly ip: number;
  /** eth0 inside the pod (the node's eth0 for hostNetwork pods). */
  readonly iface: NetDevice;
  readonly hostIface: NetDevice | null;
  readonly hostNetwork: boolean;
}

export const podKeyOf = (pod: KubeObject<"Pod">): string => `${pod.metadata.namespace ?? "default"}/${pod.metadata.name}`;

export class PodNetwork {
  readonly pods = new Map<string, PodRuntime>();

  constructor(
    private readonly world: NetWorld,
    private readonly store: ObjectStore,
    private readonly plugin: CniPlugin,
    private readonly nodes: ReadonlyMap<string, CniNode>,
    private readonly feed: PolicyFeed,
    /** Calico IPAM reads the cni.projectcalico.org/ipAddrs annotation; other IPAMs ignore it. */
    private readonly honoursCalicoAnnotation: boolean,
    /** Act as the kubelet's status writer: a wired Pending pod becomes Running and Ready. */
    private readonly markReady: boolean,
  ) {}

  /** Brings the network in line with one pod object (added or modified). */
  sync(pod: KubeObject<"Pod">): Result<PodRuntime | null, ClusterError> {
    const key = podKeyOf(pod);
    const nodeName = pod.spec?.nodeName ?? "";
    const have = this.pods.get(key);
    if (nodeName === "" || pod.metadata.deletionTimestamp !== undefined) {
      if (have !== undefined) this.remove(key);
      return ok(null);
    }
    if (have !== undefined && have.node !== nodeName) this.remove(key);
    const current = this.pods.get(key);
    if (current !== undefined) {
      if (!current.hostNetwork) this.feed.setPod(pod, current.ip, current.node);
      return ok(current);
    }
    const node = this.nodes.get(nodeName);
    if (node === undefined) return err({ source: `pod ${key}`, reason: `spec.nodeName: node ${nodeName} is not in the cluster` });
    if (pod.spec?.hostNetwork === true) {
      const rt: PodRuntime = { key, namespace: pod.metadata.namespace ?? "default", name: pod.metadata.name, node: nodeName, ns: node.ns, ip: node.ip, iface: node.uplink, hostIface: null, hostNetwork: true };
      this.pods.set(key, rt);
      this.writeIp(pod, node.ip);
      return ok(rt);
    }
    const requested = this.requested(pod);
    if (!requested.ok) return requested;
    // With the controllers' kubelets, the pod is wired once its kubelet took an address (CNI ADD's caller).
    if (!this.markReady && requested.value === null) return ok(null);
    const ns = new NetNamespace(this.world, key, nodeName);
    const wired = this.plugin.setupPod({
      key,
      namespace: pod.metadata.namespace ?? "default",
      name: pod.metadata.name,
      handle: key,
      node,
      ns,
      requested: requested.value,
      hostPorts: hostPorts(pod),
    });
    if (!wired.ok) return err({ source: wired.error.subject, reason: wired.error.reason });
    const rt: PodRuntime = {
      key,
      namespace: pod.metadata.namespace ?? "default",
      name: pod.metadata.name,
      node: nodeName,
      ns,
      ip: wired.value.ip,
      iface: wired.value.podInterface,
      hostIface: wired.value.hostInterface,
      hostNetwork: false,
    };
    this.pods.set(key, rt);
    this.writeIp(pod, rt.ip);
    this.feed.setPod(pod, rt.ip, nodeName);
    return ok(rt);
  }

  remove(key: string): void {
    const rt = this.pods.get(key);
    if (rt === undefined) return;
    this.pods.delete(key);
    if (rt.hostNetwork) return;
    this.feed.removePod(key);
    this.plugin.teardownPod(key);
  }

  /** The address a pod asks for: Calico's ipAddrs annotation first, then status.podIP. */
  private requested(pod: KubeObject<"Pod">): Result<number | null, ClusterError> {
    const source = `pod ${podKeyOf(pod)}`;
    const ann = pod.metadata.annotations?.[CALICO_IP_ANNOTATION];
    if (ann !== undefined && this.honoursCalicoAnnotation) {
      const list = requestedAddresses(ann);
      const v4 = list?.map(parseIPv4).find((a) => a !== null);
      if (v4 === undefined || v4 === null) return err({ source, reason: `metadata.annotations[${CALICO_IP_ANNOTATION}]: no IPv4 address in ${ann}` });
      return ok(v4);
    }
    const status = pod.status?.podIP;
    if (status === undefined || status === "") return ok(null);
    const v4 = parseIPv4(status);
    return v4 === null ? err({ source, reason: `status.podIP: ${status} is not an IPv4 address` }) : ok(v4);
  }

  private writeIp(pod: KubeObject<"Pod">, ip: number): void {
    const text = formatIPv4(ip);
    const phase = pod.status?.phase;
    const ready = this.markReady && (phase === undefined || phase === "Pending");
    if (pod.status?.podIP === text && !ready) return;
    const node = this.nodes.get(pod.spec?.nodeName ?? "");
    this.store.modify("Pod", pod.metadata.namespace, pod.metadata.name, (p) => {
      const status: Record<string, unknown> = { ...p.status, podIP: text, podIPs: [{ ip: text }] };
      if (ready) {
        status["phase"] = "Running";
        if (node !== undefined) status["hostIP"] = formatIPv4(node.ip);
        status["conditions"] = ["Initialized", "Ready", "ContainersReady", "PodScheduled"].map((type) => ({ type, status: "True" }));
      }
      (p as { status?: unknown }).status = status;
    });
  }
}

function hostPorts(pod: KubeObject<"Pod">): HostPort[] {
  const out: HostPort[] = [];
  for (const c of pod.spec?.containers ?? []) {
    for (const p of c.ports ?? []) if (p.hostPort !== undefined) out.push({ hostPort: p.hostPort, containerPort: p.containerPort, protocol: (p.protocol ?? "TCP").toLowerCase() });
  }
  return out;
}

// A MeteredCluster read from the object store: Ready nodes report, Running pods are metered with the
// usage their annotations declare. The network parts (namespaces, interfaces, maps, TCP counters,
// request counts) come from optional hooks the cluster runtime provides; without them only declared
// usage and baselines count.
import type { DatapathMaps } from "../../datapath/lib/maps.js";
import type { PolicyMap } from "../../datapath/maps/policy.js";
import { nodeModel, type KubeObject, type ObjectStore } from "../k8s/index.js";
import type { NetDevice } from "../net/device.js";
import type { NetNamespace } from "../net/stack/namespace.js";
import type { MeteredCluster, MeteredNode, MeteredPod, TcpCounterView } from "./metered.js";
import { usageFromAnnotations, type DeclaredUsage, type UsageError } from "./usage.js";

export interface NodeNetwork {
  readonly ns: NetNamespace;
  readonly tcp: TcpCounterView | null;
  readonly maps: DatapathMaps | null;
}

export interface PodNetwork {
  readonly ns: NetNamespace | null;
  readonly hostInterface: NetDevice | null;
  readonly tcp: TcpCounterView | null;
  readonly policyMap: PolicyMap | null;
}

export interface StoreMeteringOptions {
  /** Wall-clock ms of simulated time 0 (to turn status.startTime into simulated time). */
  readonly epochMs: number;
  nodeNetwork?(name: string): NodeNetwork | null;
  podNetwork?(pod: KubeObject<"Pod">): PodNetwork | null;
  requestsServed?(pod: KubeObject<"Pod">): number;
}

export interface PodUsageProblem {
  readonly pod: string;
  readonly error: UsageError;
}

function reporting(node: KubeObject<"Node">): boolean {
  const ready = node.status?.conditions?.find((c) => c.type === "Ready");
  return ready === undefined || ready.status === "True";
}

export class StoreMeteredCluster implements MeteredCluster {
  private readonly problems = new Map<string, UsageError>();
  /** Parsed usage and start time per pod uid, valid while its resourceVersion holds. */
  private readonly podCache = new Map<string, { rv: string; usage: DeclaredUsage | null; startedAtNs: number }>();
  private readonly allocatableCache = new Map<string, { rv: string; allocatable: MeteredNode["allocatable"] }>();

  constructor(
    private readonly store: ObjectStore,
    private readonly options: StoreMeteringOptions,
  ) {}

  nodes(): MeteredNode[] {
    return this.store.list("Node").map((node) => {
      const rv = node.metadata.resourceVersion ?? "";
      let cached = this.allocatableCache.get(node.metadata.name);
      if (cached === undefined || cached.rv !== rv) {
        const m = nodeModel(node).allocatable;
        cached = { rv, allocatable: { cpuMilli: m.cpuMilli, memoryBytes: m.memoryBytes } };
        this.allocatableCache.set(node.metadata.name, cached);
      }
      const net = this.options.nodeNetwork?.(node.metadata.name) ?? null;
      return {
        name: node.metadata.name,
        labels: node.metadata.labels ?? {},
        allocatable: cached.allocatable,
        reporting: reporting(node),
        ns: net?.ns ?? null,
        tcp: net?.tcp ?? null,
        maps: net?.maps ?? null,
      };
    });
  }

  pods(): MeteredPod[] {
    const out: MeteredPod[] = [];
    const seen = new Set<string>();
    for (const pod of this.store.list("Pod")) {
      const nodeName = pod.spec?.nodeName;
      if (pod.status?.phase !== "Running" || nodeName === undefined || nodeName === "") continue;
      const key = `${pod.metadata.namespace ?? "default"}/${pod.metadata.name}`;
      const uid = pod.metadata.uid ?? key;
      seen.add(uid);
      const { usage, startedAtNs } = this.parsed(pod, key, uid);
      const net = this.options.podNetwork?.(pod) ?? null;
      const requests = this.options.requestsServed;
      out.push({
        uid,
        namespace: pod.metadata.namespace ?? "default",
        name: pod.metadata.name,
        nodeName,
        labels: pod.metadata.labels ?? {},
        containers: (pod.spec?.containers ?? []).map((c) => c.name),
        startedAtNs,
        ns: net?.ns ?? null,
        hostInterface: net?.hostInterface ?? null,
        tcp: net?.tcp ?? null,
        policyMap: net?.policyMap ?? null,
        usage,
        requestsServed: requests === undefined ? () => 0 : () => requests(pod),
      });
    }
    for (const uid of this.podCache.keys()) if (!seen.has(uid)) this.podCache.delete(uid);
    return out;
  }

  private parsed(pod: KubeObject<"Pod">, key: string, uid: string): { usage: DeclaredUsage | null; startedAtNs: number } {
    const rv = pod.metadata.resourceVersion ?? "";
    const cached = this.podCache.get(uid);
    if (cached !== undefined && cached.rv === rv) return cached;
    const usage = usageFromAnnotations(pod.metadata.annotations);
    if (usage.ok) this.problems.delete(key);
    else this.problems.set(key, usage.error);
    const started = Date.parse(pod.status?.startTime ?? pod.metadata.creationTimestamp ?? "");
    const entry = { rv, usage: usage.ok ? usage.value : null, startedAtNs: Number.isNaN(started) ? 0 : Math.max(0, (started - this.options.epochMs) * 1e6) };
    this.podCache.set(uid, entry);
    return entry;
  }

  /** Pods whose usage annotations could not be read (they are metered with the idle baseline). */
  usageProblems(): PodUsageProblem[] {
    return [...this.problems].map(([pod, error]) => ({ pod, error }));
  }
}

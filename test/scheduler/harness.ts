// Plugin-level harness (the role of upstream's st.MakePod/st.MakeNode and cache.NewSnapshot): nodes and
// pods as plain objects, a scheduler cache holding them, and helpers running one plugin's
// PreFilter+Filter or PreScore+Score+NormalizeScore the way the framework does.
import type { Container, Node, Pod, PodSpec, Taint } from "kubernetes-types/core/v1.js";
import { ObjectStore, type KubeObject } from "../../src/k8s/index.js";
import { SeededRng } from "../../src/util/rng.js";
import { SchedulerCache } from "../../src/scheduler/cache.js";
import { CycleState, type Handle, type Plugin } from "../../src/scheduler/framework/plugin.js";
import { podInfo } from "../../src/scheduler/pod-info.js";
import { Code, type Status } from "../../src/scheduler/status.js";
import { DEFAULT_KUBE_VERSION, type KubeVersion } from "../../src/scheduler/version.js";

export interface NodeOptions {
  labels?: Record<string, string>;
  taints?: Taint[];
  allocatable?: Record<string, string>;
  unschedulable?: boolean;
}

export function makeNode(name: string, o: NodeOptions = {}): KubeObject<"Node"> {
  const node: KubeObject<"Node"> = {
    apiVersion: "v1",
    kind: "Node",
    metadata: { name, labels: o.labels ?? {} },
    spec: {},
    status: { allocatable: o.allocatable ?? { cpu: "4", memory: "32Gi", pods: "110" } },
  };
  if (o.taints !== undefined) node.spec!.taints = o.taints;
  if (o.unschedulable === true) node.spec!.unschedulable = true;
  return node;
}

export interface PodOptions {
  namespace?: string;
  labels?: Record<string, string>;
  nodeName?: string;
  /** One container per entry (st.MakePod().Req(...)). */
  requests?: Record<string, string>[];
  initRequests?: Record<string, string>[];
  spec?: Partial<PodSpec>;
  terminating?: boolean;
  priority?: number;
}

let counter = 0;

export function makePod(name = `pod-${++counter}`, o: PodOptions = {}): KubeObject<"Pod"> {
  const containers = (reqs: Record<string, string>[] | undefined, prefix: string): Container[] =>
    (reqs ?? []).map((r, i) => ({ name: `${prefix}${i}`, image: "pause", resources: { requests: r } }));
  const spec: PodSpec = { containers: containers(o.requests, "c"), ...o.spec };
  if (o.initRequests !== undefined) spec.initContainers = containers(o.initRequests, "i");
  if (o.nodeName !== undefined) spec.nodeName = o.nodeName;
  if (o.priority !== undefined) spec.priority = o.priority;
  const pod: KubeObject<"Pod"> = {
    apiVersion: "v1",
    kind: "Pod",
    metadata: { name, namespace: o.namespace ?? "default", labels: o.labels ?? {} },
    spec,
  };
  if (o.terminating === true) (pod.metadata as { deletionTimestamp?: string }).deletionTimestamp = "2024-01-01T00:00:00Z";
  return pod;
}

export interface Cluster {
  readonly cache: SchedulerCache;
  readonly store: ObjectStore;
  readonly handle: Handle;
}

/** A cache (snapshot) of these nodes with these pods bound to them, plus a store with the same objects. */
export function cluster(nodes: readonly Node[], pods: readonly Pod[] = [], version: KubeVersion = DEFAULT_KUBE_VERSION, extra: readonly KubeObject[] = []): Cluster {
  const store = new ObjectStore();
  const cache = new SchedulerCache();
  for (const n of nodes) {
    store.add(n as KubeObject<"Node">);
    cache.addNode(n);
  }
  for (const p of pods) cache.setPod(p);
  for (const o of extra) {
    store.add(o);
    if (o.kind === "Namespace") cache.setNamespace(o as KubeObject<"Namespace">);
  }
  return { cache, store, handle: { cache, store, version, rng: new SeededRng(1) } };
}

/** PreFilter, then Filter on every node: the status per node (null = fits), or the PreFilter status for all. */
export function filterAll(plugin: Plugin, pod: Pod, c: Cluster): { pre: Status | null; nodeNames?: ReadonlySet<string>; nodes: Record<string, Status | null> } {
  const state = new CycleState(podInfo(pod));
  const out = plugin.preFilter?.(state) ?? { status: null };
  const nodes: Record<string, Status | null> = {};
  const skip = out.status?.code === Code.SKIP;
  for (const n of c.cache.list()) nodes[n.name] = skip ? null : (plugin.filter?.(state, n) ?? null);
  return out.nodeNames === undefined ? { pre: out.status, nodes } : { pre: out.status, nodeNames: out.nodeNames, nodes };
}

/** The filter verdict per node as upstream's tests state it: Success or the status code. */
export function codes(result: Record<string, Status | null>): Record<string, string> {
  return Object.fromEntries(Object.entries(result).map(([n, s]) => [n, s === null ? Code.SUCCESS : s.code]));
}

/** PreScore over the given nodes (all by default), Score each, NormalizeScore: name -> score. */
export function scoreAll(plugin: Plugin, pod: Pod, c: Cluster, only?: readonly string[]): Record<string, number> | "skip" {
  const state = new CycleState(podInfo(pod));
  const nodes = c.cache.list().filter((n) => only === undefined || only.includes(n.name));
  const pre = plugin.preScore?.(state, nodes) ?? null;
  if (pre !== null && pre.code === Code.SKIP) return "skip";
  const scores = nodes.map((n) => plugin.score!(state, n));
  plugin.normalizeScore?.(state, nodes, scores);
  return Object.fromEntries(nodes.map((n, i) => [n.name, scores[i]!]));
}

// The scheduler's view of the cluster (internal/cache + snapshot): NodeInfos with their assigned pods,
// kept current from store events, listed in node-tree order; plus namespace labels for namespaceSelectors.
import type { Namespace, Node, Pod } from "kubernetes-types/core/v1.js";
import type { Labels } from "../k8s/selector.js";
import { NodeInfo } from "./node-info.js";
import { NodeTree } from "./node-tree.js";
import { podInfo, podKey, type PodInfo } from "./pod-info.js";

/** Bound pods count on their node unless they have finished (the scheduler's informer drops terminal pods). */
export function isAssigned(pod: Pod): boolean {
  const phase = pod.status?.phase;
  return (pod.spec?.nodeName ?? "") !== "" && phase !== "Succeeded" && phase !== "Failed";
}

export class SchedulerCache {
  private readonly nodes = new Map<string, NodeInfo>();
  private readonly tree = new NodeTree();
  /** Assigned pods by key, with the node they are bound to (which may not exist yet). */
  private readonly assigned = new Map<string, { node: string; info: PodInfo }>();
  private listCache: NodeInfo[] | null = null;
  private readonly affinityNodes = new Set<NodeInfo>();
  private readonly antiAffinityNodes = new Set<NodeInfo>();
  readonly namespaces = new Map<string, Labels>();

  get nodeCount(): number {
    return this.nodes.size;
  }

  /** Every node in scheduling order. */
  list(): readonly NodeInfo[] {
    if (this.listCache === null) this.listCache = this.tree.list().map((n) => this.nodes.get(n)!);
    return this.listCache;
  }

  get(name: string): NodeInfo | undefined {
    return this.nodes.get(name);
  }

  /** NodeInfos.HavePodsWithAffinityList. */
  withPodAffinity(): readonly NodeInfo[] {
    return [...this.affinityNodes];
  }

  /** NodeInfos.HavePodsWithRequiredAntiAffinityList. */
  withRequiredAntiAffinity(): readonly NodeInfo[] {
    return [...this.antiAffinityNodes];
  }

  /** Keeps the two affinity sets current after the node's pods changed. */
  private track(n: NodeInfo | undefined): void {
    if (n === undefined) return;
    if (n.podsWithAffinity.length > 0 && this.nodes.get(n.name) === n) this.affinityNodes.add(n);
    else this.affinityNodes.delete(n);
    if (n.podsWithRequiredAntiAffinity.length > 0 && this.nodes.get(n.name) === n) this.antiAffinityNodes.add(n);
    else this.antiAffinityNodes.delete(n);
  }

  assignedPod(key: string): PodInfo | undefined {
    return this.assigned.get(key)?.info;
  }

  addNode(node: Node): void {
    const name = node.metadata?.name ?? "";
    const existing = this.nodes.get(name);
    if (existing !== undefined) return this.updateNode(node);
    const info = new NodeInfo(node);
    for (const a of this.assigned.values()) if (a.node === name) info.addPod(a.info);
    this.nodes.set(name, info);
    this.tree.add(name, info.labels);
    this.listCache = null;
    this.track(info);
  }

  updateNode(node: Node): void {
    const info = this.nodes.get(node.metadata?.name ?? "");
    if (info === undefined) return this.addNode(node);
    info.setNode(node);
    this.tree.update(info.name, info.labels);
    this.listCache = null;
  }

  removeNode(name: string): void {
    const info = this.nodes.get(name);
    if (info === undefined) return;
    this.nodes.delete(name);
    this.track(info);
    this.tree.remove(name);
    this.listCache = null;
  }

  /** Adds, moves or drops the pod according to its current binding. */
  setPod(pod: Pod): void {
    const key = podKey(pod);
    this.removePod(key);
    if (!isAssigned(pod)) return;
    const info = podInfo(pod);
    const node = pod.spec!.nodeName!;
    this.assigned.set(key, { node, info });
    const n = this.nodes.get(node);
    n?.addPod(info);
    this.track(n);
  }

  removePod(key: string): void {
    const a = this.assigned.get(key);
    if (a === undefined) return;
    this.assigned.delete(key);
    const n = this.nodes.get(a.node);
    n?.removePod(key);
    this.track(n);
  }

  setNamespace(ns: Namespace): void {
    this.namespaces.set(ns.metadata?.name ?? "", ns.metadata?.labels ?? {});
  }

  removeNamespace(name: string): void {
    this.namespaces.delete(name);
  }
}

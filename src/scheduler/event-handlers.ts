// Store events -> scheduler cache and queue (the scheduler's informer handlers, eventhandlers.go):
// nodes and bound pods update the cache; each change moves the unschedulable pods that one of the
// plugins which rejected them registered for, as the scheduling queue's move-to-active does.
import type { Node, Pod } from "kubernetes-types/core/v1.js";
import type { KubeObject, StoreEvent } from "../k8s/index.js";
import { termMatches } from "./affinity-term.js";
import { isAssigned, type SchedulerCache } from "./cache.js";
import { ASSIGNED_POD_ADD, ASSIGNED_POD_DELETE, ASSIGNED_POD_UPDATE, NODE_ADD, nodeUpdateEvents, type ClusterEvent } from "./cluster-events.js";
import { requiredNodeAffinity } from "./node-selector.js";
import { podInfo, podKey, type PodInfo } from "./pod-info.js";
import { insufficientResources } from "./plugins/noderesources/fit.js";
import { PluginName } from "./plugins/names.js";
import type { SchedulingQueue } from "./queue.js";
import { findUntoleratedTaint, TaintEffect } from "./taints.js";

export class ClusterEventHandlers {
  constructor(
    private readonly cache: SchedulerCache,
    private readonly queue: SchedulingQueue,
    private readonly isPendingHere: (pod: Pod) => boolean,
  ) {}

  handle(e: StoreEvent): void {
    switch (e.kind) {
      case "Namespace":
        if (e.new !== undefined) this.cache.setNamespace(e.new as KubeObject<"Namespace">);
        else this.cache.removeNamespace(e.old!.metadata.name);
        return;
      case "Node":
        return this.onNode(e.old as Node | undefined, e.new as Node | undefined);
      case "Pod":
        return this.onPod(e.old as KubeObject<"Pod"> | undefined, e.new as KubeObject<"Pod"> | undefined);
      default:
        return;
    }
  }

  private onNode(oldNode: Node | undefined, newNode: Node | undefined): void {
    if (newNode === undefined) {
      this.cache.removeNode(oldNode?.metadata?.name ?? "");
      return;
    }
    if (oldNode === undefined) {
      this.cache.addNode(newNode);
      this.queue.moveAll(NODE_ADD, this.preCheck(newNode));
      return;
    }
    this.cache.updateNode(newNode);
    for (const ev of nodeUpdateEvents(oldNode, newNode)) this.queue.moveAll(ev, this.preCheck(newNode));
  }

  /** preCheckForNode: skip pods the changed node could not take anyway (resources, name, selector, ports, NoSchedule taints). */
  private preCheck(node: Node): (pod: Pod) => boolean {
    return (pod) => {
      const n = this.cache.get(node.metadata?.name ?? "");
      if (n === undefined) return false;
      const info = podInfo(pod);
      if (insufficientResources(info.requests, n).length > 0) return false;
      const want = pod.spec?.nodeName ?? "";
      if (want !== "" && want !== n.name) return false;
      if (!requiredNodeAffinity(pod).match(n)) return false;
      for (const hp of info.hostPorts) if (n.usedPorts.conflicts(hp)) return false;
      return findUntoleratedTaint(n.taints, pod.spec?.tolerations ?? [], (t) => t.effect === TaintEffect.NO_SCHEDULE) === null;
    };
  }

  private onPod(oldPod: KubeObject<"Pod"> | undefined, newPod: KubeObject<"Pod"> | undefined): void {
    const wasAssigned = oldPod !== undefined && isAssigned(oldPod);
    const nowAssigned = newPod !== undefined && isAssigned(newPod);
    if (newPod === undefined) {
      this.queue.delete(podKey(oldPod!));
      if (wasAssigned) {
        this.cache.removePod(podKey(oldPod!));
        this.queue.moveAll(ASSIGNED_POD_DELETE);
      }
      return;
    }
    if (nowAssigned) {
      this.queue.delete(podKey(newPod));
      this.cache.setPod(newPod);
      this.moveCrossTopology(podInfo(newPod), wasAssigned ? ASSIGNED_POD_UPDATE : ASSIGNED_POD_ADD);
      return;
    }
    if (wasAssigned) {
      // Finished (Succeeded/Failed) or unbound: it no longer takes room.
      this.cache.removePod(podKey(newPod));
      this.queue.moveAll(ASSIGNED_POD_DELETE);
    }
    if (!this.isPendingHere(newPod)) {
      this.queue.delete(podKey(newPod));
      return;
    }
    if (oldPod === undefined || wasAssigned) this.queue.add(newPod);
    else this.queue.update(oldPod, newPod);
  }

  /**
   * getUnschedulablePodsWithCrossTopologyTerm: a bound pod appearing or changing can only help pods
   * rejected by PodTopologySpread or whose required affinity terms match it.
   */
  private moveCrossTopology(pod: PodInfo, event: ClusterEvent): void {
    const nsLabels = this.cache.namespaces.get(pod.namespace) ?? {};
    const candidates = this.queue.unschedulablePods().filter((q) => {
      if (q.unschedulablePlugins.has(PluginName.POD_TOPOLOGY_SPREAD)) return true;
      return podInfo(q.pod).requiredAffinityTerms.some((t) => termMatches(t, pod.namespace, pod.labels, nsLabels));
    });
    this.queue.movePods(candidates, event);
  }
}

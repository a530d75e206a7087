// Node-level aggregate the filters and scorers read (framework.NodeInfo): the node, its pods (and the
// subsets with affinity), the sum of their requests, the non-zero requests used for scoring, used host
// ports. The numbers the hot loops read are plain fields of this one object (no pointer chasing).
import type { Node, Taint } from "kubernetes-types/core/v1.js";
import type { Labels } from "../k8s/selector.js";
import { HostPortInfo } from "./host-ports.js";
import type { PodInfo } from "./pod-info.js";
import { allocatableOf } from "./resources.js";

export class NodeInfo {
  node: Node;
  name: string;
  labels: Labels;
  taints: readonly Taint[];
  unschedulable: boolean;
  /** Allocatable: cpu in millicores, memory and ephemeral storage in bytes, the pod count limit, other resources. */
  allocMilliCPU = 0;
  allocMemory = 0;
  allocEphemeral = 0;
  allocPods = 0;
  allocScalar: ReadonlyMap<string, number> = new Map();
  /** Sums of the requests of the node's pods. */
  reqMilliCPU = 0;
  reqMemory = 0;
  reqEphemeral = 0;
  readonly reqScalar = new Map<string, number>();
  /** Sums of cpu and memory requests with the scheduler's defaults for unset requests (scoring). */
  nonZeroMilliCPU = 0;
  nonZeroMemory = 0;
  readonly pods: PodInfo[] = [];
  readonly podsWithAffinity: PodInfo[] = [];
  readonly podsWithRequiredAntiAffinity: PodInfo[] = [];
  usedPorts = new HostPortInfo();

  constructor(node: Node) {
    this.node = node;
    this.name = node.metadata?.name ?? "";
    this.labels = {};
    this.taints = [];
    this.unschedulable = false;
    this.setNode(node);
  }

  setNode(node: Node): void {
    this.node = node;
    this.labels = node.metadata?.labels ?? {};
    this.taints = node.spec?.taints ?? [];
    this.unschedulable = node.spec?.unschedulable === true;
    const a = allocatableOf(node.status?.allocatable);
    this.allocMilliCPU = a.milliCPU;
    this.allocMemory = a.memory;
    this.allocEphemeral = a.ephemeralStorage;
    this.allocPods = a.pods;
    this.allocScalar = a.scalar;
  }

  addPod(p: PodInfo): void {
    this.pods.push(p);
    if (p.hasPodAffinity) this.podsWithAffinity.push(p);
    if (p.hasRequiredAntiAffinity) this.podsWithRequiredAntiAffinity.push(p);
    this.account(p, 1);
  }

  /** Removes the pod with this key; false when it is not here. */
  removePod(key: string): boolean {
    const i = this.pods.findIndex((p) => p.key === key);
    if (i < 0) return false;
    const p = this.pods[i]!;
    this.pods.splice(i, 1);
    dropKey(this.podsWithAffinity, key);
    dropKey(this.podsWithRequiredAntiAffinity, key);
    this.account(p, -1);
    return true;
  }

  /** A copy whose pod lists and sums can change without touching this one (preemption dry runs). */
  clone(): NodeInfo {
    const c = new NodeInfo(this.node);
    c.pods.push(...this.pods);
    c.podsWithAffinity.push(...this.podsWithAffinity);
    c.podsWithRequiredAntiAffinity.push(...this.podsWithRequiredAntiAffinity);
    c.reqMilliCPU = this.reqMilliCPU;
    c.reqMemory = this.reqMemory;
    c.reqEphemeral = this.reqEphemeral;
    for (const [k, v] of this.reqScalar) c.reqScalar.set(k, v);
    c.nonZeroMilliCPU = this.nonZeroMilliCPU;
    c.nonZeroMemory = this.nonZeroMemory;
    c.usedPorts = this.usedPorts.clone();
    return c;
  }

  private account(p: PodInfo, sign: 1 | -1): void {
    const r = p.requests;
    this.reqMilliCPU += sign * r.milliCPU;
    this.reqMemory += sign * r.memory;
    this.reqEphemeral += sign * r.ephemeralStorage;
    for (const [k, v] of r.scalar) {
      const next = (this.reqScalar.get(k) ?? 0) + sign * v;
      if (next === 0) this.reqScalar.delete(k);
      else this.reqScalar.set(k, next);
    }
    this.nonZeroMilliCPU += sign * p.nonZeroRequests.milliCPU;
    this.nonZeroMemory += sign * p.nonZeroRequests.memory;
    for (const hp of p.hostPorts) this.usedPorts.add(hp, sign);
  }
}

function dropKey(list: PodInfo[], key: string): void {
  const i = list.findIndex((p) => p.key === key);
  if (i >= 0) list.splice(i, 1);
}

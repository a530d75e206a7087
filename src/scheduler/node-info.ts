// Node-level aggregate the filters and scorers read (framework.NodeInfo): the node, its pods (and the
// subsets with affinity), the sum of their requests, the non-zero requests used for scoring, used host ports.
import type { Node, Taint } from "kubernetes-types/core/v1.js";
import type { Labels } from "../k8s/selector.js";
import { HostPortInfo } from "./host-ports.js";
import type { PodInfo } from "./pod-info.js";
import { allocatableOf, type Allocatable } from "./resources.js";

/** Mutable resource sums of a node. */
export class Requested {
  milliCPU = 0;
  memory = 0;
  ephemeralStorage = 0;
  readonly scalar = new Map<string, number>();

  add(p: PodInfo, sign: 1 | -1): void {
    const r = p.requests;
    this.milliCPU += sign * r.milliCPU;
    this.memory += sign * r.memory;
    this.ephemeralStorage += sign * r.ephemeralStorage;
    for (const [k, v] of r.scalar) {
      const next = (this.scalar.get(k) ?? 0) + sign * v;
      if (next === 0) this.scalar.delete(k);
      else this.scalar.set(k, next);
    }
  }

  copyFrom(o: Requested): void {
    this.milliCPU = o.milliCPU;
    this.memory = o.memory;
    this.ephemeralStorage = o.ephemeralStorage;
    for (const [k, v] of o.scalar) this.scalar.set(k, v);
  }
}

export class NodeInfo {
  node: Node;
  name: string;
  labels: Labels;
  taints: readonly Taint[];
  unschedulable: boolean;
  allocatable: Allocatable;
  readonly pods: PodInfo[] = [];
  readonly podsWithAffinity: PodInfo[] = [];
  readonly podsWithRequiredAntiAffinity: PodInfo[] = [];
  readonly requested = new Requested();
  /** Sums of cpu and memory requests with the scheduler's defaults for unset requests. */
  nonZeroMilliCPU = 0;
  nonZeroMemory = 0;
  usedPorts = new HostPortInfo();

  constructor(node: Node) {
    this.node = node;
    this.name = node.metadata?.name ?? "";
    this.labels = node.metadata?.labels ?? {};
    this.taints = node.spec?.taints ?? [];
    this.unschedulable = node.spec?.unschedulable === true;
    this.allocatable = allocatableOf(node.status?.allocatable);
  }

  setNode(node: Node): void {
    this.node = node;
    this.labels = node.metadata?.labels ?? {};
    this.taints = node.spec?.taints ?? [];
    this.unschedulable = node.spec?.unschedulable === true;
    this.allocatable = allocatableOf(node.status?.allocatable);
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
    c.requested.copyFrom(this.requested);
    c.nonZeroMilliCPU = this.nonZeroMilliCPU;
    c.nonZeroMemory = this.nonZeroMemory;
    c.usedPorts = this.usedPorts.clone();
    return c;
  }

  private account(p: PodInfo, sign: 1 | -1): void {
    this.requested.add(p, sign);
    this.nonZeroMilliCPU += sign * p.nonZeroRequests.milliCPU;
    this.nonZeroMemory += sign * p.nonZeroRequests.memory;
    for (const hp of p.hostPorts) this.usedPorts.add(hp, sign);
  }
}

function dropKey(list: PodInfo[], key: string): void {
  const i = list.findIndex((p) => p.key === key);
  if (i >= 0) list.splice(i, 1);
}

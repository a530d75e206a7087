// Cumulative resource use at one instant: each pod's CPU time (its workload's declared usage or the
// idle baseline, plus the datapath work of its namespace and host-side interface) and memory; each
// node's CPU time (system baseline + host-namespace datapath work + its pods) and memory.
import type { CostModel } from "./cost-model.js";
import { collectDevice, collectMaps, collectNamespace, collectPolicy } from "./collect.js";
import type { MeteredCluster, MeteredNode, MeteredPod } from "./metered.js";
import { Work } from "./work.js";
import type { NetDevice } from "../net/device.js";

const NS_PER_SECOND = 1e9;

export interface PodAccount {
  readonly pod: MeteredPod;
  /** CPU ns since the pod started: workload + datapath. */
  readonly cpuNs: number;
  readonly workloadCpuNs: number;
  readonly datapathCpuNs: number;
  readonly memoryBytes: number;
  readonly work: Work;
}

export interface NodeAccount {
  readonly node: MeteredNode;
  /** CPU ns since simulated time 0, pods included (pods that are gone are added by the caller). */
  readonly cpuNs: number;
  readonly systemCpuNs: number;
  /** Datapath CPU of the host namespace (not charged to a pod). */
  readonly hostDatapathCpuNs: number;
  readonly memoryBytes: number;
  readonly conntrackEntries: number;
  /** All datapath work on the node, its pods' included. */
  readonly work: Work;
}

export interface Accounts {
  readonly timeNs: number;
  readonly nodes: readonly NodeAccount[];
  readonly pods: readonly PodAccount[];
}

/** A pod's datapath work: its namespace, its host-side interface and its policy decisions. */
export function podWork(pod: MeteredPod): Work {
  const w = new Work();
  if (pod.ns !== null) collectNamespace(pod.ns, w, pod.tcp);
  if (pod.hostInterface !== null) collectDevice(pod.hostInterface, w);
  if (pod.policyMap !== null) collectPolicy(pod.policyMap, w);
  return w;
}

export function accountPod(pod: MeteredPod, model: CostModel, nowNs: number): PodAccount {
  // Rates times seconds (not ns times nanocores / 1e9) keep whole-second windows exact in doubles.
  const runningSeconds = Math.max(0, nowNs - pod.startedAtNs) / NS_PER_SECOND;
  const requests = pod.requestsServed();
  const u = pod.usage;
  const workloadCpuNs =
    u === null ? model.idleCpuNanoCores * runningSeconds + model.idleRequestCpuNs * requests : u.cpuNanoCores * runningSeconds + u.cpuNsPerRequest * requests;
  const memoryBytes = u === null ? model.idleMemoryBytes : u.memoryBytes + u.memoryBytesPerRequest * requests;
  const work = podWork(pod);
  const datapathCpuNs = work.cpuNs(model);
  return { pod, cpuNs: workloadCpuNs + datapathCpuNs, workloadCpuNs, datapathCpuNs, memoryBytes, work };
}

export function accountNode(node: MeteredNode, pods: readonly PodAccount[], model: CostModel, nowNs: number): NodeAccount {
  const host = new Work();
  let conntrackEntries = 0;
  if (node.ns !== null) {
    const podInterfaces = new Set<NetDevice>();
    for (const p of pods) if (p.pod.hostInterface !== null) podInterfaces.add(p.pod.hostInterface);
    collectNamespace(node.ns, host, node.tcp, podInterfaces);
    conntrackEntries += node.ns.netfilter.conntrack.count;
  }
  if (node.maps !== null) {
    collectMaps(node.maps, host);
    conntrackEntries += node.maps.ct.size;
  }
  const systemCpuNs = model.systemCpuNanoCores * (nowNs / NS_PER_SECOND);
  const hostDatapathCpuNs = host.cpuNs(model);
  const work = new Work();
  work.addAll(host);
  let cpuNs = systemCpuNs + hostDatapathCpuNs;
  let memoryBytes = model.systemMemoryBytes + conntrackEntries * model.conntrackEntryBytes;
  for (const p of pods) {
    cpuNs += p.cpuNs;
    memoryBytes += p.memoryBytes;
    work.addAll(p.work);
  }
  return { node, cpuNs, systemCpuNs, hostDatapathCpuNs, memoryBytes, conntrackEntries, work };
}

/** Everything's cumulative use at nowNs. */
export function accountCluster(cluster: MeteredCluster, model: CostModel, nowNs: number): Accounts {
  const pods = cluster.pods().map((p) => accountPod(p, model, nowNs));
  const byNode = new Map<string, PodAccount[]>();
  for (const p of pods) {
    const list = byNode.get(p.pod.nodeName);
    if (list === undefined) byNode.set(p.pod.nodeName, [p]);
    else list.push(p);
  }
  const nodes = cluster.nodes().map((n) => accountNode(n, byNode.get(n.name) ?? [], model, nowNs));
  return { timeNs: nowNs, nodes, pods };
}

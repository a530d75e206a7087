// metrics-server's arithmetic on simulated time: scrape cumulative usage every resolution interval,
// keep the last two points per node and pod, and report CPU as the rate between them (window =
// their distance, timestamp = the newer one) and memory as the newer value. Objects seen once have
// no metrics yet, like upstream; a node that stops reporting loses them.
import type { Simulator } from "../engine/simulator.js";
import { accountCluster, type Accounts } from "./accountant.js";
import type { CostModel } from "./cost-model.js";
import type { MeteredCluster } from "./metered.js";

interface Point {
  readonly timeNs: number;
  readonly cpuNs: number;
  readonly memoryBytes: number;
}

interface History {
  prev: Point | null;
  last: Point;
}

export interface ResourceUsage {
  /** Simulated time of the newer sample. */
  readonly timestampNs: number;
  readonly windowNs: number;
  readonly cpuNanoCores: number;
  readonly memoryBytes: number;
}

export interface NodeUsage extends ResourceUsage {
  readonly name: string;
  readonly labels: Readonly<Record<string, string>>;
}

export interface ContainerUsage {
  readonly name: string;
  readonly cpuNanoCores: number;
  readonly memoryBytes: number;
}

export interface PodUsage extends ResourceUsage {
  readonly namespace: string;
  readonly name: string;
  readonly labels: Readonly<Record<string, string>>;
  readonly containers: readonly ContainerUsage[];
}

function rate(h: History): { windowNs: number; cpuNanoCores: number } | null {
  if (h.prev === null || h.last.timeNs <= h.prev.timeNs) return null;
  const windowNs = h.last.timeNs - h.prev.timeNs;
  // metrics-server: int64(float64(cpu2 - cpu1) / window.Seconds())
  return { windowNs, cpuNanoCores: Math.max(0, Math.floor((h.last.cpuNs - h.prev.cpuNs) / (windowNs / 1e9))) };
}

/** Adds a sample; one at the same instant as the newest replaces it (the window is kept). */
function record(map: Map<string, History>, key: string, p: Point): void {
  const h = map.get(key);
  if (h === undefined) map.set(key, { prev: null, last: p });
  else if (p.timeNs <= h.last.timeNs) h.last = p;
  else {
    h.prev = h.last;
    h.last = p;
  }
}

export class MetricsServer {
  private readonly nodeHistory = new Map<string, History>();
  private readonly podHistory = new Map<string, History>();
  /** CPU ns of pods that are gone, per node: node counters stay monotonic as a cgroup's would. */
  private readonly retiredCpuNs = new Map<string, number>();
  private readonly podLast = new Map<string, { node: string; cpuNs: number }>();
  private latestAccounts: Accounts | null = null;
  private timer = -1;
  private sim: Simulator | null = null;

  constructor(
    readonly cluster: MeteredCluster,
    readonly model: CostModel,
  ) {}

  /** CPU ns of a node's pods that are gone (kept so the node's counter never decreases). */
  retiredCpuNsOf(node: string): number {
    return this.retiredCpuNs.get(node) ?? 0;
  }

  /** The accounts of the last scrape (null before the first). */
  get latest(): Accounts | null {
    return this.latestAccounts;
  }

  /** Takes one sample of every reporting node and running pod at nowNs. */
  scrape(nowNs: number): Accounts {
    const accounts = accountCluster(this.cluster, this.model, nowNs);
    const seenPods = new Set<string>();
    for (const p of accounts.pods) {
      const uid = p.pod.uid;
      seenPods.add(uid);
      this.podLast.set(uid, { node: p.pod.nodeName, cpuNs: p.cpuNs });
      record(this.podHistory, uid, { timeNs: nowNs, cpuNs: p.cpuNs, memoryBytes: p.memoryBytes });
    }
    for (const [uid, last] of this.podLast) {
      if (seenPods.has(uid)) continue;
      this.retiredCpuNs.set(last.node, (this.retiredCpuNs.get(last.node) ?? 0) + last.cpuNs);
      this.podLast.delete(uid);
      this.podHistory.delete(uid);
    }
    for (const n of accounts.nodes) {
      if (!n.node.reporting) {
        this.nodeHistory.delete(n.node.name);
        continue;
      }
      const cpuNs = n.cpuNs + this.retiredCpuNsOf(n.node.name);
      record(this.nodeHistory, n.node.name, { timeNs: nowNs, cpuNs, memoryBytes: n.memoryBytes });
    }
    const live = new Set(accounts.nodes.map((n) => n.node.name));
    for (const name of this.nodeHistory.keys()) if (!live.has(name)) this.nodeHistory.delete(name);
    this.latestAccounts = accounts;
    return accounts;
  }

  /** Scrapes now and then every resolution interval on the simulator's clock. */
  start(sim: Simulator): void {
    this.stop();
    this.sim = sim;
    const tick = (): void => {
      this.scrape(sim.now);
      this.timer = sim.schedule(this.model.resolutionNs, tick);
    };
    tick();
  }

  /** Stops the periodic scrapes (the metrics of the last ones stay). */
  stop(): void {
    if (this.sim !== null && this.timer >= 0) this.sim.cancel(this.timer);
    this.timer = -1;
    this.sim = null;
  }

  /** NodeMetrics of the nodes that have two samples, in cluster order. */
  nodes(): NodeUsage[] {
    const out: NodeUsage[] = [];
    for (const n of this.latestAccounts?.nodes ?? []) {
      const h = this.nodeHistory.get(n.node.name);
      const r = h === undefined ? null : rate(h);
      if (h === undefined || r === null) continue;
      out.push({ name: n.node.name, labels: n.node.labels, timestampNs: h.last.timeNs, ...r, memoryBytes: h.last.memoryBytes });
    }
    return out;
  }

  /** PodMetrics of the pods that have two samples, sorted by namespace and name. */
  pods(): PodUsage[] {
    const out: PodUsage[] = [];
    for (const p of this.latestAccounts?.pods ?? []) {
      const h = this.podHistory.get(p.pod.uid);
      const r = h === undefined ? null : rate(h);
      if (h === undefined || r === null) continue;
      const { namespace, name, labels, containers } = p.pod;
      out.push({ namespace, name, labels, timestampNs: h.last.timeNs, ...r, memoryBytes: h.last.memoryBytes, containers: this.split(containers, r.cpuNanoCores, h.last.memoryBytes) });
    }
    return out.sort((a, b) => (a.namespace === b.namespace ? (a.name < b.name ? -1 : 1) : a.namespace < b.namespace ? -1 : 1));
  }

  /** The first container carries the workload and datapath; every further one the idle baseline. */
  private split(names: readonly string[], cpuNanoCores: number, memoryBytes: number): ContainerUsage[] {
    const extra = Math.max(0, names.length - 1);
    const idleCpu = Math.min(this.model.idleCpuNanoCores, Math.floor(cpuNanoCores / Math.max(1, names.length)));
    const idleMem = Math.min(this.model.idleMemoryBytes, Math.floor(memoryBytes / Math.max(1, names.length)));
    return names.map((name, i) =>
      i === 0 ? { name, cpuNanoCores: cpuNanoCores - extra * idleCpu, memoryBytes: memoryBytes - extra * idleMem } : { name, cpuNanoCores: idleCpu, memoryBytes: idleMem },
    );
  }
}

// CoreBudget: the CPU of one side of a test as a resource that bounds throughput. The node's work is
// read from the model's own counters through the metrics cost model (src/metrics: per packet, per byte,
// per GSO/GRO batch, scaled to the CPU clock), charged where the NIC and kernel spend it (side-work.ts). The flow's cores (one per
// stream, at most the node's CPUs) supply `cores` ns of CPU per ns of simulated time. The Pacer turns
// the work per byte into the sender's pace; as an AppGate the budget is closed while the work done
// exceeds the supply (a UDP receiver then stops reading and its socket buffer overflows).
import { clockScale, COST_STEPS, Work, type CostModel } from "../metrics/index.js";
import type { AppGate } from "../cluster/workloads/iperf/index.js";
import type { NetNamespace } from "../net/stack/index.js";
import { collectSideSources, sideSources, type SideSource } from "./side-work.js";

export class CoreBudget implements AppGate {
  private readonly work = new Work();
  private baseNs = 0;
  private startNs = 0;
  private usedNs = 0;
  private isOpen = true;
  private waiters: (() => void)[] = [];
  /** CPU ns the counters charge that the model knows did not happen (subtracted from the work). */
  correctionNs = 0;
  /** The model's (packet, byte, batch) ns per step in Work's layout, read once rather than by name at every tick. */
  private readonly costs: Float64Array;
  private readonly scale: number;
  /** The namespaces' counter holders, resolved once rather than looked up at every tick. */
  private readonly side: readonly SideSource[];

  constructor(
    namespaces: readonly NetNamespace[],
    private readonly model: CostModel,
    /** Cores serving the flows on this node. */
    readonly cores: number,
    /** NIC offloads on (TSO/GSO, GRO, checksums): see collectSide. */
    private readonly offload: boolean,
  ) {
    this.costs = new Float64Array(COST_STEPS.length * 3);
    COST_STEPS.forEach((step, i) => {
      const c = model.steps[step];
      this.costs.set([c.packetNs, c.byteNs, c.batchNs], i * 3);
    });
    this.scale = clockScale(model);
    this.side = sideSources(namespaces);
  }

  /** CPU ns all counted work of the namespaces costs under the model (cumulative). */
  totalCpuNs(): number {
    const w = this.work;
    const n = w.counts;
    // A plain loop: TypedArray.fill is a builtin call, dearer than zeroing these few doubles inline.
    for (let i = 0; i < n.length; i++) n[i] = 0;
    collectSideSources(this.side, w, this.offload);
    // Work.cpuNs(model), term for term in the same order (the same float result).
    const k = this.costs;
    const scale = this.scale;
    let total = 0;
    for (let i = 0; i < n.length; i += 3) total += (n[i]! * k[i]! + n[i + 1]! * k[i + 1]! + n[i + 2]! * k[i + 2]!) * scale;
    return total;
  }

  /** Starts the budget at nowNs: work done before is not charged. */
  reset(nowNs: number): void {
    this.baseNs = this.totalCpuNs();
    this.startNs = nowNs;
    this.usedNs = 0;
    this.correctionNs = 0;
  }

  /** CPU ns used since reset. */
  get used(): number {
    return this.usedNs;
  }

  /** Re-reads the counters; opens the gate (running the waiters) when the cores have caught up. */
  tick(nowNs: number): void {
    this.usedNs = this.totalCpuNs() - this.baseNs - this.correctionNs;
    this.isOpen = this.usedNs <= this.cores * (nowNs - this.startNs);
    if (!this.isOpen || this.waiters.length === 0) return;
    const run = this.waiters;
    this.waiters = [];
    for (const cb of run) cb();
  }

  open(): boolean {
    return this.isOpen;
  }

  whenOpen(cb: () => void): void {
    this.waiters.push(cb);
  }
}


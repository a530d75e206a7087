// Work: how many packets, bytes and batches went through each datapath step, and what that costs.
// One Float64Array of (packets, bytes, batches) per step; filled from counters at scrape time.
import { clockScale, COST_STEPS, STEP, type CostModel, type CostStep } from "./cost-model.js";

const FIELDS = 3;

export class Work {
  readonly counts = new Float64Array(COST_STEPS.length * FIELDS);

  add(step: number, packets: number, bytes = 0, batches = 0): void {
    const at = step * FIELDS;
    this.counts[at] = this.counts[at]! + packets;
    this.counts[at + 1] = this.counts[at + 1]! + bytes;
    this.counts[at + 2] = this.counts[at + 2]! + batches;
  }

  addAll(other: Work): void {
    for (let i = 0; i < this.counts.length; i++) this.counts[i] = this.counts[i]! + other.counts[i]!;
  }

  packets(step: CostStep): number {
    return this.counts[STEP[step] * FIELDS]!;
  }

  bytes(step: CostStep): number {
    return this.counts[STEP[step] * FIELDS + 1]!;
  }

  batches(step: CostStep): number {
    return this.counts[STEP[step] * FIELDS + 2]!;
  }

  /** CPU nanoseconds one step costs under the model (scaled to its clock). */
  stepCpuNs(step: CostStep, model: CostModel): number {
    const c = model.steps[step];
    return (this.packets(step) * c.packetNs + this.bytes(step) * c.byteNs + this.batches(step) * c.batchNs) * clockScale(model);
  }

  /** CPU nanoseconds of all the work under the model. */
  cpuNs(model: CostModel): number {
    let total = 0;
    for (const step of COST_STEPS) total += this.stepCpuNs(step, model);
    return total;
  }
}

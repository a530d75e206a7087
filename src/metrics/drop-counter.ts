// A trace sink that counts drop records by node and reason code, for /metrics. Drops are rare next
// to forwarded packets, so a map update per drop record is cheap enough.
import type { TraceSink } from "../trace/tracer.js";
import type { DropRecord } from "../trace/records.js";

export class DropCounter implements TraceSink {
  private readonly byNode = new Map<string, Map<number, number>>();

  drop(record: DropRecord): void {
    let reasons = this.byNode.get(record.node);
    if (reasons === undefined) {
      reasons = new Map();
      this.byNode.set(record.node, reasons);
    }
    reasons.set(record.reason, (reasons.get(record.reason) ?? 0) + 1);
  }

  /** Drops on one node with one of the given reasons. */
  count(node: string, reasons: readonly number[]): number {
    const m = this.byNode.get(node);
    if (m === undefined) return 0;
    let n = 0;
    for (const r of reasons) n += m.get(r) ?? 0;
    return n;
  }

  /** Every (node, reason, count), sorted by node then reason. */
  entries(): { node: string; reason: number; count: number }[] {
    const out: { node: string; reason: number; count: number }[] = [];
    for (const node of [...this.byNode.keys()].sort()) {
      for (const [reason, count] of [...this.byNode.get(node)!].sort((a, b) => a[0] - b[0])) out.push({ node, reason, count });
    }
    return out;
  }
}

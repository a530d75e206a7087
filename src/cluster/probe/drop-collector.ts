// One drop-record sink per runtime (the tracer has no removeSink): probes take a mark before an attempt
// and read the drops recorded since.
import type { ClusterRuntime } from "../runtime.js";
import type { DropRecord } from "../../trace/records.js";

export interface DropCollector {
  mark(): number;
  since(mark: number): DropRecord[];
}

const KEEP = 4096;
const collectors = new WeakMap<ClusterRuntime, DropCollector>();

export function dropCollector(rt: ClusterRuntime): DropCollector {
  let c = collectors.get(rt);
  if (c !== undefined) return c;
  const records: DropRecord[] = [];
  let dropped = 0;
  rt.world.tracer.addSink({
    drop: (r) => {
      records.push(r);
      if (records.length > KEEP) {
        records.shift();
        dropped++;
      }
    },
  });
  c = {
    mark: () => dropped + records.length,
    since: (mark) => records.slice(Math.max(0, mark - dropped)),
  };
  collectors.set(rt, c);
  return c;
}

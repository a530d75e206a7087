// The JSON form of trace records, shared by `cnisim trace -o json` and `cnisim replay -o json`: one
// object per hop (where the packet was, its 5-tuple, the outer tuple when encapsulated, the note) and
// one per drop (reason code and name, site, tuples before and after NAT, the policy explanation).
import type { DropRecord, HopRecord } from "../trace/records.js";
import { formatTuple } from "./trace-path.js";

export function hopJson(h: HopRecord): object {
  return {
    time: h.time,
    packet: h.packetId,
    node: h.node,
    device: h.device,
    hook: h.hook,
    tuple: formatTuple(h.tuple),
    ...(h.outer !== undefined ? { outer: formatTuple(h.outer) } : {}),
    note: h.note,
  };
}

export function dropJson(r: DropRecord, reasonName: string): object {
  return {
    time: r.time,
    packet: r.packetId,
    node: r.node,
    device: r.device,
    hook: r.hook,
    reason: r.reason,
    reasonName,
    site: r.site,
    before: formatTuple(r.before),
    after: formatTuple(r.after),
    ...(r.explanation !== undefined ? { explanation: r.explanation } : {}),
  };
}

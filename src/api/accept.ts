// Content negotiation on the Accept header: plain JSON, the meta.k8s.io Table form kubectl get asks
// for, and aggregated discovery; anything else without a JSON fallback is 406 Not Acceptable.
import { AGGREGATED_VERSIONS, type AggregatedVersion } from "./discovery.js";
import type { TableVersion } from "./table.js";

export interface Negotiated {
  /** The Table version asked for, or null for plain objects. */
  readonly table: TableVersion | null;
  /** The aggregated discovery version asked for, or null for the legacy documents. */
  readonly aggregated: AggregatedVersion | null;
  /** True when some offered type is JSON (plain application/json, application/*, * / *). */
  readonly json: boolean;
}

interface MediaRange {
  readonly type: string;
  readonly params: ReadonlyMap<string, string>;
}

function parseAccept(header: string): MediaRange[] {
  return header
    .split(",")
    .map((part) => {
      const [type = "", ...params] = part.split(";").map((s) => s.trim());
      const map = new Map<string, string>();
      for (const p of params) {
        const eq = p.indexOf("=");
        if (eq > 0) map.set(p.slice(0, eq).trim().toLowerCase(), p.slice(eq + 1).trim().replace(/^"|"$/g, ""));
      }
      return { type: type.toLowerCase(), params: map };
    })
    .filter((m) => m.type !== "");
}

const isJsonType = (t: string): boolean => t === "application/json" || t === "application/*" || t === "*/*";

/** What the client accepts; an absent header means plain JSON. */
export function negotiate(header: string | undefined): Negotiated {
  if (header === undefined || header.trim() === "") return { table: null, aggregated: null, json: true };
  let table: TableVersion | null = null;
  let aggregated: AggregatedVersion | null = null;
  let json = false;
  for (const m of parseAccept(header)) {
    if (!isJsonType(m.type)) continue;
    const as = m.params.get("as");
    const g = m.params.get("g");
    const v = m.params.get("v");
    if (as === undefined) json = true;
    else if (as === "Table" && g === "meta.k8s.io" && (v === "v1" || v === "v1beta1")) table ??= v;
    else if (as === "APIGroupDiscoveryList" && g === "apidiscovery.k8s.io" && (AGGREGATED_VERSIONS as readonly string[]).includes(v ?? "")) {
      aggregated ??= v as AggregatedVersion;
    }
  }
  return { table, aggregated, json };
}

// Explanations of each flavour's gap to bare metal, in words from the model: how many more packets its
// pod MTU costs, what its encapsulation costs per packet on both ends, which datapath steps add CPU
// per packet on each side, how busy the flow's cores were and so what bounded the throughput.
import { COST_STEPS, type CostModel } from "../metrics/index.js";
import type { CellResult, SideMeasure } from "./cell.js";
import { baselineOf, cellOf, rowsOf } from "./columns.js";

/** A core this busy (fraction of its time) counts as saturated. */
export const SATURATED = 0.95;

const pct = (x: number): string => `${(x * 100).toFixed(x < 0.1 ? 1 : 0)}%`;

/** Data segments the window carried (payload / MSS): the per-packet denominator, with or without GSO. */
function segments(r: CellResult): number {
  return Math.max(1, (r.gbps * 1e9 * r.spec.durationNs) / 8e9 / Math.max(1, r.mss));
}

function perSegment(side: SideMeasure, r: CellResult, model: CostModel): Map<string, number> {
  const n = segments(r);
  const out = new Map<string, number>();
  for (const s of COST_STEPS) out.set(s, side.work.stepCpuNs(s, model) / n);
  return out;
}

/** "+412 ns per packet (netfilterHook +120, conntrackLookup +100, vethCrossing +200)". */
function stepDelta(side: Map<string, number>, base: Map<string, number>): string {
  let total = 0;
  const parts: [string, number][] = [];
  for (const s of COST_STEPS) {
    const d = (side.get(s) ?? 0) - (base.get(s) ?? 0);
    total += d;
    if (Math.abs(d) >= 5) parts.push([s, d]);
  }
  parts.sort((a, b) => Math.abs(b[1]) - Math.abs(a[1]));
  const sign = (x: number): string => `${x >= 0 ? "+" : "-"}${Math.abs(Math.round(x))}`;
  const top = parts.slice(0, 4).map(([s, d]) => `${s} ${sign(d)}`);
  return `${sign(total)} ns per packet${top.length > 0 ? ` (${top.join(", ")})` : ""}`;
}

function bound(r: CellResult): string {
  const c = r.client.coreBusy;
  const s = r.server.coreBusy;
  if (s >= SATURATED && s >= c) return `receiver core saturated at ${pct(s)} (sender ${pct(c)}): CPU-bound`;
  if (c >= SATURATED) return `sender core saturated at ${pct(c)} (receiver ${pct(s)}): CPU-bound`;
  return `cores below saturation (sender ${pct(c)}, receiver ${pct(s)}): bound by the link or TCP`;
}

function encapSentence(r: CellResult, model: CostModel): string | null {
  const enc = r.spec.flavour.encapsulation;
  if (enc === "none") return null;
  const n = segments(r);
  const [e, d] = enc === "vxlan" ? (["vxlanEncap", "vxlanDecap"] as const) : (["ipipEncap", "ipipDecap"] as const);
  const encNs = r.client.work.stepCpuNs(e, model) / n;
  const decNs = r.server.work.stepCpuNs(d, model) / n;
  return `${enc.toUpperCase()} encapsulation costs ${Math.round(encNs)} ns per packet on the sender and ${Math.round(decNs)} ns on the receiver`;
}

/** One paragraph per flavour and host MTU (bare metal states its own bound). */
export function explain(results: readonly CellResult[], model: CostModel): string[] {
  const out: string[] = [];
  for (const row of rowsOf(results)) {
    const tcp = cellOf(results, row.cni, row.hostMtu, { path: "pod-to-pod", protocol: "TCP", streams: 1 });
    if (tcp === undefined) continue;
    const head = `${row.cni} (host MTU ${row.hostMtu})`;
    if (tcp.spec.flavour.bareMetal) {
      out.push(`${head}: ${tcp.gbps.toFixed(2)} Gbit/s single stream, MSS ${tcp.mss}; ${bound(tcp)}.`);
      continue;
    }
    const base = baselineOf(results, tcp);
    const words: string[] = [];
    if (base !== undefined && base.gbps > 0) words.push(`${tcp.gbps.toFixed(2)} Gbit/s single stream = ${(tcp.gbps / base.gbps).toFixed(2)}x bare metal`);
    if (base !== undefined && tcp.mss < base.mss) {
      words.push(`pod MTU ${row.podMtu} -> MSS ${tcp.mss}: ${((base.mss / tcp.mss - 1) * 100).toFixed(1)}% more packets for the same bytes`);
    } else words.push(`pod MTU ${row.podMtu}`);
    const enc = encapSentence(tcp, model);
    if (enc !== null) words.push(enc);
    if (base !== undefined) {
      words.push(`sender ${stepDelta(perSegment(tcp.client, tcp, model), perSegment(base.client, base, model))}`);
      words.push(`receiver ${stepDelta(perSegment(tcp.server, tcp, model), perSegment(base.server, base, model))}`);
    }
    words.push(bound(tcp));
    const svc = cellOf(results, row.cni, row.hostMtu, { path: "pod-to-service", protocol: "TCP", streams: 1 });
    if (svc !== undefined) {
      words.push(`via the ClusterIP the sender's node adds ${stepDelta(perSegment(svc.client, svc, model), perSegment(tcp.client, tcp, model))} (DNAT)`);
    }
    if (tcp.spec.flavour.policy === "none") words.push("no NetworkPolicy enforcement");
    out.push(`${head}: ${words.join("; ")}.`);
  }
  return out;
}

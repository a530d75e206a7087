// Printable forms of scheduling results for `cnisim schedule`: the JSON document of issue 6
// ({"pods":[{pod,node,message,filter,scores}]}, reasons without the plugin name) and a kubectl-like
// table, with --explain a per-node breakdown of filter verdicts and weighted scores.
import type { ScheduleResult } from "./result.js";

/** The last attempt of each pod, in the order pods were first tried. */
export function finalResults(results: readonly ScheduleResult[]): ScheduleResult[] {
  const last = new Map<string, ScheduleResult>();
  for (const r of results) {
    last.delete(r.pod);
    last.set(r.pod, r);
  }
  const order = [...new Set(results.map((r) => r.pod))];
  return order.map((p) => last.get(p)!);
}

export function jsonReport(results: readonly ScheduleResult[]): string {
  const pods = results.map((r) => ({
    pod: r.pod,
    node: r.node,
    message: r.message,
    filter: Object.fromEntries(Object.entries(r.filter).map(([n, f]) => [n, f.ok ? { ok: true } : { ok: false, reasons: f.reasons ?? [] }])),
    scores: r.scores,
  }));
  return JSON.stringify({ pods });
}

function table(rows: readonly (readonly string[])[]): string[] {
  const widths: number[] = [];
  for (const row of rows) row.forEach((cell, i) => (widths[i] = Math.max(widths[i] ?? 0, cell.length)));
  return rows.map((row) =>
    row
      .map((cell, i) => (i === row.length - 1 ? cell : cell.padEnd(widths[i]! + 3)))
      .join("")
      .trimEnd(),
  );
}

/** POD / NODE / RESULT, and with `explain` the filter and score table of each pod. */
export function textReport(results: readonly ScheduleResult[], explain: boolean): string[] {
  const out = table([["POD", "NODE", "RESULT"], ...results.map((r) => [r.pod, r.node ?? "<none>", r.node !== null ? "Scheduled" : (r.message ?? "")])]);
  if (!explain) return out;
  for (const r of results) {
    out.push("", `${r.pod}: ${r.node === null ? `Pending: ${r.message ?? ""}` : `-> ${r.node}`}`);
    if (r.nominatedNode !== undefined) out.push(`  preemption nominated ${r.nominatedNode}`);
    const plugins = [...new Set(Object.values(r.scores).flatMap((s) => Object.keys(s.plugins)))];
    const header = ["  NODE", "FILTER", ...(plugins.length > 0 ? ["TOTAL", ...plugins] : [])];
    const rows = Object.entries(r.filter).map(([node, f]) => {
      const verdict = f.ok ? "ok" : `${f.plugin ?? "PreFilter"}: ${(f.reasons ?? []).join(", ")}`;
      const s = r.scores[node];
      const scoreCells = plugins.length === 0 ? [] : s === undefined ? [""] : [String(s.total), ...plugins.map((p) => String(s.plugins[p] ?? "-"))];
      return [`  ${node}`, verdict, ...scoreCells];
    });
    out.push(...table([header, ...rows]));
    if (plugins.length > 0) out.push("  (plugin columns: normalized 0-100 before weighting; TOTAL: weighted sum)");
  }
  return out;
}

// The comparison as text (`-o table`): throughput per test like the published benchmark, with the
// bare-metal baseline and each CNI's ratio to it; TCP retransmits and CPU per node; UDP sent / received
// / loss / jitter; TCP_RR transactions and latency; then the explanations.
import type { CellResult } from "./cell.js";
import { baselineOf, cellOf, columnsOf, rowsOf, type TestColumn } from "./columns.js";
import { explain } from "./explain.js";
import { defaultOmitNs } from "../cluster/workloads/iperf/index.js";
import type { Comparison } from "./runner.js";
import { textTable } from "./text-table.js";

const DASH = "-";
const num = (x: number, d = 2): string => x.toFixed(d);
const pct = (x: number): string => `${(x * 100).toFixed(1)}%`;

function throughputCell(results: readonly CellResult[], r: CellResult | undefined): string {
  if (r === undefined) return DASH;
  const base = r.spec.flavour.bareMetal ? undefined : baselineOf(results, r);
  return base !== undefined && base.gbps > 0 ? `${num(r.gbps)} (${num(r.gbps / base.gbps)})` : num(r.gbps);
}

function section(title: string, header: string[], rows: string[][]): string {
  return `${title}\n${textTable(header, rows)}\n`;
}

export function formatComparison(c: Comparison): string {
  const o = c.options;
  const res = c.results;
  const rows = rowsOf(res);
  const cols = columnsOf(res, o.protocols);
  const flowCols = cols.filter((x) => x.protocol !== "TCP_RR");
  const tcpCols = cols.filter((x) => x.protocol === "TCP");
  const udpCols = cols.filter((x) => x.protocol === "UDP");
  const rrCols = cols.filter((x) => x.protocol === "TCP_RR");
  const at = (row: { cni: string; hostMtu: number }, col: TestColumn): CellResult | undefined => cellOf(res, row.cni, row.hostMtu, col);
  const out: string[] = [];
  const secs = o.durationNs / 1e9;
  out.push(
    `CNI comparison: ${o.linkGbps} Gbit/s links, ${o.cpus} CPUs at ${o.cpuGHz} GHz per node, ${secs} s per test ` +
      `(${defaultOmitNs(o.durationNs) / 1e9} s warm-up omitted), seed ${o.seed}${o.queueBytes === null ? "" : `, NIC transmit queues of ${o.queueBytes} bytes`}; ` +
      `nodes a1 (control plane), a2 server, a3 client\n`,
  );
  const lead = (row: { cni: string; hostMtu: number; podMtu: number }): string[] => [row.cni, String(row.hostMtu), String(row.podMtu)];
  if (flowCols.length > 0) {
    out.push(
      section(
        "Throughput, Gbit/s at the receiver (ratio to bare metal)",
        ["CNI", "host MTU", "pod MTU", ...flowCols.map((x) => x.title)],
        rows.map((row) => [...lead(row), ...flowCols.map((col) => throughputCell(res, at(row, col)))]),
      ),
    );
  }
  if (tcpCols.length > 0) {
    out.push(
      section(
        "TCP: retransmits; CPU of the node client / server (core busy client / server)",
        ["CNI", "host MTU", ...tcpCols.flatMap((x) => [`${x.title} retr`, `${x.title} CPU`])],
        rows.map((row) => [
          row.cni,
          String(row.hostMtu),
          ...tcpCols.flatMap((col) => {
            const r = at(row, col);
            return r === undefined ? [DASH, DASH] : [String(r.retransmits), `${pct(r.client.nodeFraction)} / ${pct(r.server.nodeFraction)} (${pct(r.client.coreBusy)} / ${pct(r.server.coreBusy)})`];
          }),
        ]),
      ),
    );
  }
  if (udpCols.length > 0) {
    out.push(
      section(
        "UDP (-b 0): datagram bytes; sent / received Gbit/s, loss %, jitter ms",
        ["CNI", "host MTU", "datagram", ...udpCols.map((x) => x.title)],
        rows.map((row) => {
          const first = udpCols.map((col) => at(row, col)).find((r) => r !== undefined);
          return [
            row.cni,
            String(row.hostMtu),
            first?.udp === null || first === undefined ? DASH : String(first.udp.datagramBytes),
            ...udpCols.map((col) => {
              const u = at(row, col)?.udp;
              return u === undefined || u === null ? DASH : `${num(u.sentGbps)} / ${num(at(row, col)!.gbps)} / ${num(u.lostPercent, 1)} / ${num(u.jitterMs, 4)}`;
            }),
          ];
        }),
      ),
    );
  }
  if (rrCols.length > 0) {
    out.push(
      section(
        "TCP_RR (1-byte request/response): transactions/s; latency p50 / p90 / p99 us",
        ["CNI", "host MTU", ...rrCols.flatMap((x) => [`${x.title} tps`, `${x.title} latency`])],
        rows.map((row) => [
          row.cni,
          String(row.hostMtu),
          ...rrCols.flatMap((col) => {
            const q = at(row, col)?.rr;
            return q === undefined || q === null ? [DASH, DASH] : [String(Math.round(q.transactionsPerSecond)), `${num(q.p50Us, 1)} / ${num(q.p90Us, 1)} / ${num(q.p99Us, 1)}`];
          }),
        ]),
      ),
    );
  }
  const why = explain(res, c.model);
  if (why.length > 0) out.push(`Why (from the model)\n${why.map((w) => `- ${w}`).join("\n")}\n`);
  if (c.failures.length > 0) out.push(`Failed\n${c.failures.map((f) => `- ${f.label}: ${f.error}`).join("\n")}\n`);
  return out.join("\n");
}

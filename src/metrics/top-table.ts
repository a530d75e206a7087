// `kubectl top node|pod` as kubectl prints them (staging/src/k8s.io/kubectl/pkg/metricsutil/
// metrics_printer.go): CPU in millicores rounded up, memory in Mi rounded down, percentages of
// allocatable truncated, `<unknown>` for nodes without metrics, every cell tab-terminated through
// a tabwriter with padding 3 (so lines end in padding, as kubectl's do).
import type { NodeUsage, PodUsage } from "./metrics-server.js";

/**
 * Upstream's printer now says "CPU(%)"/"MEMORY(%)"; kubectl v1.32.4 (checked against the installed
 * client) and the seed lab's client print "CPU%"/"MEMORY%". The switch is taken to be v1.33.
 */
export const TopHeaderStyle = { CURRENT: "current", LEGACY: "legacy" } as const;
export type TopHeaderStyle = (typeof TopHeaderStyle)[keyof typeof TopHeaderStyle];

/** The header style a kubectl version prints ("v1.32.4" -> legacy, "v1.33.0" -> current). */
export function topHeaderStyleFor(kubectlVersion: string): TopHeaderStyle {
  const m = /^v?(\d+)\.(\d+)/.exec(kubectlVersion);
  if (m === null) return TopHeaderStyle.CURRENT;
  const major = Number(m[1]);
  const minor = Number(m[2]);
  return major > 1 || minor >= 33 ? TopHeaderStyle.CURRENT : TopHeaderStyle.LEGACY;
}

export interface NodeCapacity {
  readonly name: string;
  readonly cpuMilli: number;
  readonly memoryBytes: number;
}

const MI = 1024 * 1024;
const UNKNOWN = "<unknown>";

/** Quantity.MilliValue() of a nanocores quantity (rounds up). */
const milliCores = (nanoCores: number): number => Math.ceil(nanoCores / 1e6);
const cpuText = (nanoCores: number): string => `${milliCores(nanoCores)}m`;
const memoryText = (bytes: number): string => `${Math.floor(Math.ceil(bytes) / MI)}Mi`;
/** int64(used.MilliValue() / available.MilliValue() * 100), 0 when nothing is available. */
function percent(usedMilli: number, availableMilli: number): string {
  return `${availableMilli === 0 ? 0 : Math.trunc((usedMilli / availableMilli) * 100)}%`;
}

function nodeHeader(style: TopHeaderStyle): string[] {
  return style === TopHeaderStyle.LEGACY
    ? ["NAME", "CPU(cores)", "CPU%", "MEMORY(bytes)", "MEMORY%"]
    : ["NAME", "CPU(cores)", "CPU(%)", "MEMORY(bytes)", "MEMORY(%)"];
}

/**
 * Rows of `kubectl top node`: nodes with metrics sorted by name, then the listed nodes without
 * metrics (sorted by name; kubectl walks a Go map there, so its order varies). Empty when no node
 * has metrics (kubectl then prints an error instead).
 */
export function topNodeRows(usage: readonly NodeUsage[], nodes: readonly NodeCapacity[], style: TopHeaderStyle, noHeaders = false): string[][] {
  if (usage.length === 0) return [];
  const byName = new Map(nodes.map((n) => [n.name, n]));
  const rows: string[][] = noHeaders ? [] : [nodeHeader(style)];
  const sorted = [...usage].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  for (const u of sorted) {
    const cap = byName.get(u.name);
    const row = [u.name, cpuText(u.cpuNanoCores)];
    if (cap !== undefined) row.push(percent(milliCores(u.cpuNanoCores), cap.cpuMilli));
    row.push(memoryText(u.memoryBytes));
    if (cap !== undefined) row.push(percent(Math.ceil(u.memoryBytes) * 1000, cap.memoryBytes * 1000));
    rows.push(row);
    byName.delete(u.name);
  }
  for (const name of [...byName.keys()].sort()) rows.push([name, UNKNOWN, UNKNOWN, UNKNOWN, UNKNOWN]);
  return rows;
}

/** Rows of `kubectl top pod` (with a NAMESPACE column for -A), sorted by namespace and name. */
export function topPodRows(usage: readonly PodUsage[], withNamespace: boolean, noHeaders = false): string[][] {
  if (usage.length === 0) return [];
  const rows: string[][] = noHeaders ? [] : [[...(withNamespace ? ["NAMESPACE"] : []), "NAME", "CPU(cores)", "MEMORY(bytes)"]];
  const sorted = [...usage].sort((a, b) =>
    withNamespace && a.namespace !== b.namespace ? (a.namespace < b.namespace ? -1 : 1) : a.name < b.name ? -1 : a.name > b.name ? 1 : 0,
  );
  for (const u of sorted) {
    // kubectl adds the containers' quantities exactly, then rounds the sum.
    const cpu = u.containers.reduce((n, c) => n + c.cpuNanoCores, 0);
    const mem = u.containers.reduce((n, c) => n + c.memoryBytes, 0);
    rows.push([...(withNamespace ? [u.namespace] : []), u.name, cpuText(cpu), memoryText(mem)]);
  }
  return rows;
}

/** Go's tabwriter (padding 3, padchar ' ') over tab-terminated cells: every cell padded, trailing ones too. */
export function formatTopTable(rows: readonly (readonly string[])[]): string[] {
  const widths: number[] = [];
  for (const r of rows) r.forEach((c, i) => (widths[i] = Math.max(widths[i] ?? 0, [...c].length + 3)));
  return rows.map((r) => r.map((c, i) => c + " ".repeat(widths[i]! - [...c].length)).join(""));
}

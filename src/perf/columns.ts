// The test columns of a comparison (path x protocol x streams, in the published table's order) and
// lookups of a flavour's cell and of its bare-metal baseline at the same host MTU.
import type { CellResult, Protocol, TestPath } from "./cell.js";

export interface TestColumn {
  readonly path: TestPath;
  readonly protocol: Protocol;
  readonly streams: number;
  /** "p2p TCP 1", "svc UDP 8", "np TCP 1", "p2p RR". */
  readonly title: string;
}

const PATH_ORDER: readonly TestPath[] = ["pod-to-pod", "pod-to-service", "client-to-nodeport"];
const PROTOCOL_ORDER: readonly Protocol[] = ["TCP", "UDP", "TCP_RR"];

const SHORT: Readonly<Record<TestPath, string>> = { "pod-to-pod": "p2p", "pod-to-service": "svc", "client-to-nodeport": "np" };
const short = (p: TestPath): string => SHORT[p];

export function columnsOf(results: readonly CellResult[], protocols: readonly Protocol[]): TestColumn[] {
  const out: TestColumn[] = [];
  for (const path of PATH_ORDER) {
    for (const protocol of PROTOCOL_ORDER) {
      if (!protocols.includes(protocol)) continue;
      const streams = [...new Set(results.filter((r) => r.spec.path === path && r.spec.protocol === protocol).map((r) => r.spec.streams))].sort((a, b) => a - b);
      for (const s of streams) out.push({ path, protocol, streams: s, title: protocol === "TCP_RR" ? `${short(path)} RR` : `${short(path)} ${protocol} ${s}` });
    }
  }
  return out;
}

/** Distinct (flavour, host MTU) rows in run order. */
export function rowsOf(results: readonly CellResult[]): { readonly cni: string; readonly hostMtu: number; readonly podMtu: number }[] {
  const seen = new Map<string, { cni: string; hostMtu: number; podMtu: number }>();
  for (const r of results) {
    const k = `${r.spec.hostMtu}/${r.spec.flavour.name}`;
    if (!seen.has(k)) seen.set(k, { cni: r.spec.flavour.name, hostMtu: r.spec.hostMtu, podMtu: r.spec.podMtu });
  }
  return [...seen.values()];
}

export function cellOf(results: readonly CellResult[], cni: string, hostMtu: number, col: Pick<TestColumn, "path" | "protocol" | "streams">): CellResult | undefined {
  return results.find(
    (r) => r.spec.flavour.name === cni && r.spec.hostMtu === hostMtu && r.spec.path === col.path && r.spec.protocol === col.protocol && r.spec.streams === col.streams,
  );
}

/** The bare-metal cell a flavour's cell compares with: host to host, same MTU, protocol and streams. */
export function baselineOf(results: readonly CellResult[], r: CellResult): CellResult | undefined {
  return cellOf(results, "bare-metal", r.spec.hostMtu, { path: "pod-to-pod", protocol: r.spec.protocol, streams: r.spec.streams });
}

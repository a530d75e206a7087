// The comparison as JSON (`-o json`): one record per cell in the shape, numbers rounded so the
// same flags and seed give the same bytes; UDP and TCP_RR cells add their own fields.
import type { CellResult } from "./cell.js";
import type { Comparison } from "./runner.js";

const round = (x: number, digits = 3): number => {
  const f = 10 ** digits;
  return Math.round(x * f) / f;
};

export interface JsonRecord {
  readonly cni: string;
  readonly linkGbps: number;
  readonly hostMtu: number;
  readonly podMtu: number;
  readonly streams: number;
  readonly path: string;
  readonly protocol: string;
  readonly gbps: number;
  /** Fraction of the node's CPU. */
  readonly cpu: { readonly client: number; readonly server: number };
  readonly retransmits: number;
  readonly mss?: number;
  readonly udp?: { readonly sentGbps: number; readonly lostPercent: number; readonly jitterMs: number; readonly datagramBytes: number };
  readonly rr?: { readonly transactionsPerSecond: number; readonly p50Us: number; readonly p90Us: number; readonly p99Us: number };
}

export function jsonRecord(r: CellResult): JsonRecord {
  const s = r.spec;
  const base = {
    cni: s.flavour.name,
    linkGbps: s.linkGbps,
    hostMtu: s.hostMtu,
    podMtu: s.podMtu,
    streams: s.streams,
    path: s.path,
    protocol: s.protocol,
    gbps: round(r.gbps),
    cpu: { client: round(r.client.nodeFraction, 4), server: round(r.server.nodeFraction, 4) },
    retransmits: r.retransmits,
    mss: r.mss,
  };
  if (r.udp !== null) {
    const u = r.udp;
    return { ...base, udp: { sentGbps: round(u.sentGbps), lostPercent: round(u.lostPercent, 2), jitterMs: round(u.jitterMs, 4), datagramBytes: u.datagramBytes } };
  }
  if (r.rr !== null) {
    const q = r.rr;
    return { ...base, rr: { transactionsPerSecond: Math.round(q.transactionsPerSecond), p50Us: round(q.p50Us, 1), p90Us: round(q.p90Us, 1), p99Us: round(q.p99Us, 1) } };
  }
  return base;
}

export function comparisonJson(c: Comparison): string {
  return JSON.stringify({ results: c.results.map(jsonRecord), failures: c.failures }, null, 2) + "\n";
}

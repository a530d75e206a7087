// A cell's result as it crosses from a worker thread to the main one: structured clone keeps plain
// data and typed arrays but not classes, so each side's Work travels as its counts, and the spec is
// left behind (the main thread plans the same cells from the same options and puts its own back).
import { Work } from "../metrics/index.js";
import type { CellResult, CellSpec, SideMeasure } from "./cell.js";

export interface WireSide {
  readonly cpuNs: number;
  readonly nodeFraction: number;
  readonly coreBusy: number;
  readonly counts: Float64Array;
}

export interface WireCellResult extends Omit<CellResult, "spec" | "client" | "server"> {
  readonly client: WireSide;
  readonly server: WireSide;
}

/** What a worker answers for one cell: its result, or why it could not run. */
export type CellOutcome = { readonly ok: true; readonly value: WireCellResult } | { readonly ok: false; readonly error: string };

function sideToWire(s: SideMeasure): WireSide {
  return { cpuNs: s.cpuNs, nodeFraction: s.nodeFraction, coreBusy: s.coreBusy, counts: s.work.counts };
}

function sideFromWire(s: WireSide): SideMeasure {
  const work = new Work();
  work.counts.set(s.counts);
  return { cpuNs: s.cpuNs, nodeFraction: s.nodeFraction, coreBusy: s.coreBusy, work };
}

export function cellToWire(r: CellResult): WireCellResult {
  const { spec: _spec, client, server, ...rest } = r;
  return { ...rest, client: sideToWire(client), server: sideToWire(server) };
}

export function cellFromWire(w: WireCellResult, spec: CellSpec): CellResult {
  const { client, server, ...rest } = w;
  return { spec, ...rest, client: sideFromWire(client), server: sideFromWire(server) };
}

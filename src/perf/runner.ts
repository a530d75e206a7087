// The comparison runner: the matrix of cells for a set of CNI flavours (host MTUs x tests x paths x
// stream counts, bare metal host to host only), run one after the other on fresh clusters (see
// parallel-runner.ts for several at once), with the metrics cost model scaled to the nodes' CPU clock.
import { DEFAULT_COST_MODEL, type CostModel } from "../metrics/index.js";
import { queueTooSmall } from "../k8s/netunits.js";
import { err, ok, type Result } from "../util/result.js";
import { isSeed, MAX_SEED } from "../util/rng.js";
import { runCell, type CellResult, type CellSpec, type Protocol, type TestPath } from "./cell.js";
import { FLAVOURS, podMtuFor, type FlavourName } from "./flavours.js";

export interface BenchOptions {
  readonly flavours: readonly FlavourName[];
  readonly linkGbps: number;
  readonly hostMtus: readonly number[];
  /** Pod MTU for every flavour; null = host MTU minus the flavour's overhead. */
  readonly podMtu: number | null;
  readonly streams: readonly number[];
  readonly protocols: readonly Protocol[];
  readonly paths: readonly TestPath[];
  /** Logical CPUs per node and their clock (the cost model's reference is 3 GHz). */
  readonly cpus: number;
  readonly cpuGHz: number;
  readonly durationNs: number;
  readonly seed: number;
  /** TSO/GSO and GRO (on by default, as on Linux). */
  readonly offload: boolean;
  /** The underlay NICs' transmit queue in bytes on the wire; null = the Cluster file's default. */
  readonly queueBytes: number | null;
}

export const DEFAULT_BENCH_OPTIONS: BenchOptions = {
  flavours: ["bare-metal", "calico-ipip", "calico-vxlan", "calico-bgp", "canal", "flannel-vxlan", "flannel-host-gw"],
  linkGbps: 10,
  hostMtus: [1500],
  podMtu: null,
  streams: [1, 8],
  protocols: ["TCP", "UDP", "TCP_RR"],
  paths: ["pod-to-pod", "pod-to-service"],
  cpus: 32,
  cpuGHz: 3,
  durationNs: 5_000_000_000,
  seed: 1,
  offload: true,
  queueBytes: null,
};

export interface Comparison {
  readonly options: BenchOptions;
  readonly model: CostModel;
  readonly results: readonly CellResult[];
  /** Cells that could not run, with why. */
  readonly failures: readonly { readonly label: string; readonly error: string }[];
}

export function costModelFor(o: BenchOptions): CostModel {
  return { ...DEFAULT_COST_MODEL, cpuGHz: o.cpuGHz };
}

/** Every cell of the comparison, in table order. Bare metal has no Service (nor NodePort); TCP_RR runs one stream. */
export function planCells(o: BenchOptions): CellSpec[] {
  const model = costModelFor(o);
  const cells: CellSpec[] = [];
  for (const hostMtu of o.hostMtus) {
    for (const name of o.flavours) {
      const flavour = FLAVOURS[name];
      const podMtu = podMtuFor(flavour, hostMtu, o.podMtu);
      for (const path of o.paths) {
        if (flavour.bareMetal && path !== "pod-to-pod") continue;
        for (const protocol of o.protocols) {
          const streams = protocol === "TCP_RR" ? [1] : o.streams;
          for (const s of streams) {
            cells.push({ flavour, path, protocol, streams: s, linkGbps: o.linkGbps, hostMtu, podMtu, durationNs: o.durationNs, cpus: o.cpus, model, seed: o.seed, offload: o.offload, queueBytes: o.queueBytes });
          }
        }
      }
    }
  }
  return cells;
}

export function cellLabel(c: CellSpec): string {
  return `${c.flavour.name} mtu ${c.hostMtu} ${c.path} ${c.protocol}${c.protocol === "TCP_RR" ? "" : ` -P ${c.streams}`}`;
}

export interface ProgressReport {
  /** Cells finished plus the fraction of the current one. */
  readonly done: number;
  readonly total: number;
  readonly label: string;
}

export function checkOptions(o: BenchOptions): Result<void, string> {
  if (o.flavours.length === 0) return err("--cni: name at least one CNI");
  if (!(o.linkGbps > 0)) return err("--link: must be a positive speed");
  for (const m of o.hostMtus) if (!Number.isInteger(m) || m < 576 || m > 65535) return err(`--mtu: ${m} is not an MTU between 576 and 65535`);
  if (o.podMtu !== null && (!Number.isInteger(o.podMtu) || o.podMtu < 576)) return err(`--pod-mtu: ${o.podMtu} is not an MTU of at least 576`);
  for (const s of o.streams) if (!Number.isInteger(s) || s < 1 || s > 128) return err(`--streams: ${s} is not a stream count between 1 and 128`);
  if (!Number.isInteger(o.cpus) || o.cpus < 1) return err(`--cpus: ${o.cpus} is not a CPU count`);
  if (!(o.cpuGHz > 0)) return err(`--cpu-ghz: ${o.cpuGHz} is not a clock rate`);
  if (!(o.durationNs > 0)) return err("--duration: must be positive");
  // The Cluster file's spec.seed range: the cells' cluster files carry the seed.
  if (!isSeed(o.seed)) return err(`--seed: ${o.seed} is not a seed between 0 and ${MAX_SEED}`);
  if (o.queueBytes !== null) {
    // Checked per host MTU here, as the cells' Cluster files would be, so the flag is named.
    if (!Number.isSafeInteger(o.queueBytes) || o.queueBytes < 0) return err(`--queue: ${o.queueBytes} is not a number of bytes`);
    for (const m of o.hostMtus) {
      const small = queueTooSmall(o.queueBytes, m);
      if (small !== null) return err(`--queue: ${o.queueBytes} bytes at --mtu ${m}: ${small}`);
    }
  }
  // A value given twice would run its cells twice and print their rows twice.
  const lists: [string, readonly (string | number)[]][] = [
    ["--cni", o.flavours],
    ["--mtu", o.hostMtus],
    ["--streams", o.streams],
    ["--tests", o.protocols],
    ["--paths", o.paths],
  ];
  for (const [flag, values] of lists) {
    const twice = values.find((v, i) => values.indexOf(v) !== i);
    if (twice !== undefined) return err(`${flag}: ${twice} is given twice`);
  }
  return ok(undefined);
}

export function runComparison(o: BenchOptions, onProgress: (p: ProgressReport) => void = () => {}): Result<Comparison, string> {
  const checked = checkOptions(o);
  if (!checked.ok) return checked;
  const cells = planCells(o);
  const outcomes = cells.map((cell, i) => {
    const label = cellLabel(cell);
    onProgress({ done: i, total: cells.length, label });
    return runCell(cell, (f) => onProgress({ done: i + f, total: cells.length, label }));
  });
  onProgress({ done: cells.length, total: cells.length, label: "done" });
  return ok(assembleComparison(o, cells, outcomes));
}

/** The comparison from its cells' outcomes (in plan order, as runComparison and the parallel runner both give them). */
export function assembleComparison(o: BenchOptions, cells: readonly CellSpec[], outcomes: readonly Result<CellResult, string>[]): Comparison {
  const results: CellResult[] = [];
  const failures: { label: string; error: string }[] = [];
  outcomes.forEach((r, i) => {
    if (r.ok) results.push(r.value);
    else failures.push({ label: cellLabel(cells[i]!), error: r.error });
  });
  return { options: o, model: costModelFor(o), results, failures };
}

// replayCapture: pushes every record of a capture into a built cluster at one injection point, at the
// records' relative timestamps (original) or 1 us apart (fast), runs until idle, and reports the ledger
// of the replay window, the drops by reason with their first traces, and the interfaces that saw traffic.
import type { ClusterRuntime } from "../runtime.js";
import { openServerListeners } from "../probe/servers.js";
import type { CaptureRecord, CaptureSummary } from "../../pcap/index.js";
import { SkBuff } from "../../skb/skbuff.js";
import { DELIVERY_KIND_NAMES } from "../../trace/ledger.js";
import { DropCollector, type CaptureOrigin, type ReplayDropTrace } from "./drop-collector.js";
import { FramePreparer } from "./frames.js";
import { macChooser, openInjectionPort, ReplayClock, type ReplayPoint } from "./inject-point.js";
import { InterfaceRecorder, type FrameWriterFactory, type RecordedInterface } from "./recorder.js";
import { dropReasonName } from "../../../datapath/reasons.js";

export const REPLAY_TIMINGS = ["original", "fast"] as const;
export type ReplayTiming = (typeof REPLAY_TIMINGS)[number];

/** Spacing of packets with `--timing fast`. */
export const FAST_GAP_NS = 1_000;
/** Records listed individually among the unparsed ones (all are counted). */
export const UNPARSED_LISTED = 100;

export interface ReplayOptions {
  readonly point: ReplayPoint;
  readonly timing: ReplayTiming;
  /** Drop traces kept per reason (default 3; 0 turns hop tracing off). */
  readonly tracesPerReason?: number;
  /** Replace the Ethernet header of captured Ethernet frames with one built for the point (default false). */
  readonly rewriteL2?: boolean;
  /** Per-interface recording (--out); omitted: nothing is recorded. */
  readonly record?: FrameWriterFactory;
  /** Called after each record with its end offset in the file (for a progress bar). */
  readonly onProgress?: (fileOffset: number) => void;
}

export interface UnparsedRecord {
  /** 1-based packet record number, or 0 for a bad block that is not a packet record (pcapng). */
  readonly index: number;
  readonly offset: number;
  readonly reason: string;
}

export interface ReplayReport {
  readonly point: { readonly label: string; readonly node: string; readonly device: string; readonly direction: ReplayPoint["direction"] };
  readonly timing: ReplayTiming;
  readonly capture: {
    readonly format: string | null;
    /** Packet records found in the file, good or bad. */
    readonly records: number;
    readonly linkTypes: readonly number[];
    readonly unparsedCount: number;
    readonly unparsed: readonly UnparsedRecord[];
    /** Where reading ended early (the file could not be read further), or null. */
    readonly stopped: { readonly offset: number; readonly reason: string } | null;
  };
  /** Simulated times (ns): replay start, first and last injection, end of the run until idle. */
  readonly time: { readonly startNs: number; readonly firstNs: number | null; readonly lastNs: number | null; readonly endNs: number };
  /** The packet ledger over the replay window: injected + generated = delivered + dropped + inFlight. */
  readonly ledger: {
    readonly injected: number;
    /** Packets the model created meanwhile (replies, ARP, RST, ICMP errors, copies, control plane). */
    readonly generated: number;
    readonly delivered: number;
    readonly deliveredByKind: Readonly<Record<(typeof DELIVERY_KIND_NAMES)[number], number>>;
    readonly dropped: number;
    readonly inFlight: number;
  };
  /** Drops by reason code (ascending). */
  readonly drops: readonly {
    readonly reason: number;
    readonly name: string;
    readonly count: number;
    /** Of `count`, drops of injected packets. */
    readonly injected: number;
    readonly traces: readonly ReplayDropTrace[];
  }[];
  /** Interfaces that saw traffic (only with a `record` factory), by name. */
  readonly interfaces: readonly RecordedInterface[];
}

type LedgerSnapshot = { entered: number; delivered: number; dropped: number; byKind: number[]; byReason: Map<number, number> };

/**
 * Replays `records` (a CaptureReader, read lenient so bad records arrive in `summary.skipped`) into `rt`.
 * Never throws for packet problems: a record that cannot be converted is listed as unparsed with its
 * offset; a packet the cluster cannot use ends as a drop record with a reason.
 */
export async function replayCapture(
  rt: ClusterRuntime,
  records: AsyncIterable<CaptureRecord>,
  summary: CaptureSummary,
  options: ReplayOptions,
): Promise<ReplayReport> {
  const { sim, world } = rt;
  const point = options.point;
  const closeListeners = openServerListeners(rt);
  rt.runUntilIdle();
  const collector = new DropCollector(options.tracesPerReason ?? 3);
  world.tracer.addSink(collector.sink);
  const recorder = options.record === undefined ? null : new InterfaceRecorder(rt, options.record);
  const clock = new ReplayClock(sim);
  const port = openInjectionPort(point, clock);
  const preparer = new FramePreparer(point.device.l2, macChooser(rt, point), options.rewriteL2 === true);
  const before = snapshot(rt);
  const startNs = sim.now;

  let current: CaptureOrigin = { index: 0, offset: 0 };
  clock.onSchedule = (arg) => {
    if (arg instanceof SkBuff) collector.injected(arg.id, current);
  };
  const unparsed: UnparsedRecord[] = [];
  let unparsedCount = 0;
  const linkTypes = new Set<number>();
  let firstTs: bigint | null = null;
  let firstNs: number | null = null;
  let lastNs: number | null = null;
  let injected = 0;
  try {
    for await (const rec of records) {
      linkTypes.add(rec.linkType);
      const frame = preparer.prepare(rec.linkType, rec.data);
      if (!frame.ok) {
        unparsedCount++;
        if (unparsed.length < UNPARSED_LISTED) unparsed.push({ index: rec.index, offset: rec.fileOffset, reason: frame.error });
      } else {
        firstTs ??= rec.tsNs;
        let at = options.timing === "fast" ? startNs + injected * FAST_GAP_NS : startNs + Number(rec.tsNs - firstTs);
        if (lastNs !== null && at < lastNs) at = lastNs; // out-of-order timestamps enter with their predecessor
        if (at > sim.now) sim.runUntil(at);
        clock.at = at;
        current = { index: rec.index, offset: rec.fileOffset };
        collector.injecting = current;
        port.inject(frame.value.bytes, frame.value.length, rec.caplen < rec.len);
        collector.injecting = null;
        injected++;
        firstNs ??= at;
        lastNs = at;
      }
      options.onProgress?.(rec.fileOffset + rec.caplen);
      if (recorder !== null) await recorder.drain();
    }
    rt.runUntilIdle();
  } finally {
    world.tracer.removeSink(collector.sink);
    closeListeners();
    if (recorder !== null) await recorder.close();
  }
  for (const s of summary.skipped) {
    unparsedCount++;
    if (unparsed.length < UNPARSED_LISTED) unparsed.push({ index: s.index, offset: s.offset, reason: s.reason });
  }
  unparsed.sort((a, b) => a.offset - b.offset);
  return {
    point: { label: point.label, node: point.device.nodeName, device: point.device.name, direction: point.direction },
    timing: options.timing,
    capture: { format: summary.format, records: summary.read, linkTypes: [...linkTypes].sort((a, b) => a - b), unparsedCount, unparsed, stopped: summary.stopped },
    time: { startNs, firstNs, lastNs, endNs: sim.now },
    ledger: ledgerWindow(rt, before, injected),
    drops: dropGroups(rt, before, collector),
    interfaces: recorder?.recorded() ?? [],
  };
}

function snapshot(rt: ClusterRuntime): LedgerSnapshot {
  const l = rt.world.ledger;
  return { entered: l.entered, delivered: l.delivered, dropped: l.dropped, byKind: [...l.deliveredByKind], byReason: new Map(l.dropsByReason) };
}

function ledgerWindow(rt: ClusterRuntime, b: LedgerSnapshot, injected: number): ReplayReport["ledger"] {
  const l = rt.world.ledger;
  const entered = l.entered - b.entered;
  const delivered = l.delivered - b.delivered;
  const dropped = l.dropped - b.dropped;
  const byKind = Object.fromEntries(DELIVERY_KIND_NAMES.map((name, i) => [name, (l.deliveredByKind[i] ?? 0) - (b.byKind[i] ?? 0)]));
  return {
    injected,
    generated: entered - injected,
    delivered,
    deliveredByKind: byKind as ReplayReport["ledger"]["deliveredByKind"],
    dropped,
    inFlight: entered - delivered - dropped,
  };
}

function dropGroups(rt: ClusterRuntime, b: LedgerSnapshot, collector: DropCollector): ReplayReport["drops"] {
  const out: ReplayReport["drops"][number][] = [];
  for (const [reason, total] of rt.world.ledger.dropsByReason) {
    const count = total - (b.byReason.get(reason) ?? 0);
    if (count <= 0) continue;
    const g = collector.groups.get(reason);
    out.push({ reason, name: g?.name ?? dropReasonName(reason), count, injected: g?.injected ?? 0, traces: g?.traces ?? [] });
  }
  return out.sort((x, y) => x.reason - y.reason);
}

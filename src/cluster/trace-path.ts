// The hop-by-hop path of one TCP connection attempt: every device and hook its packets passed (hop
// records, including DNAT/SNAT/encapsulation notes), the drops with reason, site and policy explanation.
import type { ClusterRuntime } from "./runtime.js";
import { endpointByName } from "./probe/endpoints.js";
import { openServerListeners } from "./probe/servers.js";
import { probeTcp } from "./probe/tcp-probe.js";
import { PROBE_TIMEOUT_NS, type ProbeOutcome } from "./probe/outcome.js";
import type { DropRecord, HopRecord, Tuple } from "../trace/records.js";
import { RingSink } from "../trace/tracer.js";
import { dropReasonName } from "../../datapath/reasons.js";
import { formatIPv4, parseIPv4 } from "../util/ip.js";
import { err, ok, type Result } from "../util/result.js";

export interface TraceTarget {
  readonly label: string;
  readonly addr: number;
  readonly port: number;
}

export interface TracedDrop {
  readonly record: DropRecord;
  readonly reasonName: string;
}

export interface TracePath {
  readonly from: string;
  readonly to: TraceTarget;
  readonly outcome: ProbeOutcome;
  /** Hop records of the attempt's packets, in the order they happened. */
  readonly hops: readonly HopRecord[];
  readonly drops: readonly TracedDrop[];
}

const IPPROTO_TCP = 6;

/**
 * DST: a pod "ns/name[:PORT]" (default 80), "svc/ns/name[:PORT]" (default the first service port),
 * "node/NAME:PORT", or "A.B.C.D:PORT"; an optional "/TCP" suffix (only TCP is traced).
 */
export function parseTraceTarget(rt: ClusterRuntime, text: string): Result<TraceTarget, string> {
  const m = /^(.*?)(?::(\d{1,5}))?(?:\/([A-Za-z]+))?$/.exec(text.trim());
  if (m === null || m[1] === undefined || m[1] === "") return err(`--to "${text}": expected DST[:PORT[/PROTO]]`);
  if (m[3] !== undefined && m[3].toUpperCase() !== "TCP") return err(`--to "${text}": protocol ${m[3]} is not traced yet (TCP only)`);
  const name = m[1];
  const explicit = m[2] === undefined ? null : Number(m[2]);
  if (explicit !== null && !(explicit >= 1 && explicit <= 65535)) return err(`--to "${text}": port out of range`);
  const ip = parseIPv4(name);
  if (ip !== null) return explicit === null ? err(`--to "${text}": an IP destination needs :PORT`) : ok({ label: name, addr: ip, port: explicit });
  const e = endpointByName(rt, name);
  if (!e.ok) return err(`--to: ${e.error}`);
  let port = explicit ?? 80;
  if (explicit === null && e.value.kind === "svc") {
    const [, ns = "", svcName = ""] = name.split("/");
    port = rt.store.get("Service", ns, svcName)?.spec?.ports?.[0]?.port ?? 80;
  }
  if (explicit === null && e.value.kind === "node") return err(`--to "${text}": a node destination needs :PORT (e.g. a NodePort)`);
  return ok({ label: name, addr: e.value.addr, port });
}

/** Runs one attempt from `from` (pod, node/NAME, ext/NAME) with hop tracing on. */
export function tracePath(rt: ClusterRuntime, from: string, to: TraceTarget, timeoutNs = PROBE_TIMEOUT_NS): Result<TracePath, string> {
  const src = endpointByName(rt, from);
  if (!src.ok) return err(`--from: ${src.error}`);
  if (src.value.ns === null) return err(`--from ${from}: a service cannot start a connection`);
  const sink = new RingSink(100_000);
  const hopsOnly = { hop: (r: HopRecord) => sink.hop(r) };
  rt.world.tracer.addSink(hopsOnly);
  const close = openServerListeners(rt);
  rt.runUntilIdle();
  const firstHop = sink.hopRecords.length;
  const r = probeTcp(rt, src.value.ns, to.addr, to.port, timeoutNs);
  close();
  rt.world.tracer.removeSink(hopsOnly);
  // A packet belongs to the attempt when one of its records shows the client's port (before a SNAT
  // rewrote it); then every record of that packet id does, after NAT and inside the tunnel too.
  const recorded = sink.hopRecords.slice(firstHop);
  const ids = new Set<number>(r.drops.map((d) => d.packetId));
  for (const h of recorded) if (ofAttempt(h.tuple, r.localPort) || (h.outer !== undefined && ofAttempt(h.outer, r.localPort))) ids.add(h.packetId);
  const hops = recorded.filter((h) => ids.has(h.packetId));
  return ok({ from, to, outcome: r.outcome, hops, drops: r.drops.map((record) => ({ record, reasonName: dropReasonName(record.reason) })) });
}

function ofAttempt(t: Tuple, localPort: number): boolean {
  return t.proto === IPPROTO_TCP && (t.srcPort === localPort || t.dstPort === localPort);
}

export function formatTuple(t: Tuple): string {
  const proto = t.proto === 6 ? "TCP" : t.proto === 17 ? "UDP" : t.proto === 1 ? "ICMP" : t.proto === 4 ? "IPIP" : String(t.proto);
  return `${formatIPv4(t.src)}:${t.srcPort} -> ${formatIPv4(t.dst)}:${t.dstPort} ${proto}`;
}

/**
 * The path as text lines: each packet's hops and drops in order (times relative to the first record;
 * a packet that took the same path as an earlier one, e.g. a retransmitted SYN, is one line), then the verdict and
 * each distinct drop with its site and explanation.
 */
export function formatTracePath(p: TracePath): string[] {
  const lines = [`trace ${p.from} -> ${p.to.label} (${formatIPv4(p.to.addr)}:${p.to.port}/TCP)`];
  const t0 = Math.min(p.hops[0]?.time ?? Infinity, p.drops[0]?.record.time ?? Infinity);
  const at = (t: number): string => `+${((t - t0) / 1e6).toFixed(3)}ms`.padStart(12);
  const rows: { seq: number; packetId: number; key: string; text: string }[] = p.hops.map((h) => {
    const body = `${h.node} ${h.device} ${h.hook}  ${formatTuple(h.tuple)}${h.outer !== undefined ? `  outer ${formatTuple(h.outer)}` : ""}${h.note !== "" ? `  [${h.note}]` : ""}`;
    return { seq: h.seq, packetId: h.packetId, key: body, text: `${at(h.time)}  ${body}` };
  });
  for (const d of p.drops) {
    const r = d.record;
    const body = `${r.node} ${r.device} ${r.hook}  ${formatTuple(r.after)}  DROP ${d.reasonName} (${r.reason})`;
    rows.push({ seq: r.seq, packetId: r.packetId, key: body, text: `${at(r.time)}  ${body}` });
  }
  rows.sort((a, b) => a.seq - b.seq);
  const packets = new Map<number, typeof rows>();
  for (const r of rows) packets.set(r.packetId, [...(packets.get(r.packetId) ?? []), r]);
  const paths = new Map<string, number>();
  for (const [id, pr] of packets) {
    const path = pr.map((r) => r.key).join("\n");
    const same = paths.get(path);
    if (same !== undefined) {
      lines.push(`${at(timeOf(p, pr[0]!.seq, t0))}  packet ${id}: same path as packet ${same}`);
      continue;
    }
    paths.set(path, id);
    lines.push(`  packet ${id}:`);
    for (const r of pr) lines.push(r.text);
  }
  lines.push(`verdict: ${p.outcome}`);
  const shown = new Set<string>();
  for (const d of p.drops) {
    const r = d.record;
    const key = `${r.node}|${r.site}|${r.explanation ?? ""}`;
    if (shown.has(key)) continue;
    shown.add(key);
    const count = p.drops.filter((x) => `${x.record.node}|${x.record.site}|${x.record.explanation ?? ""}` === key).length;
    lines.push(`drop: ${d.reasonName} (${r.reason}) on ${r.node} ${r.device} ${r.hook}${count > 1 ? ` (${count} packets)` : ""}`);
    lines.push(`  site: ${r.site}`);
    if (formatTuple(r.before) !== formatTuple(r.after)) lines.push(`  before NAT ${formatTuple(r.before)}, after ${formatTuple(r.after)}`);
    if (r.explanation !== undefined) for (const l of r.explanation.split("\n")) lines.push(`  ${l}`);
  }
  return lines;
}

function timeOf(p: TracePath, seq: number, t0: number): number {
  return p.hops.find((h) => h.seq === seq)?.time ?? p.drops.find((d) => d.record.seq === seq)?.record.time ?? t0;
}

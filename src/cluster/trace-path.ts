// The hop-by-hop path of one connection attempt (TCP handshake, UDP datagram and reply, SCTP
// association setup, or ICMP echo): every device and hook its packets passed (hop records, including
// DNAT/SNAT/encapsulation notes), the drops with reason, site and policy explanation.
import type { ClusterRuntime } from "./runtime.js";
import { endpointByName } from "./probe/endpoints.js";
import { openServerListeners } from "./probe/servers.js";
import { openSctpListeners } from "./probe/sctp-servers.js";
import { probeTcp, type ProbeResult } from "./probe/tcp-probe.js";
import { probeUdp } from "./probe/udp-probe.js";
import { probeIcmp } from "./probe/icmp-probe.js";
import { probeSctp } from "./probe/sctp-probe.js";
import { PROBE_TIMEOUT_NS, type ProbeOutcome, type ProbeProtocol } from "./probe/outcome.js";
import type { DropRecord, HopRecord, Tuple } from "../trace/records.js";
import { RingSink } from "../trace/tracer.js";
import { dropReasonName } from "../../datapath/reasons.js";
import { formatIPv4, parseIPv4 } from "../util/ip.js";
import { err, ok, type Result } from "../util/result.js";

export interface TraceTarget {
  readonly label: string;
  readonly addr: number;
  /** 0 for an ICMP echo. */
  readonly port: number;
  /** Default TCP. */
  readonly protocol?: ProbeProtocol;
  /** Set when the destination is a Service's ClusterIP ("ns/name"). */
  readonly service?: string;
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
  /** Explanations of the verdict that no single drop record carries (e.g. a ClusterIP left untranslated). */
  readonly notes?: readonly string[];
}

const IPPROTO = { ICMP: 1, TCP: 6, UDP: 17, SCTP: 132 } as const;
/** ICMP types of error messages (their trace tuples carry the type where the destination port would be). */
const ICMP_ERROR_TYPES = new Set([3, 4, 5, 11, 12]);

/**
 * DST: a pod "ns/name[:PORT]" (default 80), "svc/ns/name[:PORT]" (default the first service port),
 * "node/NAME[:PORT]", or "A.B.C.D[:PORT]"; then "/TCP", "/UDP", "/SCTP" or "/ICMP". A node or an IP
 * without a port, or the suffix /ICMP without a port, is an ICMP echo (ping).
 */
export function parseTraceTarget(rt: ClusterRuntime, text: string): Result<TraceTarget, string> {
  // A suffix after :PORT or an IP can only be a protocol: no name holds ':' and no namespace a '.'.
  const proto = /^(?:.*:\d{1,5}|\d{1,3}(?:\.\d{1,3}){3})\/([^/]*)$/.exec(text.trim());
  if (proto !== null && !/^(TCP|UDP|SCTP|ICMP)$/i.test(proto[1]!)) return err(`--to "${text}": unknown protocol "${proto[1]}" (TCP, UDP, SCTP or ICMP)`);
  const m = /^(.*?)(?::(\d{1,5}))?(?:\/(TCP|UDP|SCTP|ICMP))?$/i.exec(text.trim());
  if (m === null || m[1] === undefined || m[1] === "") return err(`--to "${text}": expected DST[:PORT[/PROTO]]`);
  const name = m[1];
  const explicit = m[2] === undefined ? null : Number(m[2]);
  const suffix = m[3]?.toUpperCase() as ProbeProtocol | undefined;
  if (explicit !== null && !(explicit >= 1 && explicit <= 65535)) return err(`--to "${text}": port out of range`);
  if (suffix === "ICMP" && explicit !== null) return err(`--to "${text}": an ICMP echo has no port`);
  const ip = parseIPv4(name);
  const e = ip === null ? endpointByName(rt, name) : null;
  if (e !== null && !e.ok) return err(`--to: ${e.error}`);
  const endpoint = e?.value ?? null;
  const addr = ip ?? endpoint?.addr ?? 0;
  const service = endpoint?.kind === "svc" ? name.slice("svc/".length) : undefined;
  const svc = service !== undefined ? { service } : {};
  const hostLike = ip !== null || endpoint?.kind === "node" || endpoint?.kind === "ext";
  if (suffix === "ICMP" || (explicit === null && hostLike && suffix === undefined)) return ok({ label: name, addr, port: 0, protocol: "ICMP", ...svc });
  if (explicit === null && hostLike) return err(`--to "${text}": ${suffix} needs :PORT (e.g. a NodePort)`);
  let port = explicit ?? 80;
  let protocol: ProbeProtocol = suffix ?? "TCP";
  if (explicit === null && service !== undefined) {
    const [ns = "", svcName = ""] = service.split("/");
    const first = rt.store.get("Service", ns, svcName)?.spec?.ports?.[0];
    port = first?.port ?? 80;
    if (suffix === undefined && first?.protocol !== undefined) protocol = first.protocol as ProbeProtocol;
  }
  return ok({ label: name, addr, port, protocol, ...svc });
}

/** Runs one attempt from `from` (pod, node/NAME, ext/NAME) with hop tracing on. */
export function tracePath(rt: ClusterRuntime, from: string, to: TraceTarget, timeoutNs = PROBE_TIMEOUT_NS): Result<TracePath, string> {
  const src = endpointByName(rt, from);
  if (!src.ok) return err(`--from: ${src.error}`);
  const srcNs = src.value.ns;
  if (srcNs === null) return err(`--from ${from}: a service cannot start a connection`);
  const sink = new RingSink(100_000);
  const hopsOnly = { hop: (r: HopRecord) => sink.hop(r) };
  rt.world.tracer.addSink(hopsOnly);
  const close = openServerListeners(rt);
  const closeSctp = openSctpListeners(rt);
  rt.runUntilIdle();
  const firstHop = sink.hopRecords.length;
  const protocol = to.protocol ?? "TCP";
  const r: ProbeResult =
    protocol === "ICMP"
      ? probeIcmp(rt, srcNs, to.addr, timeoutNs)
      : protocol === "UDP"
        ? probeUdp(rt, srcNs, to.addr, to.port, timeoutNs)
        : protocol === "SCTP"
          ? probeSctp(rt, srcNs, to.addr, to.port, timeoutNs)
          : probeTcp(rt, srcNs, to.addr, to.port, timeoutNs);
  close();
  closeSctp();
  rt.world.tracer.removeSink(hopsOnly);
  // A packet belongs to the attempt when one of its records shows the client's port or echo id (before
  // a SNAT rewrote it), or it is an ICMP error addressed to the source; then every record of that packet
  // id does, after NAT and inside the tunnel too.
  const recorded = sink.hopRecords.slice(firstHop);
  const ids = new Set<number>(r.drops.map((d) => d.packetId));
  const proto = IPPROTO[protocol];
  const mine = (t: Tuple): boolean => ofAttempt(t, proto, r.localPort) || (t.proto === IPPROTO.ICMP && ICMP_ERROR_TYPES.has(t.dstPort) && t.dst === src.value.addr);
  for (const h of recorded) if (mine(h.tuple) || (h.outer !== undefined && mine(h.outer))) ids.add(h.packetId);
  const hops = recorded.filter((h) => ids.has(h.packetId));
  const notes = serviceNotes(rt, to, protocol, hops);
  return ok({ from, to, outcome: r.outcome, hops, drops: r.drops.map((record) => ({ record, reasonName: dropReasonName(record.reason) })), ...(notes.length > 0 ? { notes } : {}) });
}

function ofAttempt(t: Tuple, proto: number, localPort: number): boolean {
  return t.proto === proto && (t.srcPort === localPort || t.dstPort === localPort);
}

/**
 * A ClusterIP the attempt reached without a DNAT: kube-proxy (iptables mode) writes one KUBE-SERVICES
 * rule per service port (`-d CLUSTER-IP -p PROTO --dport PORT`; an eBPF dataplane one service map
 * entry), so anything else (ICMP, another port) matches none, and the kernel routes the packet like any
 * address: the service CIDR has no route of its own, so it follows the node's default route out of the
 * cluster. The seed lab saw this as a ping to a ClusterIP with 100% loss.
 */
function serviceNotes(rt: ClusterRuntime, to: TraceTarget, protocol: ProbeProtocol, hops: readonly HopRecord[]): string[] {
  if (to.service === undefined || hops.some((h) => h.note.startsWith(`DNAT ${formatIPv4(to.addr)}:`))) return [];
  const [ns = "", name = ""] = to.service.split("/");
  const ports = (rt.store.get("Service", ns, name)?.spec?.ports ?? []).map((p) => `${p.port}/${p.protocol ?? "TCP"}`);
  const what = protocol === "ICMP" ? "an ICMP echo" : `${to.port}/${protocol}`;
  const kubeProxy = rt.services.proxies.size > 0;
  const who = kubeProxy ? "kube-proxy (iptables mode)" : "the dataplane's service load balancer";
  const out = [
    `no DNAT: ${who} translates ClusterIP ${formatIPv4(to.addr)} only on the service's ports (${ports.join(", ") || "none"}); ${what} matches ${kubeProxy ? "no KUBE-SERVICES rule" : "no service map entry"}`,
    "so the kernel routes it like any other address: the service CIDR has no route, the node's default route takes it out of the cluster",
  ];
  const left = hops.find((h) => h.note.startsWith("routed via"));
  if (left !== undefined) out.push(`here: ${left.node} ${left.note}`);
  const error = hops.find((h) => h.tuple.proto === IPPROTO.ICMP && ICMP_ERROR_TYPES.has(h.tuple.dstPort));
  if (error !== undefined) out.push(`the ICMP error came from ${formatIPv4(error.tuple.src)}, a router on that way, not from the service or its endpoints`);
  return out;
}

const ICMP_NAMES: Readonly<Record<number, string>> = { 0: "echo reply", 3: "unreachable", 8: "echo request", 11: "time exceeded", 12: "parameter problem" };

/** "A:p -> B:q TCP"; ICMP as "A -> B ICMP echo request id N" (trace tuples carry the type as the destination port and an echo's id as the source port). */
export function formatTuple(t: Tuple): string {
  if (t.proto === IPPROTO.ICMP) {
    const type = ICMP_NAMES[t.dstPort] ?? `type ${t.dstPort}`;
    return `${formatIPv4(t.src)} -> ${formatIPv4(t.dst)} ICMP ${type}${t.dstPort === 0 || t.dstPort === 8 ? ` id ${t.srcPort}` : ""}`;
  }
  const proto = t.proto === 6 ? "TCP" : t.proto === 17 ? "UDP" : t.proto === 4 ? "IPIP" : t.proto === 132 ? "SCTP" : String(t.proto);
  return `${formatIPv4(t.src)}:${t.srcPort} -> ${formatIPv4(t.dst)}:${t.dstPort} ${proto}`;
}

/** A drop record's tuple before/after NAT: for ICMP only the addresses and the echo id (conntrack's key). */
function formatNatTuple(t: Tuple): string {
  return t.proto === IPPROTO.ICMP ? `${formatIPv4(t.src)} -> ${formatIPv4(t.dst)} ICMP id ${t.srcPort}` : formatTuple(t);
}

/**
 * The path as text lines: each packet's hops and drops in order (times relative to the first record;
 * a packet that took the same path as an earlier one, e.g. a retransmitted SYN, is one line), then the verdict and
 * each distinct drop with its site and explanation.
 */
export function formatTracePath(p: TracePath): string[] {
  const protocol = p.to.protocol ?? "TCP";
  const lines = [`trace ${p.from} -> ${p.to.label} (${protocol === "ICMP" ? `${formatIPv4(p.to.addr)} ICMP echo` : `${formatIPv4(p.to.addr)}:${p.to.port}/${protocol}`})`];
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
  for (const n of p.notes ?? []) lines.push(`note: ${n}`);
  const shown = new Set<string>();
  for (const d of p.drops) {
    const r = d.record;
    const key = `${r.node}|${r.site}|${r.explanation ?? ""}`;
    if (shown.has(key)) continue;
    shown.add(key);
    const count = p.drops.filter((x) => `${x.record.node}|${x.record.site}|${x.record.explanation ?? ""}` === key).length;
    lines.push(`drop: ${d.reasonName} (${r.reason}) on ${r.node} ${r.device} ${r.hook}${count > 1 ? ` (${count} packets)` : ""}`);
    lines.push(`  site: ${r.site}`);
    if (formatNatTuple(r.before) !== formatNatTuple(r.after)) lines.push(`  before NAT ${formatNatTuple(r.before)}, after ${formatNatTuple(r.after)}`);
    if (r.explanation !== undefined) for (const l of r.explanation.split("\n")) lines.push(`  ${l}`);
  }
  return lines;
}

function timeOf(p: TracePath, seq: number, t0: number): number {
  return p.hops.find((h) => h.seq === seq)?.time ?? p.drops.find((d) => d.record.seq === seq)?.record.time ?? t0;
}

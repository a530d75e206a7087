// Trace events: at most one per run, emitted at the program's exit with the trace point of the outcome
// (to-endpoint, to-stack, to-overlay, ...) and the tuple before and after the run's translations.
import { formatIPv4 } from "../../src/util/ip.js";
import { EventKind, Xlate, type DatapathCtx, type DatapathEvent } from "../ctx.js";

/** Fills the reusable event from the ctx (shared by trace and drop). */
export function fillEvent(ctx: DatapathCtx, kind: number): void {
  const ev = ctx.event;
  ev.kind = kind;
  ev.point = -1;
  ev.reason = 0;
  ev.site = "";
  ev.srcIdentity = ctx.srcIdentity;
  ev.dstIdentity = ctx.dstIdentity;
  ev.proto = ctx.proto;
  ev.origSrc = ctx.origSaddr;
  ev.origDst = ctx.origDaddr;
  ev.origSrcPort = ctx.origSport;
  ev.origDstPort = ctx.origDport;
  ev.src = ctx.saddr;
  ev.dst = ctx.daddr;
  ev.srcPort = ctx.sport;
  ev.dstPort = ctx.dport;
  ev.xlate = ctx.xlate;
  ev.tunnelPeer = ctx.tunnelPeer;
  ev.policy = null;
  ev.detail = ctx.detail;
}

/** Emits the run's trace event for `point` (a TracePoint code) when tracing is on. */
export function sendTrace(ctx: DatapathCtx, point: number): void {
  if (!ctx.traceEnabled) return;
  fillEvent(ctx, EventKind.TRACE);
  ctx.event.point = point;
  ctx.emit(ctx.event);
}

/** Words for a trace note, e.g. "DNAT 10.96.0.10:80 -> 10.244.1.5:8080; encap to 10.1.8.32". Allocates: call only when tracing. */
export function describeEvent(ev: DatapathEvent): string {
  const parts: string[] = [];
  const origSrc = `${formatIPv4(ev.origSrc)}:${ev.origSrcPort}`;
  const origDst = `${formatIPv4(ev.origDst)}:${ev.origDstPort}`;
  const src = `${formatIPv4(ev.src)}:${ev.srcPort}`;
  const dst = `${formatIPv4(ev.dst)}:${ev.dstPort}`;
  const x = ev.xlate;
  if ((x & Xlate.DECAP) !== 0) parts.push(`decap from ${formatIPv4(ev.tunnelPeer)}`);
  if ((x & Xlate.REJECT) !== 0) parts.push(`no backend for ${origDst}: ICMP port unreachable to ${formatIPv4(ev.dst)}`);
  if ((x & Xlate.REV_SNAT) !== 0) parts.push(`reverse SNAT ${origDst} -> ${dst}`);
  if ((x & Xlate.DNAT) !== 0) parts.push(`DNAT ${origDst} -> ${dst}`);
  if ((x & Xlate.REV_DNAT) !== 0) parts.push(`reverse DNAT ${origSrc} -> ${src}`);
  if ((x & Xlate.SNAT) !== 0) parts.push(`SNAT ${origSrc} -> ${src}`);
  if ((x & Xlate.ENCAP) !== 0) parts.push(`encap to ${formatIPv4(ev.tunnelPeer)}`);
  parts.push(`identity ${ev.srcIdentity} -> ${ev.dstIdentity}`);
  return parts.join("; ");
}

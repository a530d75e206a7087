// Text forms of `cnisim pcap inspect`: a tcpdump-like line or a JSON Lines object per packet, and the
// closing summary (records read, decoded, skipped and why).

import { formatTimestampNs } from "../pcap/timestamp.js";
import type { CaptureRecord, CaptureSummary, SkippedRecord } from "../pcap/types.js";
import type { Layer } from "../wire/layers.js";
import { summarize } from "../wire/summary.js";

/** `{"index":1,"ts":"<seconds.nanoseconds>","caplen":..,"len":..,"layers":[...]}` (issue 2). */
export function jsonLine(record: CaptureRecord, layers: readonly Layer[]): string {
  return JSON.stringify({
    index: record.index,
    ts: formatTimestampNs(record.tsNs),
    caplen: record.caplen,
    len: record.len,
    layers,
  });
}

/** "seconds.nanoseconds [interface] summary"; the interface name is shown only for multi-interface files. */
export function textLine(record: CaptureRecord, layers: readonly Layer[], interfaceLabel: string | null): string {
  const where = interfaceLabel === null ? "" : ` ${interfaceLabel}`;
  return `${formatTimestampNs(record.tsNs)}${where} ${summarize(layers)}`;
}

/** Label for each interface when there is more than one: its if_name, or "if<N>". */
export function interfaceLabel(summary: CaptureSummary, interfaceId: number): string | null {
  if (summary.interfaces.length < 2) return null;
  return summary.interfaces[interfaceId]?.name ?? `if${interfaceId}`;
}

export function skippedText(entry: SkippedRecord): string {
  const what = entry.index === 0 ? "skipped block" : `skipped record ${entry.index}`;
  return `${what} at offset ${entry.offset}: ${entry.reason}`;
}

/** The closing summary lines. `undecodable` counts frames whose dissection ended in an error layer. */
export function summaryLines(summary: CaptureSummary, undecodable: number): string[] {
  const skippedRecords = summary.skipped.filter((s) => s.index !== 0).length;
  const lines = [
    `summary: ${summary.read} records read, ${summary.decoded} decoded, ${skippedRecords} skipped` +
      (undecodable > 0 ? `, ${undecodable} with a header that did not decode` : ""),
  ];
  for (const entry of summary.skipped) lines.push(`  ${skippedText(entry)}`);
  const other = Object.entries(summary.otherBlocks);
  if (other.length > 0) lines.push(`  other pcapng blocks passed over: ${other.map(([name, n]) => `${name} x${n}`).join(", ")}`);
  if (summary.stopped !== null) lines.push(`  stopped reading at offset ${summary.stopped.offset}: ${summary.stopped.reason}`);
  return lines;
}

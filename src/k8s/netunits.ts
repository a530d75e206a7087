// Link units of the Cluster file: bandwidth ("10Gbps", "25G", "100Mbit") in bits per second,
// latency ("50us", "1ms", "0") in integer nanoseconds and the transmit queue ("4Mi", 1514000) in
// bytes. Bandwidth prefixes are decimal (k = 1000), as for link speeds; bytes per second ("Bps",
// "B/s") is refused because tc reads it differently. The queue is a Kubernetes quantity.
import { err, ok, type Result } from "../util/result.js";
import { parseQuantity, quantityValue } from "./quantity.js";

const BANDWIDTH_PREFIX: Readonly<Record<string, number>> = { "": 1, k: 1e3, K: 1e3, m: 1e6, M: 1e6, g: 1e9, G: 1e9, t: 1e12, T: 1e12 };
const BANDWIDTH_RE = /^(\d+(?:\.\d+)?)([kKmMgGtT]?)(bps|bit|bit\/s|b\/s|)$/;

/** Parses a bandwidth to bits per second; a bare number is already bits per second. */
export function parseBandwidth(text: string | number): Result<number, string> {
  if (typeof text === "number") {
    return Number.isFinite(text) && text > 0 ? ok(Math.round(text)) : err("must be a positive number of bits per second");
  }
  if (/B(ps|\/s)$/.test(text)) {
    return err(`invalid bandwidth "${text}": bytes per second is ambiguous; write bits per second, e.g. 10Gbps`);
  }
  const m = BANDWIDTH_RE.exec(text);
  if (m === null) return err(`invalid bandwidth "${text}": expected a number with an optional k, M, G or T prefix and bps, e.g. 10Gbps or 25G`);
  const bps = Number(m[1]) * BANDWIDTH_PREFIX[m[2]!]!;
  if (!(bps >= 1) || !Number.isSafeInteger(Math.round(bps))) return err(`invalid bandwidth "${text}": must be at least 1 bit per second`);
  return ok(Math.round(bps));
}

const DURATION_UNIT_NS: Readonly<Record<string, number>> = { ns: 1, us: 1e3, "µs": 1e3, ms: 1e6, s: 1e9 };
const DURATION_RE = /^(\d+(?:\.\d+)?)(ns|us|µs|ms|s)$/;

/** Parses a duration to whole nanoseconds ("0" needs no unit, as in Go's time.ParseDuration). */
export function parseDuration(text: string | number): Result<number, string> {
  if (text === "0" || text === 0) return ok(0);
  if (typeof text === "number") return err(`invalid duration ${text}: give a unit, e.g. 50us or 1ms`);
  const m = DURATION_RE.exec(text);
  if (m === null) return err(`invalid duration "${text}": expected a number and a unit (ns, us, ms, s), e.g. 50us`);
  const ns = Number(m[1]) * DURATION_UNIT_NS[m[2]!]!;
  const rounded = Math.round(ns);
  if (Math.abs(ns - rounded) > 1e-6 * Math.max(1, ns)) return err(`invalid duration "${text}": must be a whole number of nanoseconds`);
  if (!Number.isSafeInteger(rounded)) return err(`invalid duration "${text}": too large`);
  return ok(rounded);
}

/**
 * An Ethernet header, and what the link counts for a frame beyond it: preamble 8, FCS 4, gap 12
 * (net/link's ETHERNET_WIRE_OVERHEAD; k8s may import only util, and link-queue.test.ts checks that
 * the smallest queue accepted here holds exactly one full frame on the link).
 */
const FRAME_HEADER = 14;
const FRAME_WIRE_OVERHEAD = 24;

/** Parses a queue size in bytes: a Kubernetes quantity ("4Mi", "1.5M", rounded up to a whole byte) or a number. */
export function parseQueueSize(text: string | number): Result<number, string> {
  const q = parseQuantity(String(text));
  if (!q.ok) return err(`invalid queue ${JSON.stringify(text)}: ${q.error}`);
  const bytes = quantityValue(q.value);
  if (!Number.isSafeInteger(bytes) || bytes < 0) return err(`invalid queue ${JSON.stringify(text)}: must be a number of bytes from 0 to ${Number.MAX_SAFE_INTEGER}`);
  return ok(bytes);
}

/**
 * Why a transmit queue of `bytes` cannot serve a link of this MTU, or null. The queue counts frames as
 * the wire does (header, payload, preamble, FCS and gap), the one being sent included, so it must hold
 * at least one full frame.
 */
export function queueTooSmall(bytes: number, mtu: number): string | null {
  const frame = mtu + FRAME_HEADER + FRAME_WIRE_OVERHEAD;
  if (bytes >= frame) return null;
  return `must hold at least one full frame, ${frame} bytes on the wire (MTU ${mtu} + ${FRAME_HEADER} + ${FRAME_WIRE_OVERHEAD})`;
}

/** Parses a link's transmit queue (parseQueueSize) and checks that it holds a full frame (queueTooSmall). */
export function parseQueueBytes(text: string | number, mtu: number): Result<number, string> {
  const b = parseQueueSize(text);
  if (!b.ok) return b;
  const small = queueTooSmall(b.value, mtu);
  return small === null ? b : err(`invalid queue ${JSON.stringify(text)}: ${small}`);
}

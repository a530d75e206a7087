// The `--traffic` spec of `cnisim top` and `cnisim serve`: one flow of steady load between two
// endpoints of the emulated cluster, e.g. `web/test->svc/web/web1:80 rate=200/s` or
// `udp default/a->default/b:9000 rate=5000/s size=1400` (grammar in src/api/README.md).
import { parseDuration } from "../../k8s/index.js";
import { parseIPv4 } from "../../util/ip.js";
import { err, ok, type Result } from "../../util/result.js";

export const FlowKind = { HTTP: "http", UDP: "udp", PING: "ping" } as const;
export type FlowKind = (typeof FlowKind)[keyof typeof FlowKind];

/** An endpoint as written: a pod "ns/name", a node, a Service (destination only) or an IPv4 address (destination only). */
export type FlowEndpoint =
  | { readonly kind: "pod"; readonly namespace: string; readonly name: string }
  | { readonly kind: "node"; readonly name: string }
  | { readonly kind: "service"; readonly namespace: string; readonly name: string }
  | { readonly kind: "address"; readonly ip: number };

export interface FlowSpec {
  readonly text: string;
  readonly kind: FlowKind;
  readonly from: FlowEndpoint;
  readonly to: FlowEndpoint;
  /** Destination port (http: default 80; udp: required; ping: 0). */
  readonly port: number;
  /** Requests, datagrams or echo requests per simulated second. */
  readonly ratePerSecond: number;
  /** udp: IPv4 datagram size in bytes (headers included, 28-65535, default 1400); ping: data bytes (-s, default 56). */
  readonly size: number;
  /** http: the request path (default "/"). */
  readonly path: string;
  /** Simulated time after the start before the first packet (`after=30s`, default 0). */
  readonly afterNs: number;
}

export interface TrafficSpecError {
  readonly spec: string;
  /** 1-based column of the offending text. */
  readonly column: number;
  readonly message: string;
}

export function formatTrafficSpecError(e: TrafficSpecError): string {
  return `--traffic "${e.spec}": column ${e.column}: ${e.message}`;
}

const DEFAULT_RATE: Readonly<Record<FlowKind, number>> = { http: 10, udp: 1000, ping: 1 };
const DEFAULT_SIZE: Readonly<Record<FlowKind, number>> = { http: 0, udp: 1400, ping: 56 };
/** Highest rate a flow may ask for (one event per packet: beyond this the emulation crawls). */
export const MAX_RATE_PER_SECOND = 200_000;
const NAME = /^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$/;

function endpoint(text: string, source: boolean): Result<FlowEndpoint, string> {
  const parts = text.split("/");
  if (parts.length === 1) {
    const ip = parseIPv4(text);
    if (ip === null) return err(`"${text}" is not an endpoint (ns/pod, node/NAME${source ? "" : ", svc/ns/name or an IPv4 address"})`);
    if (source) return err(`an address cannot send traffic: name a pod (ns/pod) or a node (node/NAME)`);
    return ok({ kind: "address", ip });
  }
  if (parts.some((p) => !NAME.test(p))) return err(`"${text}" has a part that is not a Kubernetes name`);
  if (parts[0] === "node" && parts.length === 2) return ok({ kind: "node", name: parts[1]! });
  if (parts[0] === "svc" && parts.length === 3) {
    if (source) return err("a Service cannot send traffic: name a pod (ns/pod) or a node (node/NAME)");
    return ok({ kind: "service", namespace: parts[1]!, name: parts[2]! });
  }
  if (parts.length === 2) return ok({ kind: "pod", namespace: parts[0]!, name: parts[1]! });
  return err(`"${text}" is not an endpoint (ns/pod, node/NAME, svc/ns/name)`);
}

function positiveNumber(text: string): number | null {
  if (!/^\d+(\.\d+)?$/.test(text)) return null;
  const n = Number(text);
  return n > 0 ? n : null;
}

/** Parses one `--traffic` value. */
export function parseTrafficSpec(spec: string): Result<FlowSpec, TrafficSpecError> {
  const fail = (at: number, message: string): Result<FlowSpec, TrafficSpecError> => err({ spec, column: at + 1, message });
  const words: { text: string; at: number }[] = [];
  for (const m of spec.matchAll(/\S+/g)) words.push({ text: m[0], at: m.index ?? 0 });
  if (words.length === 0) return fail(0, "empty traffic spec: give FROM->TO[:PORT], e.g. web/test->svc/web/web1:80 rate=200/s");
  let kind: FlowKind = FlowKind.HTTP;
  let i = 0;
  const first = words[0]!.text;
  if (first === "http" || first === "udp" || first === "ping") {
    kind = first;
    i = 1;
  }
  const flow = words[i];
  if (flow === undefined) return fail(spec.length, "missing FROM->TO");
  const arrow = flow.text.indexOf("->");
  if (arrow <= 0) return fail(flow.at, `"${flow.text}" is not FROM->TO[:PORT]`);
  const from = endpoint(flow.text.slice(0, arrow), true);
  if (!from.ok) return fail(flow.at, from.error);
  let toText = flow.text.slice(arrow + 2);
  let port = kind === FlowKind.HTTP ? 80 : 0;
  const colon = toText.lastIndexOf(":");
  if (colon >= 0) {
    const portText = toText.slice(colon + 1);
    const at = flow.at + arrow + 2 + colon + 1;
    if (kind === FlowKind.PING) return fail(at, "ping has no port");
    if (!/^\d+$/.test(portText) || Number(portText) < 1 || Number(portText) > 65535) return fail(at, `"${portText}" is not a port (1-65535)`);
    port = Number(portText);
    toText = toText.slice(0, colon);
  }
  if (kind === FlowKind.UDP && port === 0) return fail(flow.at + flow.text.length, "udp needs a destination port (TO:PORT)");
  const to = endpoint(toText, false);
  if (!to.ok) return fail(flow.at + arrow + 2, to.error);
  if (to.value.kind === "service" && kind === FlowKind.PING) return fail(flow.at + arrow + 2, "a Service address does not answer ping (kube-proxy only translates its ports)");
  let rate = DEFAULT_RATE[kind];
  let size = DEFAULT_SIZE[kind];
  let path = "/";
  let afterNs = 0;
  for (const w of words.slice(i + 1)) {
    const eq = w.text.indexOf("=");
    const key = eq < 0 ? w.text : w.text.slice(0, eq);
    const value = eq < 0 ? "" : w.text.slice(eq + 1);
    const at = w.at + eq + 1;
    if (key === "rate") {
      const n = positiveNumber(value.replace(/\/s$/, ""));
      if (n === null) return fail(at, `rate "${value}" is not a positive number per second (e.g. 200/s)`);
      if (n > MAX_RATE_PER_SECOND) return fail(at, `rate ${n}/s is above the limit of ${MAX_RATE_PER_SECOND}/s`);
      rate = n;
    } else if (key === "size" && kind !== FlowKind.HTTP) {
      const n = /^\d+$/.test(value) ? Number(value) : NaN;
      const [min, max] = kind === FlowKind.UDP ? [28, 65535] : [0, 65507];
      if (!(n >= min && n <= max)) return fail(at, `size "${value}" must be a whole number of bytes from ${min} to ${max}`);
      size = n;
    } else if (key === "after") {
      const d = parseDuration(value);
      if (!d.ok || d.value < 0) return fail(at, `after "${value}" is not a duration such as 30s`);
      afterNs = d.value;
    } else if (key === "path" && kind === FlowKind.HTTP) {
      if (!value.startsWith("/")) return fail(at, `path "${value}" must start with /`);
      path = value;
    } else return fail(w.at, `unknown option "${key}" for ${kind} (${kind === FlowKind.HTTP ? "rate, path, after" : "rate, size, after"})`);
  }
  return ok({ text: spec, kind, from: from.value, to: to.value, port, ratePerSecond: rate, size, path, afterNs });
}

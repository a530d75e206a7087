// Runs `--traffic` flows on a cluster runtime's simulator: HTTP GETs (curl-like, one connection each),
// UDP datagrams of a size, or a ping, at a steady rate from a pod or node to a pod, node, Service or
// address. A destination port nothing listens on gets a server the runtime would run there (an
// nginx-like HttpServer, a counting UDP sink); the requests those answer feed per-request usage.
import type { ClusterRuntime } from "../../cluster/index.js";
import { HttpServer, httpGet, HttpTool, Ping } from "../../cluster/workloads/index.js";
import type { NetNamespace } from "../../net/stack/namespace.js";
import { UdpSocket } from "../../net/udp-socket.js";
import { formatIPv4, parseIPv4 } from "../../util/ip.js";
import { err, ok, type Result } from "../../util/result.js";
import type { RequestCounter } from "../cluster-metering.js";
import { FlowKind, type FlowEndpoint, type FlowSpec } from "./spec.js";

export interface FlowStats {
  readonly text: string;
  /** Requests / datagrams / echo requests sent. */
  readonly sent: number;
  /** Answers: HTTP responses, datagrams the started sinks received, echo replies. */
  readonly answered: number;
  /** HTTP requests that failed (refused, timeout, reset, unreachable); datagrams the socket refused. */
  readonly failed: number;
}

interface Backend {
  readonly podKey: string;
  readonly ns: NetNamespace;
  readonly port: number;
}

interface Resolved {
  readonly src: NetNamespace;
  readonly dst: number;
  readonly backends: readonly Backend[];
}

const SECOND = 1e9;
const ICMP_ECHO_REPLY = 0;
/** IPv4 (20) + UDP (8) header bytes of a datagram. */
const UDP_IP_HEADERS = 28;

export class TrafficDriver implements RequestCounter {
  private readonly readers: (() => FlowStats)[] = [];
  private readonly served = new Map<string, () => number>();
  private readonly stops: (() => void)[] = [];
  private running = true;

  private constructor(
    private readonly rt: ClusterRuntime,
    private readonly epochMs: number,
  ) {}

  /** Resolves every flow against the runtime, starts the servers they need and begins sending. */
  static start(rt: ClusterRuntime, specs: readonly FlowSpec[], epochMs: number): Result<TrafficDriver, string> {
    const driver = new TrafficDriver(rt, epochMs);
    const resolved: Resolved[] = [];
    for (const spec of specs) {
      const r = driver.resolve(spec);
      if (!r.ok) return err(`--traffic "${spec.text}": ${r.error}`);
      resolved.push(r.value);
    }
    specs.forEach((spec, i) => rt.sim.schedule(spec.afterNs, () => driver.run(spec, resolved[i]!)));
    return ok(driver);
  }

  /** What each flow that has started has done so far, in the order they started. */
  flows(): FlowStats[] {
    return this.readers.map((r) => r());
  }

  /** Requests the servers this driver started answered for a pod ("ns/name"). */
  requestsServed(podKey: string): number {
    return this.served.get(podKey)?.() ?? 0;
  }

  stop(): void {
    this.running = false;
    for (const s of this.stops.splice(0)) s();
  }

  private namespaceOf(e: FlowEndpoint): Result<{ ns: NetNamespace; ip: number } | null, string> {
    if (e.kind === "pod") {
      const p = this.rt.pod(`${e.namespace}/${e.name}`);
      return p === undefined ? err(`pod ${e.namespace}/${e.name} has no network (unknown, not scheduled or not running)`) : ok({ ns: p.ns, ip: p.ip });
    }
    if (e.kind === "node") {
      const n = this.rt.node(e.name);
      return n === undefined ? err(`node ${e.name} is not in the cluster`) : ok({ ns: n.ns, ip: n.ip });
    }
    return ok(null);
  }

  private resolve(spec: FlowSpec): Result<Resolved, string> {
    const from = this.namespaceOf(spec.from);
    if (!from.ok) return from;
    if (from.value === null) return err("traffic comes from a pod or a node");
    const src = from.value.ns;
    const to = spec.to;
    if (to.kind === "address") return ok({ src, dst: to.ip, backends: [] });
    if (to.kind === "service") return this.resolveService(spec, src, to.namespace, to.name);
    const dst = this.namespaceOf(to);
    if (!dst.ok) return dst;
    if (dst.value === null) return err("unreachable destination kind");
    const backends = to.kind === "pod" ? [{ podKey: `${to.namespace}/${to.name}`, ns: dst.value.ns, port: spec.port }] : [];
    return ok({ src, dst: dst.value.ip, backends });
  }

  /** The Service's cluster IP, and the ready pods behind the port (their Endpoints) with its target port. */
  private resolveService(spec: FlowSpec, src: NetNamespace, namespace: string, name: string): Result<Resolved, string> {
    const svc = this.rt.store.get("Service", namespace, name);
    if (svc === undefined) return err(`service ${namespace}/${name} not found`);
    const ip = parseIPv4(svc.spec?.clusterIP ?? "");
    if (ip === null) return err(`service ${namespace}/${name} has no cluster IP`);
    const protocol = spec.kind === FlowKind.UDP ? "UDP" : "TCP";
    const port = (svc.spec?.ports ?? []).find((p) => p.port === spec.port && (p.protocol ?? "TCP") === protocol);
    if (port === undefined) return err(`service ${namespace}/${name} has no ${protocol} port ${spec.port}`);
    const backends: Backend[] = [];
    for (const subset of this.rt.store.get("Endpoints", namespace, name)?.subsets ?? []) {
      const target = (subset.ports ?? []).find((p) => (port.name === undefined || p.name === port.name) && (p.protocol ?? "TCP") === protocol);
      for (const a of subset.addresses ?? []) {
        const ref = a.targetRef;
        const pod = ref?.kind === "Pod" ? this.rt.pod(`${ref.namespace ?? namespace}/${ref.name}`) : undefined;
        if (pod !== undefined && target !== undefined) backends.push({ podKey: pod.key, ns: pod.ns, port: target.port });
      }
    }
    return ok({ src, dst: ip, backends });
  }

  private count(podKey: string, read: () => number): void {
    const before = this.served.get(podKey);
    this.served.set(podKey, before === undefined ? read : () => before() + read());
  }

  private run(spec: FlowSpec, r: Resolved): void {
    if (!this.running) return;
    const sim = this.rt.sim;
    const interval = Math.max(1, Math.round(SECOND / spec.ratePerSecond));
    const text = spec.text;
    if (spec.kind === FlowKind.PING) {
      const ping = new Ping(r.src, r.dst, { intervalNs: interval, size: spec.size, epochMs: this.epochMs }, () => undefined);
      // Ping keeps its tallies for its summary; requests go out on its interval, replies show in the ICMP counters.
      const c = r.src.counters;
      const in0 = c.icmpInType[ICMP_ECHO_REPLY]!;
      const start = sim.now;
      this.readers.push(() => ({ text, sent: Math.floor((sim.now - start) / interval) + 1, answered: c.icmpInType[ICMP_ECHO_REPLY]! - in0, failed: 0 }));
      ping.start();
      this.stops.push(() => ping.stop());
      return;
    }
    let sent = 0;
    let failed = 0;
    if (spec.kind === FlowKind.HTTP) {
      let answered = 0;
      this.readers.push(() => ({ text, sent, answered, failed }));
      for (const b of r.backends) {
        const server = new HttpServer(b.ns, { port: b.port, epochMs: this.epochMs });
        if (!server.start().ok) continue; // something serves the port already
        this.count(b.podKey, () => server.stats.requests);
        this.stops.push(() => server.stop());
      }
      const host = formatIPv4(r.dst);
      const tick = (): void => {
        if (!this.running) return;
        sent++;
        httpGet(r.src, { host, port: spec.port, path: spec.path, tool: HttpTool.CURL }, (res) => {
          if (res.kind === "response") answered++;
          else failed++;
        });
        sim.schedule(interval, tick);
      };
      sim.schedule(0, tick);
      return;
    }
    const sinks: (() => number)[] = [];
    this.readers.push(() => ({ text, sent, answered: sinks.reduce((n, read) => n + read(), 0), failed }));
    for (const b of r.backends) {
      let received = 0;
      const sink = UdpSocket.bind(b.ns, b.port, { onMessage: () => void received++ });
      if (!sink.ok) continue; // something serves the port already
      const read = (): number => received;
      sinks.push(read);
      this.count(b.podKey, read);
      this.stops.push(() => sink.value.close());
    }
    const sock = UdpSocket.bind(r.src, 0);
    if (!sock.ok) return;
    this.stops.push(() => sock.value.close());
    const payload = new Uint8Array(spec.size - UDP_IP_HEADERS);
    const tick = (): void => {
      if (!this.running) return;
      sent++;
      if (!sock.value.send(r.dst, spec.port, payload).ok) failed++;
      sim.schedule(interval, tick);
    };
    sim.schedule(0, tick);
  }
}

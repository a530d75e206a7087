// One measurement of the comparison: a fresh cluster for the flavour, one test (iperf3-like TCP or
// UDP, or netperf TCP_RR) from the client to the server pod (or its ClusterIP Service, or host to host
// for bare metal), the CPU budgets of both sides driving the application gates, and what the run
// measured: throughput, retransmits / loss / jitter / latency, CPU per node and the work behind it.
import { buildCluster } from "../cluster/build.js";
import { formatClusterError } from "../cluster/errors.js";
import type { ClusterRuntime } from "../cluster/runtime.js";
import { IperfTcpTest, IperfUdpTest, type MeasureWindow } from "../cluster/workloads/iperf/index.js";
import { TcpRrTest } from "../cluster/workloads/rr/index.js";
import { loadText } from "../k8s/load.js";
import { Work, type CostModel } from "../metrics/index.js";
import type { NetNamespace } from "../net/stack/index.js";
import { GRO_TYPICAL_FLUSH_NS, TcpStack } from "../net/tcp/index.js";
import { parseIPv4 } from "../util/ip.js";
import { err, ok, type Result } from "../util/result.js";
import { BARE_CLIENT, BARE_SERVER, CLIENT_NODE, CLIENT_POD, clusterYaml, NODE_PORTS, SERVER_NODE, SERVER_POD, SERVICE_NAME } from "./cluster-yaml.js";
import { CoreBudget } from "./core-budget.js";
import { collectSide } from "./side-work.js";
import { Pacer } from "./pacer.js";
import type { Flavour } from "./flavours.js";

export const TEST_PATHS = ["pod-to-pod", "pod-to-service", "client-to-nodeport"] as const;
export type TestPath = (typeof TEST_PATHS)[number];
export const PROTOCOLS = ["TCP", "UDP", "TCP_RR"] as const;
export type Protocol = (typeof PROTOCOLS)[number];

/** How often the CPU budgets re-read the counters (simulated time). */
export const BUDGET_TICK_NS = 50_000;
/** Run the simulator in slices of this much simulated time (progress reports between them). */
const SLICE_NS = 10_000_000;
/** IPv4 + TCP with timestamps: MSS = MTU - 52 (iperf3 sizes UDP datagrams to this too). */
const TCP_IP_HEADERS = 52;

export interface CellSpec {
  readonly flavour: Flavour;
  readonly path: TestPath;
  readonly protocol: Protocol;
  readonly streams: number;
  readonly linkGbps: number;
  readonly hostMtu: number;
  readonly podMtu: number;
  readonly durationNs: number;
  readonly cpus: number;
  readonly model: CostModel;
  readonly seed: number;
  /** TSO/GSO on send and GRO on receive (ethtool's defaults); false models a NIC without offloads. */
  readonly offload: boolean;
  /** The underlay NICs' transmit queue in bytes on the wire; null or absent = the Cluster file's default. */
  readonly queueBytes?: number | null;
}

/** What one side's node did during the window. */
export interface SideMeasure {
  /** CPU ns the node's work cost during the window. */
  readonly cpuNs: number;
  /** Fraction of the node's CPUs. */
  readonly nodeFraction: number;
  /** Fraction of the flow's cores (1 = saturated). */
  readonly coreBusy: number;
  /** The window's work per step: packets, bytes, batches (COST_STEPS order). */
  readonly work: Work;
}

export interface CellResult {
  readonly spec: CellSpec;
  readonly gbps: number;
  readonly mss: number;
  readonly retransmits: number;
  readonly udp: { readonly sentGbps: number; readonly lostPercent: number; readonly jitterMs: number; readonly datagramBytes: number } | null;
  readonly rr: { readonly transactionsPerSecond: number; readonly p50Us: number; readonly p90Us: number; readonly p99Us: number } | null;
  readonly client: SideMeasure;
  readonly server: SideMeasure;
  /** Packets the emulator carried (entered the ledger) and simulated ns, for emulator-speed figures. */
  readonly simPackets: number;
  readonly simNs: number;
}

interface Endpoints {
  readonly client: NetNamespace;
  readonly server: NetNamespace;
  readonly clientSide: readonly NetNamespace[];
  readonly serverSide: readonly NetNamespace[];
  readonly dst: number;
  /** The port the client aims at when it is not the server's own (a node port). */
  readonly dstPort?: number;
}

function endpoints(rt: ClusterRuntime, spec: CellSpec): Result<Endpoints, string> {
  if (spec.flavour.bareMetal) {
    const c = rt.externalHost(BARE_CLIENT);
    const s = rt.externalHost(BARE_SERVER);
    if (c === undefined || s === undefined) return err("bare-metal hosts missing from the cluster");
    return ok({ client: c.ns, server: s.ns, clientSide: [c.ns], serverSide: [s.ns], dst: s.ip });
  }
  const c = rt.pod(CLIENT_POD);
  const s = rt.pod(SERVER_POD);
  const cn = rt.node(CLIENT_NODE);
  const sn = rt.node(SERVER_NODE);
  if (c === undefined || s === undefined || cn === undefined || sn === undefined) return err(`the iperf pods were not wired: ${rt.errors.join("; ")}`);
  if (spec.path === "client-to-nodeport") {
    // The client outside the cluster (h3, on the nodes' subnet) to the server node's NodePort.
    const h = rt.externalHost(BARE_CLIENT);
    if (h === undefined) return err("the external client host is missing from the cluster");
    return ok({ client: h.ns, server: s.ns, clientSide: [h.ns], serverSide: [s.ns, sn.ns], dst: sn.ip, dstPort: NODE_PORTS[spec.protocol] });
  }
  let dst = s.ip;
  if (spec.path === "pod-to-service") {
    const ip = rt.store.get("Service", "default", SERVICE_NAME)?.spec?.clusterIP;
    const parsed = ip === undefined ? null : parseIPv4(ip);
    if (parsed === null) return err(`Service ${SERVICE_NAME} has no ClusterIP`);
    dst = parsed;
  }
  return ok({ client: c.ns, server: s.ns, clientSide: [c.ns, cn.ns], serverSide: [s.ns, sn.ns], dst });
}

function sideWork(namespaces: readonly NetNamespace[], offload: boolean): Work {
  const w = new Work();
  collectSide(namespaces, w, offload);
  return w;
}

function diffWork(after: Work, before: Work): Work {
  const w = new Work();
  for (let i = 0; i < w.counts.length; i++) w.counts[i] = after.counts[i]! - before.counts[i]!;
  return w;
}

/** Both sides' work and CPU used at one instant. */
interface Snapshot {
  readonly client: Work;
  readonly server: Work;
  readonly clientUsed: number;
  readonly serverUsed: number;
}

/** Runs one cell; onProgress gets the fraction of simulated time done. */
export function runCell(spec: CellSpec, onProgress: (fraction: number) => void = () => {}): Result<CellResult, string> {
  const yaml = clusterYaml({ flavour: spec.flavour, linkGbps: spec.linkGbps, hostMtu: spec.hostMtu, podMtu: spec.podMtu, seed: spec.seed, queueBytes: spec.queueBytes ?? null });
  const built = buildCluster(loadText(yaml, `bench-${spec.flavour.name}.yaml`));
  if (!built.ok) return err(formatClusterError(built.error));
  const rt = built.value;
  const ep = endpoints(rt, spec);
  if (!ep.ok) return ep;
  const e = ep.value;
  for (const ns of [...e.clientSide, ...e.serverSide]) {
    const sysctl = TcpStack.of(ns).sysctl;
    sysctl.segmentationOffload = spec.offload;
    sysctl.groFlushNs = spec.offload ? GRO_TYPICAL_FLUSH_NS : 0;
  }
  const sim = rt.sim;
  const flowCores = Math.max(1, Math.min(spec.streams, spec.cpus));
  const sender = new CoreBudget(e.clientSide, spec.model, flowCores, spec.offload);
  const receiver = new CoreBudget(e.serverSide, spec.model, flowCores, spec.offload);
  // TCP: the sender's pace is bounded by both cores (flow control carries the receiver's limit back);
  // UDP has no flow control: the sender is paced by its own core, the receiver drops what it cannot take.
  // The receiver's cost per byte is over the bytes its application has read (set once the test exists).
  let receiverRead: () => number = () => 0;
  const paced = spec.protocol === "UDP" ? [{ budget: sender, handled: null }] : [{ budget: sender, handled: null }, { budget: receiver, handled: () => receiverRead() }];
  const pacer = new Pacer(paced, sim.now);
  const startPackets = rt.world.ledger.entered;
  const t0 = sim.now;
  sender.reset(t0);
  receiver.reset(t0);

  const mss = spec.podMtu - TCP_IP_HEADERS;
  // iperf3 sizes UDP datagrams to its control connection's MSS, which PMTU discovery has lowered to
  // the path's MTU: a tunnel device's MTU is the host MTU minus the encapsulation (canal's pods keep
  // 9000 over flannel.1's 8950, and the published run sent 8,898-byte datagrams).
  const tunnelMtu = spec.flavour.encapsulation === "none" ? spec.hostMtu : spec.hostMtu - spec.flavour.mtuOverhead;
  const datagramBytes = Math.min(spec.podMtu, tunnelMtu) - TCP_IP_HEADERS;
  type Measured = Pick<CellResult, "gbps" | "mss" | "retransmits" | "udp" | "rr">;
  let window: () => MeasureWindow | null;
  let measured: () => Result<Measured, string> | null;
  let udp: IperfUdpTest | null = null;
  if (spec.protocol === "TCP") {
    const t = new IperfTcpTest(e.client, e.server, e.dst, {
      ...(e.dstPort === undefined ? {} : { dstPort: e.dstPort }),
      streams: spec.streams,
      durationNs: spec.durationNs,
      sender: pacer,
      // A paced writer pauses between ticks; without -N, Nagle would hold the partial segment at the
      // end of each pause until the receiver's delayed ACK (40 ms), which a never-pausing iperf3 avoids.
      noDelay: true,
    });
    receiverRead = () => t.bytesRead;
    const s = t.start();
    if (!s.ok) return s;
    window = () => t.measureWindow;
    measured = () => {
      const r = t.result;
      if (r === null || !r.ok) return r;
      return ok({ gbps: r.value.bitsPerSecond / 1e9, mss: r.value.mss, retransmits: r.value.retransmits, udp: null, rr: null });
    };
  } else if (spec.protocol === "UDP") {
    const t = new IperfUdpTest(e.client, e.server, e.dst, {
      ...(e.dstPort === undefined ? {} : { dstPort: e.dstPort }),
      streams: spec.streams,
      durationNs: spec.durationNs,
      datagramBytes,
      rateBps: 0,
      nicBps: spec.linkGbps * 1e9,
      sender: pacer,
      receiver,
    });
    const s = t.start();
    if (!s.ok) return s;
    udp = t;
    window = () => t.measureWindow;
    measured = () => {
      const r = t.result;
      if (r === null || !r.ok) return r;
      const u = r.value;
      const stats = { sentGbps: u.sentBitsPerSecond / 1e9, lostPercent: u.lostPercent, jitterMs: u.jitterNs / 1e6, datagramBytes };
      return ok({ gbps: u.receivedBitsPerSecond / 1e9, mss, retransmits: 0, udp: stats, rr: null });
    };
  } else {
    // Each side's CPU per transaction so far (the budgets' work / transactions) lies on the critical path.
    const t: TcpRrTest = new TcpRrTest(e.client, e.server, e.dst, {
      ...(e.dstPort === undefined ? {} : { dstPort: e.dstPort }),
      durationNs: spec.durationNs,
      serverCpuNs: () => Math.round(receiver.used / Math.max(1, t.completed)),
      clientCpuNs: () => Math.round(sender.used / Math.max(1, t.completed)),
    });
    const s = t.start();
    if (!s.ok) return s;
    window = () => t.measureWindow;
    measured = () => {
      const r = t.result;
      if (r === null || !r.ok) return r;
      const q = r.value;
      const rr = { transactionsPerSecond: q.transactionsPerSecond, p50Us: q.p50Ns / 1000, p90Us: q.p90Ns / 1000, p99Us: q.p99Ns / 1000 };
      return ok({ gbps: 0, mss, retransmits: 0, udp: null, rr });
    };
  }

  // Budgets tick on simulated time; the window's start and end snapshot the work of both sides.
  const snaps: { start: Snapshot | null; end: Snapshot | null } = { start: null, end: null };
  const snap = (): Snapshot => ({
    client: sideWork(e.clientSide, spec.offload),
    server: sideWork(e.serverSide, spec.offload),
    clientUsed: sender.used,
    serverUsed: receiver.used,
  });
  const tick = (): void => {
    const now = sim.now;
    if (udp !== null && udp.arrived > 0) {
      // Datagrams the receiver had no CPU for are dropped before they cost anything (its NIC ring
      // overflows under NAPI overload), so they are taken out of its work at the average cost of one.
      const raw = receiver.used + receiver.correctionNs;
      receiver.correctionNs = (udp.bufferDrops * raw) / udp.arrived;
    }
    sender.tick(now);
    receiver.tick(now);
    pacer.tick(now);
    const w = window();
    if (w !== null && snaps.start === null && now >= w.startNs) snaps.start = snap();
    if (w !== null && snaps.end === null && now >= w.endNs) snaps.end = snap();
    if (measured() === null || snaps.end === null) sim.schedule(BUDGET_TICK_NS, tick);
  };
  sim.schedule(BUDGET_TICK_NS, tick);

  const limit = t0 + 2 * spec.durationNs + 2_000_000_000;
  while ((measured() === null || snaps.end === null) && sim.now < limit) {
    rt.runFor(SLICE_NS);
    onProgress(Math.min(1, (sim.now - t0) / (spec.durationNs * 1.25)));
  }
  const outcome = measured();
  if (outcome === null) return err(`${spec.flavour.name} ${spec.protocol}: the test did not finish within ${(limit - t0) / 1e9} s simulated`);
  if (!outcome.ok) return outcome;
  const w = window();
  const span = w === null ? spec.durationNs : w.endNs - w.startNs;
  const { start, end } = snaps;
  if (start === null || end === null) return err(`${spec.flavour.name} ${spec.protocol}: the measurement window was not observed`);
  const side = (a: Work, b: Work, usedA: number, usedB: number): SideMeasure => {
    const cpuNs = Math.max(0, usedB - usedA);
    return { cpuNs, nodeFraction: cpuNs / (span * spec.cpus), coreBusy: cpuNs / (span * flowCores), work: diffWork(b, a) };
  };
  const client = side(start.client, end.client, start.clientUsed, end.clientUsed);
  const server = side(start.server, end.server, start.serverUsed, end.serverUsed);
  return ok({ spec, client, server, simPackets: rt.world.ledger.entered - startPackets, simNs: sim.now - t0, ...outcome.value });
}

// Prometheus exposition of the emulated cluster through prom-client: node and pod CPU/memory, the
// datapath CPU per step, per-interface packets and bytes, drops by node and reason, policy verdicts,
// conntrack entries and the packet ledger. Every value is read from the model when scraped.
// prom-client is loaded on the first registry, not with this module: commands that never serve
// metrics (bench, trace, ...) do not pay its start-up.
import { createRequire } from "node:module";
import type { Counter, Gauge, Registry } from "prom-client";
import { DropReason, dropReasonByCode } from "../../datapath/reasons.js";
import type { NetNamespace } from "../net/stack/namespace.js";
import type { PacketLedger } from "../trace/ledger.js";
import { accountCluster, type Accounts } from "./accountant.js";
import { COST_STEPS, type CostModel } from "./cost-model.js";
import type { DropCounter } from "./drop-counter.js";
import type { MeteredCluster, MeteredNode, MeteredPod } from "./metered.js";

export interface PrometheusSource {
  readonly cluster: MeteredCluster;
  readonly model: CostModel;
  /** Simulated time now. */
  nowNs(): number;
  readonly drops: DropCounter;
  /** The world's packet ledger, when the cluster has a network. */
  readonly ledger: PacketLedger | null;
  /** CPU ns of a node's pods that are gone (MetricsServer.retiredCpuNsOf), so node counters never decrease. */
  retiredCpuNs?(node: string): number;
}

const POLICY_DROP_REASONS: readonly number[] = [DropReason.POLICY_DENIED, DropReason.POLICY_DENY];
const S = 1e9;

type Labels = Record<string, string>;
type PromClient = typeof import("prom-client");

let promClient: PromClient | null = null;

/** prom-client (a CommonJS package), required on first use. */
function prom(): PromClient {
  promClient ??= createRequire(import.meta.url)("prom-client") as PromClient;
  return promClient;
}

/** A counter whose value is set from the model at each scrape. */
function counter(registry: Registry, name: string, help: string, labelNames: readonly string[], fill: (set: (labels: Labels, value: number) => void) => void): void {
  new (prom().Counter)({
    name,
    help,
    labelNames,
    registers: [registry],
    collect(this: Counter<string>) {
      this.reset();
      fill((labels, value) => this.inc(labels, Math.max(0, value)));
    },
  });
}

function gauge(registry: Registry, name: string, help: string, labelNames: readonly string[], fill: (set: (labels: Labels, value: number) => void) => void): void {
  new (prom().Gauge)({
    name,
    help,
    labelNames,
    registers: [registry],
    collect(this: Gauge<string>) {
      this.reset();
      fill((labels, value) => this.set(labels, value));
    },
  });
}

const INTERFACE_FIELDS = [
  ["receive_packets", "rxPackets", "Packets received"],
  ["receive_bytes", "rxBytes", "Bytes received"],
  ["transmit_packets", "txPackets", "Packets transmitted"],
  ["transmit_bytes", "txBytes", "Bytes transmitted"],
  ["receive_dropped", "rxDropped", "Packets dropped on receive (device down)"],
  ["transmit_dropped", "txDropped", "Packets dropped on transmit (device down)"],
] as const;

/** The namespaces of the cluster with their node and a netns label ("host" or "namespace/pod"). */
function namespaces(nodes: readonly MeteredNode[], pods: readonly MeteredPod[]): { node: string; netns: string; ns: NetNamespace }[] {
  const out: { node: string; netns: string; ns: NetNamespace }[] = [];
  for (const n of nodes) if (n.ns !== null) out.push({ node: n.name, netns: "host", ns: n.ns });
  for (const p of pods) if (p.ns !== null) out.push({ node: p.nodeName, netns: `${p.namespace}/${p.name}`, ns: p.ns });
  return out;
}

interface Snapshot {
  readonly accounts: Accounts;
  readonly nodes: readonly MeteredNode[];
  readonly pods: readonly MeteredPod[];
  readonly namespaces: readonly { node: string; netns: string; ns: NetNamespace }[];
}

/**
 * A registry whose metrics read `source` on every scrape. prom-client collects metrics in
 * registration order, so the first one takes the snapshot the others read.
 */
export function createPrometheusRegistry(source: PrometheusSource): Registry {
  const registry = new (prom().Registry)();
  let snap: Snapshot | null = null;
  const take = (): Snapshot => {
    const accounts = accountCluster(source.cluster, source.model, source.nowNs());
    const nodes = accounts.nodes.map((n) => n.node);
    const pods = accounts.pods.map((p) => p.pod);
    return { accounts, nodes, pods, namespaces: namespaces(nodes, pods) };
  };
  const s = (): Snapshot => (snap ??= take());
  const accounts = (): Accounts => s().accounts;

  counter(registry, "cnisim_node_cpu_usage_seconds_total", "Cumulative CPU time of the node: system baseline, datapath work and pods", ["node"], (set) => {
    snap = take();
    for (const n of accounts().nodes) set({ node: n.node.name }, (n.cpuNs + (source.retiredCpuNs?.(n.node.name) ?? 0)) / S);
  });
  gauge(registry, "cnisim_node_memory_working_set_bytes", "Memory of the node: system baseline, pods and conntrack entries", ["node"], (set) => {
    for (const n of accounts().nodes) set({ node: n.node.name }, n.memoryBytes);
  });
  counter(registry, "cnisim_node_datapath_cpu_seconds_total", "CPU time of the datapath on the node by step (cost model x counters)", ["node", "step"], (set) => {
    for (const n of accounts().nodes) for (const step of COST_STEPS) set({ node: n.node.name, step }, n.work.stepCpuNs(step, source.model) / S);
  });
  counter(registry, "cnisim_pod_cpu_usage_seconds_total", "Cumulative CPU time of the pod: its workload and its datapath work", ["namespace", "pod", "node"], (set) => {
    for (const p of accounts().pods) set({ namespace: p.pod.namespace, pod: p.pod.name, node: p.pod.nodeName }, p.cpuNs / S);
  });
  gauge(registry, "cnisim_pod_memory_working_set_bytes", "Memory of the pod", ["namespace", "pod", "node"], (set) => {
    for (const p of accounts().pods) set({ namespace: p.pod.namespace, pod: p.pod.name, node: p.pod.nodeName }, p.memoryBytes);
  });
  for (const [metric, field, help] of INTERFACE_FIELDS) {
    counter(registry, `cnisim_interface_${metric}_total`, help, ["node", "netns", "interface"], (set) => {
      for (const { node, netns, ns } of s().namespaces) {
        for (const dev of ns.devicesInOrder()) set({ node, netns, interface: dev.name }, dev.stats[field]);
      }
    });
  }
  counter(registry, "cnisim_drops_total", "Packets dropped, by node and drop reason", ["node", "reason", "code"], (set) => {
    for (const e of source.drops.entries()) set({ node: e.node, reason: dropReasonByCode(e.reason)?.name ?? "UNKNOWN", code: String(e.reason) }, e.count);
  });
  counter(registry, "cnisim_policy_verdicts_total", "NetworkPolicy decisions by node: allowed and denied packets", ["node", "verdict"], (set) => {
    const lookups = new Map<string, number>();
    for (const p of s().pods) if (p.policyMap !== null) lookups.set(p.nodeName, (lookups.get(p.nodeName) ?? 0) + p.policyMap.stats.lookups);
    for (const n of s().nodes) {
      const denied = source.drops.count(n.name, POLICY_DROP_REASONS);
      set({ node: n.name, verdict: "allowed" }, Math.max(0, (lookups.get(n.name) ?? 0) - denied));
      set({ node: n.name, verdict: "denied" }, denied);
    }
  });
  gauge(registry, "cnisim_conntrack_entries", "Connection tracking entries in use (netfilter table of every namespace, eBPF CT map)", ["node", "datapath"], (set) => {
    const nf = new Map<string, number>();
    for (const { node, ns } of s().namespaces) nf.set(node, (nf.get(node) ?? 0) + ns.netfilter.conntrack.count);
    for (const n of s().nodes) {
      set({ node: n.name, datapath: "netfilter" }, nf.get(n.name) ?? 0);
      if (n.maps !== null) set({ node: n.name, datapath: "ebpf" }, n.maps.ct.size);
    }
  });
  const ledger = source.ledger;
  if (ledger !== null) {
    counter(registry, "cnisim_packets_entered_total", "Packets that entered the model", [], (set) => set({}, ledger.entered));
    counter(registry, "cnisim_packets_delivered_total", "Packets delivered (socket, stack, external, split)", [], (set) => set({}, ledger.delivered));
    counter(registry, "cnisim_packets_dropped_total", "Packets dropped", [], (set) => set({}, ledger.dropped));
    gauge(registry, "cnisim_packets_in_flight", "Packets still on links, in queues or waiting for a socket", [], (set) => set({}, ledger.inFlight));
  }
  return registry;
}

// What `kubectl top node|pod` prints against the emulated cluster, errors included (kubectl's
// top_node.go / top_pod.go): shared by `cnisim top` and the lab's `kubectl top`.
import type { ObjectStore } from "../k8s/index.js";
import type { CommandOutput, LabCluster, LabExtensions, TopRequest } from "../lab/index.js";
import type { Simulator } from "../engine/simulator.js";
import {
  formatGoDuration,
  formatTopTable,
  MetricsServer,
  StoreMeteredCluster,
  topHeaderStyleFor,
  topNodeRows,
  topPodRows,
  type CostModel,
  type StoreMeteringOptions,
  type TopHeaderStyle,
} from "../metrics/index.js";
import type { RequestCounter } from "./cluster-metering.js";
import type { Emulation } from "./emulation.js";

/** kubectl's metricsCreationDelay: a pod older than this should have metrics. */
const METRICS_CREATION_DELAY_NS = 120e9;

export interface TopQuery {
  readonly what: "node" | "pod";
  /** Objects named on the command line (empty: all). */
  readonly names: readonly string[];
  /** Pods' namespace; null for all namespaces (-A). */
  readonly namespace: string | null;
  readonly labels: (labels: Readonly<Record<string, string>>) => boolean;
  readonly noHeaders: boolean;
  readonly style: TopHeaderStyle;
}

export interface TopContext {
  readonly metrics: MetricsServer;
  readonly metered: StoreMeteredCluster;
  readonly store: ObjectStore;
  /** A pod's age in simulated time from its creationTimestamp. */
  ageNs(timestamp: string | undefined): number;
}

const out = (stdout: string[], stderr: string[] = [], exitCode = 0): CommandOutput => ({ stdout, stderr, exitCode });
const notFound = (resource: string, name: string): CommandOutput => out([], [`Error from server (NotFound): ${resource}.metrics.k8s.io "${name}" not found`], 1);

export function topOutput(q: TopQuery, ctx: TopContext): CommandOutput {
  if (q.what === "node") {
    const nodes = ctx.metered.nodes().filter((n) => (q.names.length === 0 ? q.labels(n.labels) : q.names.includes(n.name)));
    let usage = ctx.metrics.nodes().filter((u) => (q.names.length === 0 ? q.labels(u.labels) : q.names.includes(u.name)));
    const missing = q.names.find((n) => !usage.some((u) => u.name === n));
    if (missing !== undefined) return notFound("nodes", missing);
    usage = usage.filter((u) => nodes.some((n) => n.name === u.name));
    const rows = topNodeRows(usage, nodes.map((n) => ({ name: n.name, ...n.allocatable })), q.style, q.noHeaders);
    return rows.length === 0 ? out([], ["error: metrics not available yet"], 1) : out(formatTopTable(rows));
  }
  const inScope = (ns: string): boolean => q.namespace === null || ns === q.namespace;
  const usage = ctx.metrics.pods().filter((u) => inScope(u.namespace) && (q.names.length === 0 ? q.labels(u.labels) : q.names.includes(u.name)));
  const missing = q.names.find((n) => !usage.some((u) => u.name === n));
  if (missing !== undefined) return notFound("pods", missing);
  const rows = topPodRows(usage, q.namespace === null, q.noHeaders);
  if (rows.length > 0) return out(formatTopTable(rows));
  // kubectl's verifyEmptyMetrics: no metrics at all; are there pods that should have them by now?
  const pods = ctx.store.list("Pod", { ...(q.namespace === null ? {} : { namespace: q.namespace }), labels: q.labels });
  if (pods.length === 0) return out([], [q.namespace === null ? "No resources found" : `No resources found in ${q.namespace} namespace.`]);
  for (const pod of pods) {
    const age = ctx.ageNs(pod.metadata.creationTimestamp);
    if (age > METRICS_CREATION_DELAY_NS) return out([], [`error: Metrics not available for pod ${pod.metadata.namespace}/${pod.metadata.name}, age: ${formatGoDuration(age)}`], 1);
  }
  return out([], ["error: metrics not available yet"], 1);
}

export interface MeteredLab {
  readonly metrics: MetricsServer;
  readonly metered: StoreMeteredCluster;
  /** The lab runner's `kubectl top` seam. */
  readonly extensions: Required<Pick<LabExtensions, "top">>;
}

/** A lab with metrics-server running on its clock (declared usage only), and the `kubectl top` extension the lab runner takes. */
export function meteredLab(lab: LabCluster, model: CostModel): MeteredLab {
  return metered(lab, model, lab.sim, undefined, () => undefined);
}

/**
 * The same for an emulation with its network: usage includes the datapath work and requests served
 * (plus those `extra` counts), and `kubectl top` first brings the network up to the lab's time.
 */
export function meteredEmulation(em: Emulation, extra: readonly RequestCounter[] = []): MeteredLab {
  return metered(em.lab, em.model, em.clock, em.metering(extra), () => em.sync());
}

function metered(lab: LabCluster, model: CostModel, clock: Simulator, metering: Omit<StoreMeteringOptions, "epochMs"> | undefined, sync: () => void): MeteredLab {
  const meteredCluster = new StoreMeteredCluster(lab.store, { ...(metering ?? {}), epochMs: lab.wall.epochMs });
  const metrics = new MetricsServer(meteredCluster, model);
  metrics.start(clock);
  const top = (request: TopRequest): CommandOutput => {
    sync();
    return topOutput(
      { what: request.what, names: request.names, namespace: request.namespace, labels: () => true, noHeaders: false, style: topHeaderStyleFor(lab.model.kubernetesVersion) },
      { metrics, metered: meteredCluster, store: lab.store, ageNs: (ts) => lab.sim.now - lab.wall.nsOf(ts) },
    );
  };
  return { metrics, metered: meteredCluster, extensions: { top } };
}

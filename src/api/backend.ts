// What the API server reads: the object store, the simulated clock and its wall-clock epoch, the
// metrics-server emulation and the Prometheus registry. `labBackend` wires them for a LabCluster
// (store, controllers, scheduler), metering pods from their declared usage until a cluster runtime
// with a network supplies namespaces and devices through the StoreMeteringOptions hooks.
import type { Registry } from "prom-client";
import type { ObjectStore } from "../k8s/index.js";
import type { LabCluster } from "../lab/index.js";
import {
  createPrometheusRegistry,
  DEFAULT_COST_MODEL,
  DropCounter,
  MetricsServer,
  StoreMeteredCluster,
  type CostModel,
  type StoreMeteringOptions,
} from "../metrics/index.js";
import type { PacketLedger } from "../trace/ledger.js";

export interface ApiBackend {
  readonly store: ObjectStore;
  readonly kubernetesVersion: string;
  /** Wall-clock ms of simulated time 0. */
  readonly epochMs: number;
  /** Simulated time now, in ns. */
  nowNs(): number;
  /** metrics.k8s.io's data; null serves no metrics group objects (404s). */
  readonly metrics: MetricsServer | null;
  readonly prometheus: Registry | null;
}

export interface LabBackendOptions {
  readonly model?: CostModel;
  /** Network hooks and request counts from a cluster runtime. */
  readonly metering?: Omit<StoreMeteringOptions, "epochMs">;
  /** The world's ledger and drop counter when the cluster has a network. */
  readonly ledger?: PacketLedger | null;
  readonly drops?: DropCounter;
}

export interface LabBackend extends ApiBackend {
  readonly metered: StoreMeteredCluster;
  readonly metrics: MetricsServer;
  readonly prometheus: Registry;
}

/** A backend over a LabCluster; starts metrics-server's periodic scrapes on the lab's simulator. */
export function labBackend(lab: LabCluster, options: LabBackendOptions = {}): LabBackend {
  const model = options.model ?? DEFAULT_COST_MODEL;
  const metered = new StoreMeteredCluster(lab.store, { ...(options.metering ?? {}), epochMs: lab.wall.epochMs });
  const metrics = new MetricsServer(metered, model);
  metrics.start(lab.sim);
  const prometheus = createPrometheusRegistry({
    cluster: metered,
    model,
    nowNs: () => lab.sim.now,
    drops: options.drops ?? new DropCounter(),
    ledger: options.ledger ?? null,
    retiredCpuNs: (node) => metrics.retiredCpuNsOf(node),
  });
  return {
    store: lab.store,
    kubernetesVersion: lab.model.kubernetesVersion,
    epochMs: lab.wall.epochMs,
    nowNs: () => lab.sim.now,
    metrics,
    prometheus,
    metered,
  };
}

// What the API server reads: the object store, the simulated clock and its wall-clock epoch, the
// metrics-server emulation and the Prometheus registry. `labBackend` wires them for a LabCluster
// (store, controllers, scheduler), metering pods from their declared usage plus, when the emulation
// has a network, the datapath work its namespaces and devices did (StoreMeteringOptions hooks).
import type { Registry } from "prom-client";
import type { Simulator } from "../engine/simulator.js";
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
import type { RequestCounter } from "./cluster-metering.js";
import type { Emulation } from "./emulation.js";

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
  /** The simulator metrics-server scrapes on (default the lab's; the network's when it has one). */
  readonly clock?: Simulator;
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
  const clock = options.clock ?? lab.sim;
  metrics.start(clock);
  const prometheus = createPrometheusRegistry({
    cluster: metered,
    model,
    nowNs: () => clock.now,
    drops: options.drops ?? new DropCounter(),
    ledger: options.ledger ?? null,
    retiredCpuNs: (node) => metrics.retiredCpuNsOf(node),
  });
  return {
    store: lab.store,
    kubernetesVersion: lab.model.kubernetesVersion,
    epochMs: lab.wall.epochMs,
    nowNs: () => clock.now,
    metrics,
    prometheus,
    metered,
  };
}

/** A backend over an emulation: with its network, usage from datapath work, its ledger and drops. */
export function emulationBackend(em: Emulation, extra: readonly RequestCounter[] = []): LabBackend {
  const drops = new DropCounter();
  em.network?.world.tracer.addSink(drops);
  const metering = em.metering(extra);
  return labBackend(em.lab, {
    model: em.model,
    clock: em.clock,
    ...(metering === undefined ? {} : { metering }),
    ledger: em.network?.world.ledger ?? null,
    drops,
  });
}

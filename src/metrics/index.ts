// Public API of the metrics layer: the CPU cost model and its Cluster-file overrides, accounting of
// node and pod usage from the model's counters, metrics-server's windowed rates and object shapes,
// kubectl top tables and the Prometheus registry.
export { COST_STEPS, DEFAULT_COST_MODEL, STEP, clockScale, costSources, type CostModel, type CostStep, type StepCost } from "./cost-model.js";
export { costModelFromSpec, type CostConfigError } from "./cost-config.js";
export { Work } from "./work.js";
export {
  collectDevice,
  collectMaps,
  collectNamespace,
  collectNamespaceSources,
  collectPolicy,
  collectTcp,
  namespaceSources,
  OFFLOADED,
  type CollectOptions,
  type NamespaceSources,
} from "./collect.js";
export type { MeteredCluster, MeteredNode, MeteredPod, TcpCounterView } from "./metered.js";
export { USAGE_ANNOTATIONS, usageFromAnnotations, type DeclaredUsage, type UsageError } from "./usage.js";
export { accountCluster, accountNode, accountPod, podWork, type Accounts, type NodeAccount, type PodAccount } from "./accountant.js";
export { MetricsServer, type ContainerUsage, type NodeUsage, type PodUsage, type ResourceUsage } from "./metrics-server.js";
export { formatCpuNanoCores, formatDecimalSI, formatGoDuration, formatMemoryBytes, formatMetaTime } from "./quantity-text.js";
export {
  METRICS_API_VERSION,
  METRICS_GROUP,
  METRICS_VERSION,
  metricsList,
  nodeMetricsJson,
  podMetricsJson,
  type MetricsClock,
  type NodeMetricsJson,
  type PodMetricsJson,
} from "./resource-metrics.js";
export { formatTopTable, topHeaderStyleFor, topNodeRows, topPodRows, TopHeaderStyle, type NodeCapacity } from "./top-table.js";
export { DropCounter } from "./drop-counter.js";
export { createPrometheusRegistry, type PrometheusSource } from "./prometheus.js";
export { StoreMeteredCluster, type NodeNetwork, type PodNetwork, type PodUsageProblem, type StoreMeteringOptions } from "./store-cluster.js";

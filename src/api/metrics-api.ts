// metrics.k8s.io/v1beta1 nodes and pods: NodeMetrics/PodMetrics (and lists) from the metrics-server
// emulation, filtered by the selectors, or a Table with metrics-server's CPU/Memory/Window columns.
import type { KubeObject } from "../k8s/index.js";
import {
  metricsList,
  nodeMetricsJson,
  podMetricsJson,
  type MetricsClock,
  type MetricsServer,
  type NodeMetricsJson,
  type PodMetricsJson,
} from "../metrics/index.js";
import type { Negotiated } from "./accept.js";
import type { ApiBackend } from "./backend.js";
import type { ApiRequest, ResourcePath } from "./handler.js";
import { objectNotFound } from "./status.js";
import { cellsTable, tableContext } from "./table.js";

type Selectors = { labels: (l: Readonly<Record<string, string>>) => boolean; fields: (o: KubeObject) => boolean };

function cpuOf(m: NodeMetricsJson | PodMetricsJson): string {
  if (m.kind === "NodeMetrics") return m.usage.cpu;
  return m.containers.length === 1 ? m.containers[0]!.usage.cpu : `${m.containers.length} containers`;
}

function memoryOf(m: NodeMetricsJson | PodMetricsJson): string {
  if (m.kind === "NodeMetrics") return m.usage.memory;
  return m.containers.length === 1 ? m.containers[0]!.usage.memory : `${m.containers.length} containers`;
}

/** Serves one metrics.k8s.io request (the caller turns thrown ApiErrors into Status responses). */
export function metricsRequest(backend: ApiBackend, metrics: MetricsServer, req: ApiRequest, p: ResourcePath, n: Negotiated, sel: Selectors): unknown {
  const clock: MetricsClock = { epochMs: backend.epochMs, nowNs: backend.nowNs() };
  const keep = (m: NodeMetricsJson | PodMetricsJson): boolean => sel.labels(m.metadata.labels) && sel.fields(m as unknown as KubeObject);
  let items: (NodeMetricsJson | PodMetricsJson)[];
  if (p.resource.resource === "nodes") {
    items = metrics.nodes().map((u) => nodeMetricsJson(u, clock));
  } else {
    items = metrics
      .pods()
      .filter((u) => p.namespace === null || u.namespace === p.namespace)
      .map((u) => podMetricsJson(u, clock));
  }
  if (p.name !== null) {
    const one = items.find((m) => m.metadata.name === p.name);
    if (one === undefined) throw objectNotFound(p.resource.resource, p.resource.group, p.name);
    items = [one];
  } else items = items.filter(keep);
  if (n.table !== null) {
    const rows = items.map((m) => ({ cells: [m.metadata.name, cpuOf(m), memoryOf(m), m.window], object: m }));
    return cellsTable(["NAME", "CPU", "MEMORY", "WINDOW"], rows, tableContext(backend, req.query, n.table));
  }
  if (p.name !== null) return items[0];
  return metricsList(p.resource.resource === "nodes" ? "NodeMetricsList" : "PodMetricsList", items);
}

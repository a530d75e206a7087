// The metrics.k8s.io/v1beta1 objects metrics-server serves (NodeMetrics, PodMetrics and their
// lists), built from windowed usage; times are simulated time mapped onto the emulation's wall clock.
import type { NodeUsage, PodUsage } from "./metrics-server.js";
import { formatCpuNanoCores, formatGoDuration, formatMemoryBytes, formatMetaTime } from "./quantity-text.js";

export const METRICS_GROUP = "metrics.k8s.io";
export const METRICS_VERSION = "v1beta1";
export const METRICS_API_VERSION = `${METRICS_GROUP}/${METRICS_VERSION}`;

export interface ResourceUsageJson {
  readonly cpu: string;
  readonly memory: string;
}

export interface NodeMetricsJson {
  readonly kind: "NodeMetrics";
  readonly apiVersion: typeof METRICS_API_VERSION;
  readonly metadata: { readonly name: string; readonly creationTimestamp: string; readonly labels: Readonly<Record<string, string>> };
  readonly timestamp: string;
  readonly window: string;
  readonly usage: ResourceUsageJson;
}

export interface PodMetricsJson {
  readonly kind: "PodMetrics";
  readonly apiVersion: typeof METRICS_API_VERSION;
  readonly metadata: { readonly name: string; readonly namespace: string; readonly creationTimestamp: string; readonly labels: Readonly<Record<string, string>> };
  readonly timestamp: string;
  readonly window: string;
  readonly containers: readonly { readonly name: string; readonly usage: ResourceUsageJson }[];
}

/** Maps simulated time to the emulation's wall clock. */
export interface MetricsClock {
  /** Wall-clock ms of simulated time 0. */
  readonly epochMs: number;
  /** Simulated time now (the request's creationTimestamp). */
  readonly nowNs: number;
}

const wall = (clock: MetricsClock, ns: number): string => formatMetaTime(clock.epochMs + ns / 1e6);

export function nodeMetricsJson(u: NodeUsage, clock: MetricsClock): NodeMetricsJson {
  return {
    kind: "NodeMetrics",
    apiVersion: METRICS_API_VERSION,
    metadata: { name: u.name, creationTimestamp: wall(clock, clock.nowNs), labels: u.labels },
    timestamp: wall(clock, u.timestampNs),
    window: formatGoDuration(u.windowNs),
    usage: { cpu: formatCpuNanoCores(u.cpuNanoCores), memory: formatMemoryBytes(u.memoryBytes) },
  };
}

export function podMetricsJson(u: PodUsage, clock: MetricsClock): PodMetricsJson {
  return {
    kind: "PodMetrics",
    apiVersion: METRICS_API_VERSION,
    metadata: { name: u.name, namespace: u.namespace, creationTimestamp: wall(clock, clock.nowNs), labels: u.labels },
    timestamp: wall(clock, u.timestampNs),
    window: formatGoDuration(u.windowNs),
    containers: u.containers.map((c) => ({ name: c.name, usage: { cpu: formatCpuNanoCores(c.cpuNanoCores), memory: formatMemoryBytes(c.memoryBytes) } })),
  };
}

export function metricsList<T>(kind: "NodeMetricsList" | "PodMetricsList", items: readonly T[]): { kind: string; apiVersion: string; metadata: Record<string, never>; items: readonly T[] } {
  return { kind, apiVersion: METRICS_API_VERSION, metadata: {}, items };
}

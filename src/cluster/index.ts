// Public API of the cluster layer: build a cluster from YAML, and the runtime with its lookups.
export { buildCluster, buildClusterFromFiles, type BuildOptions } from "./build.js";
export { ClusterRuntime, type NodeRuntime } from "./runtime.js";
export { formatClusterError, type ClusterError } from "./errors.js";
export type { PodRuntime } from "./pods.js";
export type { ExternalHost, Underlay } from "./underlay.js";
export { PodWorkloads, type WiredPod } from "./containers/workloads.js";
export { execInPod, parseExecSpec, type ExecOutput, type ExecSpec } from "./containers/exec/index.js";

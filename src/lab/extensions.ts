// Seams for commands that need other layers: `kubectl exec POD -- wget|curl|ping ...` and
// `kubectl logs POD` (the network layer runs the pods' containers) and `kubectl top node|pod` (the
// metrics layer). Until they are plugged in, the lab says so and goes on.
import type { KubeObject } from "../k8s/index.js";
import type { LabCluster } from "./cluster.js";

export interface CommandOutput {
  readonly stdout: readonly string[];
  readonly stderr: readonly string[];
  readonly exitCode: number;
}

export interface ExecRequest {
  readonly cluster: LabCluster;
  readonly pod: KubeObject<"Pod">;
  readonly container: string;
  readonly argv: readonly string[];
}

export interface TopRequest {
  readonly cluster: LabCluster;
  /** "node" or "pod". */
  readonly what: "node" | "pod";
  readonly names: readonly string[];
  readonly namespace: string | null;
}

export interface LogsRequest {
  readonly cluster: LabCluster;
  readonly pod: KubeObject<"Pod">;
  readonly container: string;
  /** --tail N; -1 = every line. */
  readonly tail: number;
}

export interface LabExtensions {
  exec?(request: ExecRequest): CommandOutput;
  logs?(request: LogsRequest): CommandOutput;
  top?(request: TopRequest): CommandOutput;
}

export const NOT_AVAILABLE = {
  exec: "cnisim lab: kubectl exec needs the network layer (connections through the datapath), which is not available yet",
  logs: "cnisim lab: kubectl logs needs the network layer (the pods' containers run there), which is not available here",
  top: "cnisim lab: kubectl top needs the metrics layer, which is not available yet",
} as const;

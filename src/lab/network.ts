// A lab with a network: the ClusterRuntime (CNI, kube-proxy, cluster DNS, pod containers) and the
// lab's controllers share one simulator and one object store. The runtime leaves pod status to the
// controllers' kubelets ("external"), which take addresses from the CNI's IPAM
// (runtime.podIpAllocator), so every pod the lab creates is wired and its containers started;
// `kubectl exec` runs commands in them through the datapath.
import { buildCluster } from "../cluster/build.js";
import { execInPod } from "../cluster/containers/exec/exec.js";
import { formatClusterError } from "../cluster/errors.js";
import type { ClusterRuntime } from "../cluster/runtime.js";
import { DEFAULT_EPOCH_MS, WallClock } from "../controllers/index.js";
import type { LoadResult } from "../k8s/index.js";
import { err, ok, type Result } from "../util/result.js";
import { LabCluster, type SchedulerFactory } from "./cluster.js";
import type { LabExtensions } from "./extensions.js";

export interface NetworkLab {
  readonly cluster: LabCluster;
  readonly runtime: ClusterRuntime;
  readonly extensions: LabExtensions;
}

export interface NetworkLabOptions {
  readonly scheduler: SchedulerFactory;
  readonly epochMs?: number;
}

/** `kubectl exec` through a running network (the command runs in the pod's container) and `kubectl logs` (its stdout). */
export function networkExtensions(runtime: ClusterRuntime): LabExtensions {
  return {
    exec: ({ pod, container, argv }) => {
      const key = `${pod.metadata.namespace ?? "default"}/${pod.metadata.name}`;
      return execInPod(runtime, key, container === "" ? undefined : container, argv);
    },
    logs: ({ pod, tail }) => {
      const lines = runtime.workloads.logs(`${pod.metadata.namespace ?? "default"}/${pod.metadata.name}`);
      return { stdout: tail < 0 ? lines : lines.slice(Math.max(0, lines.length - tail)), stderr: [], exitCode: 0 };
    },
  };
}

export function createNetworkLab(load: LoadResult, options: NetworkLabOptions): Result<NetworkLab, string> {
  const epochMs = options.epochMs ?? DEFAULT_EPOCH_MS;
  const built = buildCluster(load, {
    kubelet: "external",
    storeOptions: (sim) => {
      const wall = new WallClock(sim, epochMs);
      return { timestamp: () => wall.timestamp() };
    },
  });
  if (!built.ok) return err(formatClusterError(built.error));
  const runtime = built.value;
  const cluster = LabCluster.create(load, {
    scheduler: options.scheduler,
    epochMs,
    ipAllocator: () => runtime.podIpAllocator(),
    shared: { sim: runtime.sim, store: runtime.store },
  });
  if (!cluster.ok) return cluster;
  return ok({ cluster: cluster.value, runtime, extensions: networkExtensions(runtime) });
}

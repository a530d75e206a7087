// Builds the seed lab (examples/seed-lab) with extra YAML for the workload tests, and runs commands in
// its pods as `kubectl exec` does.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { buildCluster } from "../../../src/cluster/build.js";
import { formatClusterError } from "../../../src/cluster/errors.js";
import type { ClusterRuntime } from "../../../src/cluster/runtime.js";
import { execInPod, type ExecOutput } from "../../../src/cluster/containers/exec/index.js";
import { loadText } from "../../../src/k8s/load.js";

export const labFile = (rel: string): string => resolve(process.cwd(), "examples/seed-lab", rel);

/** The seed lab's cluster and workloads plus `extra` documents (YAML text) and policy files. */
export function buildSeedLab(extra: readonly string[] = [], policies: readonly string[] = [], clusterSpecExtra = ""): ClusterRuntime {
  const cluster = readFileSync(labFile("cluster.yaml"), "utf8").trimEnd() + (clusterSpecExtra === "" ? "" : `\n  ${clusterSpecExtra}`);
  const texts = [cluster, readFileSync(labFile("workloads.yaml"), "utf8"), ...policies.map((p) => readFileSync(labFile(p), "utf8")), ...extra];
  const load = loadText(texts.join("\n---\n"), "seed-lab+test.yaml", { namespace: "web" });
  assert.deepEqual(load.errors, []);
  const r = buildCluster(load);
  if (!r.ok) assert.fail(formatClusterError(r.error));
  return r.value;
}

export function exec(rt: ClusterRuntime, pod: string, ...argv: string[]): ExecOutput {
  return execInPod(rt, pod, undefined, argv);
}

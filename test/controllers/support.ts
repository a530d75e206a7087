// Shared fixtures for the controller tests: the seed lab's cluster with the real scheduler and
// controllers, driven in simulated time, and YAML objects loaded through the k8s loader.
import assert from "node:assert/strict";
import { resolve } from "node:path";
import { loadFiles, loadText, type KindName, type KubeObject } from "../../src/k8s/index.js";
import { defaultScheduler, LabCluster } from "../../src/lab/index.js";

export const SEED_CLUSTER = resolve(process.cwd(), "examples/seed-lab/cluster.yaml");

export async function seedCluster(): Promise<LabCluster> {
  const loaded = await loadFiles([SEED_CLUSTER]);
  const cluster = LabCluster.create(loaded, { scheduler: defaultScheduler });
  assert.ok(cluster.ok, cluster.ok ? "" : cluster.error);
  return cluster.value;
}

/** Objects of a YAML text, defaulted by the loader; fails the test on load errors. */
export function objects(text: string, namespace = "default"): KubeObject[] {
  const r = loadText(text, "test.yaml", { namespace });
  assert.deepEqual(r.errors, []);
  return r.objects.map((o) => o.object);
}

export function one<K extends KindName>(text: string, kind: K, namespace = "default"): KubeObject<K> {
  const list = objects(text, namespace);
  assert.equal(list.length, 1);
  assert.equal(list[0]!.kind, kind);
  return list[0] as KubeObject<K>;
}

export const SECOND = 1e9;

/** Pods of a namespace as "name node phase" rows. */
export function podRows(cluster: LabCluster, namespace = "default"): string[] {
  return cluster.store.list("Pod", { namespace }).map((p) => `${p.metadata.name} ${p.spec?.nodeName ?? "<none>"} ${p.status?.phase ?? "Pending"}`);
}

export function deployment(name: string, replicas: number, extraSpec = "", image = "nginx"): string {
  return `apiVersion: apps/v1
kind: Deployment
metadata:
  name: ${name}
  labels: {app: ${name}}
spec:
  replicas: ${replicas}
  selector: {matchLabels: {app: ${name}}}
  template:
    metadata:
      labels: {app: ${name}}
    spec:
${extraSpec}
      containers:
      - name: c
        image: ${image}
`;
}

// Test helpers for the scheduler: the seed lab's cluster (examples/seed-lab/cluster.yaml) in a store,
// objects from YAML text, node relabelling/tainting as kubectl does, and pod placement summaries.
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import type { Taint } from "kubernetes-types/core/v1.js";
import { formatDiagnostic, loadText, ObjectStore, storeFromLoad, type KubeObject } from "../../src/k8s/index.js";
import { SeededRng } from "../../src/util/rng.js";
import { Scheduler, type SchedulerOptions } from "../../src/scheduler/index.js";

export const repoPath = (rel: string): string => resolve(process.cwd(), rel);
export const sharedPath = (rel: string): string => resolve(process.cwd(), "../shared", rel);

export const MASTER = "master30.cyh.cloud";
export const W31 = "worker31.cyh.cloud";
export const W32 = "worker32.cyh.cloud";

/** A store holding the seed lab's three nodes (and the namespaces), plus the objects of `yaml`. */
export function seedLabStore(yaml = "", namespace = "scheduler"): ObjectStore {
  const cluster = readFileSync(repoPath("examples/seed-lab/cluster.yaml"), "utf8");
  return storeFrom(`${cluster}\n---\n${yaml}`, namespace);
}

export function storeFrom(yaml: string, namespace = "default"): ObjectStore {
  const r = loadText(yaml, "test.yaml", { namespace });
  if (r.errors.length > 0) throw new Error(r.errors.map(formatDiagnostic).join("\n"));
  return storeFromLoad(r);
}

/** Adds the objects of `yaml` (e.g. pods created later) to the store, in order. */
export function addYaml(store: ObjectStore, yaml: string, namespace = "scheduler"): void {
  const r = loadText(yaml, "later.yaml", { namespace });
  if (r.errors.length > 0) throw new Error(r.errors.map(formatDiagnostic).join("\n"));
  for (const o of r.objects) {
    const res = store.add(o.object);
    if (!res.ok) throw new Error(res.error.message);
  }
}

export function scheduler(store: ObjectStore, options: Partial<SchedulerOptions> = {}): Scheduler {
  return new Scheduler(store, { rng: new SeededRng(1), ...options });
}

/** kubectl label node NODE key=value / key- */
export function labelNode(store: ObjectStore, node: string, key: string, value: string | null): void {
  const r = store.modify("Node", undefined, node, (n) => {
    const labels = (n.metadata.labels ??= {});
    if (value === null) delete labels[key];
    else labels[key] = value;
  });
  if (!r.ok) throw new Error(r.error.message);
}

/** kubectl taint node NODE key=value:Effect (or remove with `remove`). */
export function taintNode(store: ObjectStore, node: string, taint: Taint, remove = false): void {
  const r = store.modify("Node", undefined, node, (n) => {
    const spec = (n.spec ??= {});
    const list = (spec.taints ??= []).filter((t) => !(t.key === taint.key && t.effect === taint.effect));
    if (!remove) list.push(taint);
    spec.taints = list;
  });
  if (!r.ok) throw new Error(r.error.message);
}

export function cordon(store: ObjectStore, node: string, unschedulable: boolean): void {
  const r = store.modify("Node", undefined, node, (n) => {
    (n.spec ??= {}).unschedulable = unschedulable;
  });
  if (!r.ok) throw new Error(r.error.message);
}

/** "ns/name -> node" for every pod of the namespace, sorted by name; "<none>" when pending. */
export function placements(store: ObjectStore, namespace: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const p of store.list("Pod", { namespace })) out[p.metadata.name] = p.spec?.nodeName ?? "<none>";
  return out;
}

export function pod(store: ObjectStore, ns: string, name: string): KubeObject<"Pod"> {
  const p = store.get("Pod", ns, name);
  if (p === undefined) throw new Error(`no pod ${ns}/${name}`);
  return p;
}

/** The FailedScheduling event messages of a pod, oldest first. */
export function failedScheduling(store: ObjectStore, ns: string, name: string): string[] {
  return store
    .list("Event", { namespace: ns, where: (e) => e.involvedObject.name === name && e.reason === "FailedScheduling" })
    .map((e) => e.message ?? "");
}

/** Pod YAML for `replicas` copies of a template, named like a ReplicaSet's pods and owned by it. */
export function replicaSetYaml(name: string, replicas: number, labels: Record<string, string>, podSpec: string, namespace = "scheduler"): string {
  const labelYaml = Object.entries(labels)
    .map(([k, v]) => `      ${k}: ${JSON.stringify(v)}`)
    .join("\n");
  const rs = `apiVersion: apps/v1
kind: ReplicaSet
metadata: {name: ${name}, namespace: ${namespace}}
spec:
  replicas: ${replicas}
  selector:
    matchLabels:
${labelYaml.replace(/^ {6}/gm, "      ")}
  template:
    metadata:
      labels:
${labelYaml.replace(/^ {6}/gm, "        ")}
    spec:
      containers: [{name: c, image: nginx}]
`;
  const pods: string[] = [];
  for (let i = 0; i < replicas; i++) {
    pods.push(`apiVersion: v1
kind: Pod
metadata:
  name: ${name}-${String.fromCharCode(97 + i)}
  namespace: ${namespace}
  labels:
${labelYaml.replace(/^ {6}/gm, "    ")}
  ownerReferences: [{apiVersion: apps/v1, kind: ReplicaSet, name: ${name}, uid: rs-${name}, controller: true}]
spec:
${podSpec.replace(/^/gm, "  ")}`);
  }
  return [rs, ...pods].join("\n---\n");
}

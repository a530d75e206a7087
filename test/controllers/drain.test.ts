// kubectl drain: the refusal text for DaemonSet pods, the warning with --ignore-daemonsets,
// unmanaged pods, and PodDisruptionBudgets allowing one eviction at a time.
import { test } from "node:test";
import assert from "node:assert/strict";
import { DrainRun, evictPod, isPodReady, PDB_VIOLATION, setCordon } from "../../src/controllers/index.js";
import type { LabCluster } from "../../src/lab/index.js";
import { deployment, objects, one, SECOND, seedCluster } from "./support.js";

const DS = `apiVersion: apps/v1
kind: DaemonSet
metadata: {name: kube-proxy, namespace: kube-system}
spec:
  selector: {matchLabels: {k8s-app: kube-proxy}}
  template:
    metadata: {labels: {k8s-app: kube-proxy}}
    spec:
      tolerations: [{operator: Exists}]
      containers: [{name: kube-proxy, image: kube-proxy:v1.30.2}]
`;

function drain(cluster: LabCluster, node: string, options: ConstructorParameters<typeof DrainRun>[2]): { run: DrainRun; lines: string[] } {
  const lines: string[] = [];
  const run = new DrainRun(cluster.manager.ctx, node, options, { out: (l) => lines.push(l), err: (l) => lines.push(`ERR ${l}`) });
  run.start();
  cluster.runUntil(() => run.state !== "running", 3600 * SECOND);
  return { run, lines };
}

test("drain refuses DaemonSet-managed pods without --ignore-daemonsets, in kubectl's words", async () => {
  const cluster = await seedCluster();
  cluster.store.add(one(DS, "DaemonSet", "kube-system"));
  cluster.advance(5 * SECOND);
  const dsPod = cluster.store.list("Pod", { namespace: "kube-system", where: (p) => p.spec?.nodeName === "worker31.cyh.cloud" })[0]!.metadata.name;
  const { run, lines } = drain(cluster, "worker31.cyh.cloud", {});
  assert.equal(run.state, "failed");
  assert.deepEqual(lines, [
    "node/worker31.cyh.cloud cordoned",
    'ERR error: unable to drain node "worker31.cyh.cloud", aborting command...',
    "ERR ",
    "ERR There are pending nodes to be drained:",
    "ERR  worker31.cyh.cloud",
  ]);
  assert.equal(run.error, `cannot delete DaemonSet-managed Pods (use --ignore-daemonsets to ignore): kube-system/${dsPod}`);
  assert.equal(cluster.store.get("Node", undefined, "worker31.cyh.cloud")!.spec?.unschedulable, true, "the node stays cordoned");
});

test("with --ignore-daemonsets the DaemonSet pods stay, the others are evicted and the node is drained", async () => {
  const cluster = await seedCluster();
  cluster.store.add(one(DS, "DaemonSet", "kube-system"));
  for (const o of objects(deployment("web", 2, "      nodeSelector: {kubernetes.io/hostname: worker31.cyh.cloud}"))) cluster.store.add(o);
  cluster.advance(5 * SECOND);
  assert.equal(setCordon(cluster.store, "worker31.cyh.cloud", true).ok, true);
  const webPods = cluster.store.list("Pod", { namespace: "default" }).map((p) => p.metadata.name);
  const dsPod = cluster.store.list("Pod", { namespace: "kube-system", where: (p) => p.spec?.nodeName === "worker31.cyh.cloud" })[0]!.metadata.name;
  const { run, lines } = drain(cluster, "worker31.cyh.cloud", { ignoreDaemonSets: true });
  assert.equal(run.state, "drained");
  assert.deepEqual(lines.slice(0, 4), [
    "node/worker31.cyh.cloud already cordoned",
    `ERR WARNING: ignoring DaemonSet-managed Pods: kube-system/${dsPod}`,
    // Go runs the last goroutine started first, then the others in order.
    `evicting pod default/${webPods[1]}`,
    `evicting pod default/${webPods[0]}`,
  ]);
  assert.deepEqual(lines.slice(4, 6).sort(), [`pod/${webPods[0]} evicted`, `pod/${webPods[1]} evicted`]);
  assert.equal(lines.at(-1), "node/worker31.cyh.cloud drained");
  assert.ok(cluster.store.get("Pod", "kube-system", dsPod) !== undefined);
});

test("a bare pod (no controller) stops the drain unless --force", async () => {
  const cluster = await seedCluster();
  cluster.store.add(one("apiVersion: v1\nkind: Pod\nmetadata: {name: bare}\nspec:\n  nodeName: worker32.cyh.cloud\n  containers: [{name: c, image: nginx}]\n", "Pod"));
  cluster.advance(5 * SECOND);
  const refused = drain(cluster, "worker32.cyh.cloud", {});
  assert.equal(refused.run.error, "cannot delete Pods that declare no controller (use --force to override): default/bare");
  const forced = drain(cluster, "worker32.cyh.cloud", { force: true });
  assert.equal(forced.run.state, "drained");
  assert.ok(forced.lines.includes("ERR WARNING: deleting Pods that declare no controller: default/bare"));
});

test("PodDisruptionBudget minAvailable 2 of 3: one eviction at a time, never fewer than 2 ready pods", async () => {
  const cluster = await seedCluster();
  setCordon(cluster.store, "worker32.cyh.cloud", true);
  for (const o of objects(deployment("pdb-demo", 3))) cluster.store.add(o);
  cluster.store.add(one("apiVersion: policy/v1\nkind: PodDisruptionBudget\nmetadata: {name: pdb-demo}\nspec:\n  minAvailable: 2\n  selector: {matchLabels: {app: pdb-demo}}\n", "PodDisruptionBudget"));
  cluster.advance(10 * SECOND);
  setCordon(cluster.store, "worker32.cyh.cloud", false);
  cluster.advance(SECOND);
  assert.equal(cluster.store.list("Pod", { namespace: "default", where: (p) => p.spec?.nodeName === "worker31.cyh.cloud" }).length, 3);
  assert.equal(cluster.store.get("PodDisruptionBudget", "default", "pdb-demo")!.status?.disruptionsAllowed, 1);
  let minReady = 3;
  const stop = cluster.store.watch(() => {
    const ready = cluster.store.list("Pod", { namespace: "default", where: (p) => p.metadata.deletionTimestamp === undefined && isPodReady(p) }).length;
    minReady = Math.min(minReady, ready);
  }, ["Pod"]);
  const { run, lines } = drain(cluster, "worker31.cyh.cloud", {});
  stop();
  assert.equal(run.state, "drained");
  assert.ok(minReady >= 2, `PDB kept 2 ready pods, saw ${minReady}`);
  const refusals = lines.filter((l) => l.includes("will retry after 5s"));
  assert.ok(refusals.length >= 2, "the 2nd and 3rd evictions were refused at first");
  assert.ok(refusals.every((l) => l.endsWith(`(will retry after 5s): ${PDB_VIOLATION}`) && l.startsWith('ERR error when evicting pods/"pdb-demo-')));
  const evicted = lines.filter((l) => l.endsWith(" evicted"));
  assert.equal(evicted.length, 3);
  assert.equal(cluster.store.list("Pod", { namespace: "default", where: (p) => p.spec?.nodeName === "worker32.cyh.cloud" }).length, 3);
});

test("the Eviction API answers 429 when the budget allows no disruption and 404 for a missing pod", async () => {
  const cluster = await seedCluster();
  for (const o of objects(deployment("one", 1))) cluster.store.add(o);
  cluster.store.add(one("apiVersion: policy/v1\nkind: PodDisruptionBudget\nmetadata: {name: one}\nspec:\n  minAvailable: 1\n  selector: {matchLabels: {app: one}}\n", "PodDisruptionBudget"));
  cluster.advance(10 * SECOND);
  const pod = cluster.store.list("Pod", { namespace: "default" })[0]!;
  assert.deepEqual(evictPod(cluster.manager.ctx, "default", pod.metadata.name), { ok: false, code: 429, reason: "TooManyRequests", message: PDB_VIOLATION });
  assert.deepEqual(evictPod(cluster.manager.ctx, "default", "nope"), { ok: false, code: 404, reason: "NotFound", message: 'pods "nope" not found' });
});

// Deployment -> ReplicaSet -> Pods: names, scaling, RollingUpdate fenceposts, rollout restart.
import { test } from "node:test";
import assert from "node:assert/strict";
import { computeTemplateHash, isPodReady, POD_TEMPLATE_HASH_LABEL, resolveFenceposts } from "../../src/controllers/index.js";
import type { KubeObject } from "../../src/k8s/index.js";
import { deployment, one, SECOND, seedCluster } from "./support.js";

test("a Deployment makes ReplicaSet <name>-<pod-template-hash> and pods <rs>-<5 chars>", async () => {
  const cluster = await seedCluster();
  const d = one(deployment("web", 3), "Deployment");
  cluster.store.add(d);
  cluster.advance(5 * SECOND);
  const hash = computeTemplateHash(d.spec!.template).hash;
  const rsList = cluster.store.list("ReplicaSet", { namespace: "default" });
  assert.deepEqual(rsList.map((r) => r.metadata.name), [`web-${hash}`]);
  const rs = rsList[0]!;
  assert.equal(rs.metadata.labels?.[POD_TEMPLATE_HASH_LABEL], hash);
  assert.equal(rs.spec?.selector.matchLabels?.[POD_TEMPLATE_HASH_LABEL], hash);
  assert.equal(rs.metadata.ownerReferences?.[0]?.kind, "Deployment");
  const pods = cluster.store.list("Pod", { namespace: "default" });
  assert.equal(pods.length, 3);
  for (const p of pods) {
    assert.match(p.metadata.name, new RegExp(`^web-${hash}-[bcdfghjklmnpqrstvwxz2456789]{5}$`));
    assert.equal(p.metadata.labels?.[POD_TEMPLATE_HASH_LABEL], hash);
    assert.equal(p.status?.phase, "Running");
  }
  const status = cluster.store.get("Deployment", "default", "web")!.status!;
  assert.deepEqual([status.replicas, status.readyReplicas, status.availableReplicas, status.updatedReplicas], [3, 3, 3, 3]);
});

test("the same seed gives the same pod names; another seed other names", async () => {
  const names = async (): Promise<string[]> => {
    const cluster = await seedCluster();
    cluster.store.add(one(deployment("web", 3), "Deployment"));
    cluster.advance(SECOND);
    return cluster.store.list("Pod", { namespace: "default" }).map((p) => p.metadata.name);
  };
  assert.deepEqual(await names(), await names());
});

test("scaling up and down changes the ReplicaSet and the pods; scale-down removes the newest first", async () => {
  const cluster = await seedCluster();
  cluster.store.add(one(deployment("web", 2), "Deployment"));
  cluster.advance(5 * SECOND);
  const first = cluster.store.list("Pod", { namespace: "default" }).map((p) => p.metadata.name);
  cluster.store.modify("Deployment", "default", "web", (d) => {
    d.spec!.replicas = 4;
  });
  cluster.advance(5 * SECOND);
  assert.equal(cluster.store.list("Pod", { namespace: "default" }).length, 4);
  assert.equal(cluster.store.list("ReplicaSet", { namespace: "default" })[0]!.spec?.replicas, 4);
  cluster.store.modify("Deployment", "default", "web", (d) => {
    d.spec!.replicas = 2;
  });
  cluster.advance(5 * SECOND);
  const left = cluster.store.list("Pod", { namespace: "default" }).map((p) => p.metadata.name);
  assert.deepEqual(left.sort(), first.sort(), "the two newer pods went");
  const events = cluster.store.list("Event", { namespace: "default", where: (e) => e.reason === "ScalingReplicaSet" }).map((e) => e.message);
  const rs = cluster.store.list("ReplicaSet", { namespace: "default" })[0]!.metadata.name;
  assert.deepEqual(events.sort(), [`Scaled down replica set ${rs} to 2 from 4`, `Scaled up replica set ${rs} to 2`, `Scaled up replica set ${rs} to 4 from 2`].sort());
});

test("RollingUpdate fenceposts: maxSurge rounds up, maxUnavailable down, both 0 means 1 unavailable", () => {
  const d = (replicas: number, surge?: string | number, unavailable?: string | number): KubeObject<"Deployment"> =>
    ({
      apiVersion: "apps/v1",
      kind: "Deployment",
      metadata: { name: "d" },
      spec: {
        replicas,
        selector: {},
        template: {},
        strategy: { type: "RollingUpdate", rollingUpdate: { ...(surge === undefined ? {} : { maxSurge: surge }), ...(unavailable === undefined ? {} : { maxUnavailable: unavailable }) } },
      },
    }) as KubeObject<"Deployment">;
  assert.deepEqual(resolveFenceposts(d(2, "25%", "25%")), { maxSurge: 1, maxUnavailable: 0 });
  assert.deepEqual(resolveFenceposts(d(10, "25%", "25%")), { maxSurge: 3, maxUnavailable: 2 });
  assert.deepEqual(resolveFenceposts(d(3, 0, 0)), { maxSurge: 0, maxUnavailable: 1 });
  assert.deepEqual(resolveFenceposts(d(4, "50%", 1)), { maxSurge: 2, maxUnavailable: 1 });
});

test("rollout restart: a new ReplicaSet, never more than replicas+maxSurge pods nor fewer than replicas-maxUnavailable available", async () => {
  const cluster = await seedCluster();
  cluster.store.add(one(deployment("web", 4), "Deployment"));
  cluster.advance(10 * SECOND);
  const oldRs = cluster.store.list("ReplicaSet", { namespace: "default" })[0]!.metadata.name;
  let maxPods = 0;
  let minReady = Number.POSITIVE_INFINITY;
  const stop = cluster.store.watch(() => {
    const pods = cluster.store.list("Pod", { namespace: "default", where: (p) => p.metadata.deletionTimestamp === undefined });
    maxPods = Math.max(maxPods, pods.length);
    minReady = Math.min(minReady, pods.filter(isPodReady).length);
  }, ["Pod"]);
  cluster.store.modify("Deployment", "default", "web", (d) => {
    const t = d.spec!.template;
    t.metadata = { ...t.metadata, annotations: { "kubectl.kubernetes.io/restartedAt": "2024-07-01T08:01:00Z" } };
  });
  cluster.advance(60 * SECOND);
  stop();
  const sets = cluster.store.list("ReplicaSet", { namespace: "default" });
  assert.equal(sets.length, 2);
  const fresh = sets.find((r) => r.metadata.name !== oldRs)!;
  assert.equal(fresh.spec?.replicas, 4);
  assert.equal(sets.find((r) => r.metadata.name === oldRs)!.spec?.replicas, 0);
  assert.equal(fresh.metadata.annotations?.["deployment.kubernetes.io/revision"], "2");
  const pods = cluster.store.list("Pod", { namespace: "default" });
  assert.equal(pods.length, 4);
  assert.ok(pods.every((p) => p.metadata.name.startsWith(fresh.metadata.name)));
  assert.ok(maxPods <= 4 + 1, `at most replicas + maxSurge (1) pods, saw ${maxPods}`);
  assert.ok(minReady >= 4 - 1, `at least replicas - maxUnavailable (1) ready, saw ${minReady}`);
});

test("deleting a Deployment deletes its ReplicaSets and pods (garbage collection)", async () => {
  const cluster = await seedCluster();
  cluster.store.add(one(deployment("web", 2), "Deployment"));
  cluster.advance(5 * SECOND);
  cluster.store.delete("Deployment", "default", "web");
  cluster.advance(5 * SECOND);
  assert.equal(cluster.store.list("ReplicaSet", { namespace: "default" }).length, 0);
  assert.equal(cluster.store.list("Pod", { namespace: "default" }).length, 0);
});

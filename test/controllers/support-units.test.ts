// Smaller pieces: the pod IP allocator, event aggregation, admission of new pods.
import { test } from "node:test";
import assert from "node:assert/strict";
import { admitPod, API_ACCESS_VOLUME_PREFIX, NodeBlockAllocator, SERVICE_ACCOUNT_MOUNT_PATH } from "../../src/controllers/index.js";
import type { KubeObject } from "../../src/k8s/index.js";
import { SeededRng } from "../../src/util/rng.js";
import { one, SECOND, seedCluster } from "./support.js";

test("NodeBlockAllocator: node i gets block i of the pod CIDR; addresses in order, released ones reused last", () => {
  const a = new NodeBlockAllocator(["n0", "n1"], { address: 0x0ae00000, prefixLength: 16 }, 30);
  assert.equal(a.allocate("n1", "p1"), "10.224.0.6");
  assert.equal(a.allocate("n1", "p1"), "10.224.0.6", "same pod, same address");
  assert.equal(a.allocate("n1", "p2"), null, "a /30 block has one usable pod address after the reserved first one");
  a.release("p1");
  assert.equal(a.allocate("n1", "p3"), "10.224.0.6");
  assert.equal(a.allocate("n0", "p4"), "10.224.0.2");
  assert.equal(a.allocate("unknown", "p5"), null);
});

test("the seed cluster's pods get addresses from their node's /26 of 10.224.0.0/16", async () => {
  const cluster = await seedCluster();
  cluster.store.add(one("apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  nodeName: worker32.cyh.cloud\n  containers: [{name: c, image: nginx}]\n", "Pod"));
  cluster.advance(5 * SECOND);
  const p = cluster.store.get("Pod", "default", "p")!;
  assert.equal(p.status?.podIP, "10.224.0.130");
  assert.equal(p.status?.hostIP, "10.1.8.32");
});

test("repeated events are one Event object with a count", async () => {
  const cluster = await seedCluster();
  const node = cluster.store.get("Node", undefined, "worker31.cyh.cloud")!;
  for (let i = 0; i < 3; i++) cluster.manager.ctx.events.record(node, "Warning", "Test", "same thing", { component: "test" });
  const events = cluster.store.list("Event", { where: (e) => e.reason === "Test" });
  assert.equal(events.length, 1);
  assert.equal(events[0]!.count, 3);
});

test("admission: generated name, default service account and its projected token volume mounted read-only", () => {
  const pod: KubeObject<"Pod"> = { apiVersion: "v1", kind: "Pod", metadata: { name: "", generateName: "web-" }, spec: { containers: [{ name: "c", image: "nginx" }] } };
  admitPod(pod, new SeededRng(1));
  assert.match(pod.metadata.name, /^web-[bcdfghjklmnpqrstvwxz2456789]{5}$/);
  assert.equal(pod.spec?.serviceAccountName, "default");
  const volume = pod.spec?.volumes?.[0];
  assert.ok(volume?.name.startsWith(API_ACCESS_VOLUME_PREFIX));
  assert.equal(volume?.projected?.sources?.[0]?.serviceAccountToken?.expirationSeconds, 3607);
  assert.deepEqual(pod.spec?.containers[0]?.volumeMounts, [{ name: volume!.name, readOnly: true, mountPath: SERVICE_ACCOUNT_MOUNT_PATH }]);
});

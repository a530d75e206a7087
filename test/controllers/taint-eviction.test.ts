// NoExecute taints: untolerated pods go at once, tolerating pods after tolerationSeconds, a
// removed taint cancels a pending eviction; and the admission defaults (300 s not-ready and
// unreachable tolerations) that keep pods through short node trouble.
import { test } from "node:test";
import assert from "node:assert/strict";
import { minTolerationSeconds } from "../../src/controllers/index.js";
import type { LabCluster } from "../../src/lab/index.js";
import { one, SECOND, seedCluster } from "./support.js";

const pod = (name: string, tolerations = ""): string => `apiVersion: v1
kind: Pod
metadata: {name: ${name}}
spec:
  nodeName: worker31.cyh.cloud
${tolerations}
  containers: [{name: c, image: nginx}]
`;

function taint(cluster: LabCluster, effect: "NoExecute" | "NoSchedule", present: boolean): void {
  cluster.store.modify("Node", undefined, "worker31.cyh.cloud", (n) => {
    n.spec = { ...n.spec, taints: present ? [{ key: "maintenance", value: "true", effect, timeAdded: "2024-07-01T08:00:00Z" }] : [] };
  });
}

const names = (cluster: LabCluster): string[] => cluster.store.list("Pod", { namespace: "default", where: (p) => p.metadata.deletionTimestamp === undefined }).map((p) => p.metadata.name);

test("a NoExecute taint evicts a pod that does not tolerate it at once, with the TaintManagerEviction event", async () => {
  const cluster = await seedCluster();
  cluster.store.add(one(pod("plain"), "Pod"));
  cluster.advance(5 * SECOND);
  taint(cluster, "NoExecute", true);
  cluster.settle();
  assert.deepEqual(names(cluster), []);
  const events = cluster.store.list("Event", { namespace: "default", where: (e) => e.reason === "TaintManagerEviction" });
  assert.deepEqual(events.map((e) => [e.message, e.source?.component]), [["Marking for deletion Pod default/plain", "taint-eviction-controller"]]);
  cluster.advance(5 * SECOND);
  assert.equal(cluster.store.get("Pod", "default", "plain"), undefined, "the kubelet finished deleting it");
});

test("a NoSchedule taint evicts nothing", async () => {
  const cluster = await seedCluster();
  cluster.store.add(one(pod("plain"), "Pod"));
  cluster.advance(5 * SECOND);
  taint(cluster, "NoSchedule", true);
  cluster.advance(600 * SECOND);
  assert.deepEqual(names(cluster), ["plain"]);
});

test("tolerationSeconds: 60 keeps the pod 60 s after the taint, not a second longer", async () => {
  const cluster = await seedCluster();
  cluster.store.add(one(pod("patient", "  tolerations: [{key: maintenance, operator: Exists, effect: NoExecute, tolerationSeconds: 60}]"), "Pod"));
  cluster.advance(5 * SECOND);
  taint(cluster, "NoExecute", true);
  cluster.advance(59 * SECOND);
  assert.deepEqual(names(cluster), ["patient"]);
  cluster.advance(2 * SECOND);
  assert.deepEqual(names(cluster), []);
});

test("removing the taint before tolerationSeconds cancels the eviction", async () => {
  const cluster = await seedCluster();
  cluster.store.add(one(pod("patient", "  tolerations: [{key: maintenance, operator: Exists, effect: NoExecute, tolerationSeconds: 60}]"), "Pod"));
  cluster.advance(5 * SECOND);
  taint(cluster, "NoExecute", true);
  cluster.advance(30 * SECOND);
  taint(cluster, "NoExecute", false);
  cluster.advance(120 * SECOND);
  assert.deepEqual(names(cluster), ["patient"]);
  const messages = cluster.store.list("Event", { namespace: "default", where: (e) => e.reason === "TaintManagerEviction" }).map((e) => e.message);
  assert.deepEqual(messages, ["Cancelling deletion of Pod default/patient"]);
});

test("a toleration without tolerationSeconds tolerates forever", async () => {
  const cluster = await seedCluster();
  cluster.store.add(one(pod("forever", "  tolerations: [{key: maintenance, operator: Exists, effect: NoExecute}]"), "Pod"));
  cluster.advance(5 * SECOND);
  taint(cluster, "NoExecute", true);
  cluster.advance(3600 * SECOND);
  assert.deepEqual(names(cluster), ["forever"]);
});

test("every admitted pod tolerates not-ready and unreachable for 300 s (DefaultTolerationSeconds)", async () => {
  const cluster = await seedCluster();
  cluster.store.add(one(pod("plain"), "Pod"));
  const p = cluster.store.get("Pod", "default", "plain")!;
  assert.deepEqual(
    p.spec?.tolerations?.map((t) => [t.key, t.operator, t.effect, t.tolerationSeconds]),
    [
      ["node.kubernetes.io/not-ready", "Exists", "NoExecute", 300],
      ["node.kubernetes.io/unreachable", "Exists", "NoExecute", 300],
    ],
  );
  cluster.store.modify("Node", undefined, "worker31.cyh.cloud", (n) => {
    n.spec = { ...n.spec, taints: [{ key: "node.kubernetes.io/unreachable", effect: "NoExecute" }] };
  });
  cluster.advance(299 * SECOND);
  assert.deepEqual(names(cluster), ["plain"]);
  cluster.advance(2 * SECOND);
  assert.deepEqual(names(cluster), []);
});

test("getMinTolerationTime: the smallest tolerationSeconds; none = never; 0 or negative = now", () => {
  assert.equal(minTolerationSeconds([]), 0);
  assert.equal(minTolerationSeconds([{ key: "a" }]), -1);
  assert.equal(minTolerationSeconds([{ key: "a", tolerationSeconds: 60 }, { key: "b", tolerationSeconds: 30 }, { key: "c" }]), 30);
  assert.equal(minTolerationSeconds([{ key: "a", tolerationSeconds: -5 }, { key: "b", tolerationSeconds: 30 }]), 0);
});

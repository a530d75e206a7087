// DaemonSets: one pod per eligible node, upstream's automatic tolerations, node-name affinity.
import { test } from "node:test";
import assert from "node:assert/strict";
import { daemonPodTolerations } from "../../src/controllers/index.js";
import { one, SECOND, seedCluster } from "./support.js";

const ds = (tolerations: string, extra = ""): string => `apiVersion: apps/v1
kind: DaemonSet
metadata: {name: agent, namespace: kube-system}
spec:
  selector: {matchLabels: {app: agent}}
  template:
    metadata: {labels: {app: agent}}
    spec:
${tolerations}
${extra}
      containers: [{name: agent, image: agent:1}]
`;

const nodesOf = async (text: string): Promise<string[]> => {
  const cluster = await seedCluster();
  cluster.store.add(one(text, "DaemonSet", "kube-system"));
  cluster.advance(5 * SECOND);
  return cluster.store
    .list("Pod", { namespace: "kube-system" })
    .map((p) => p.spec?.nodeName ?? "")
    .sort();
};

test("without a toleration for the control-plane taint a DaemonSet runs on the two workers", async () => {
  assert.deepEqual(await nodesOf(ds("")), ["worker31.cyh.cloud", "worker32.cyh.cloud"]);
});

test("tolerating everything (operator: Exists) it runs on all three nodes", async () => {
  assert.deepEqual(await nodesOf(ds("      tolerations: [{operator: Exists}]")), ["master30.cyh.cloud", "worker31.cyh.cloud", "worker32.cyh.cloud"]);
});

test("a nodeSelector limits the nodes", async () => {
  assert.deepEqual(await nodesOf(ds("", "      nodeSelector: {kubernetes.io/hostname: worker32.cyh.cloud}")), ["worker32.cyh.cloud"]);
});

test("daemon pods carry upstream's tolerations (after the template's) and a metadata.name node affinity", async () => {
  const cluster = await seedCluster();
  cluster.store.add(one(ds("      tolerations: [{key: CPU, operator: Exists}]"), "DaemonSet", "kube-system"));
  cluster.advance(5 * SECOND);
  const pod = cluster.store.list("Pod", { namespace: "kube-system", where: (p) => p.spec?.nodeName === "worker31.cyh.cloud" })[0]!;
  assert.deepEqual(
    pod.spec?.tolerations?.map((t) => `${t.key ?? ""}:${t.effect ?? ""}:${t.tolerationSeconds ?? "-"}`),
    [
      "CPU::-",
      "node.kubernetes.io/not-ready:NoExecute:-",
      "node.kubernetes.io/unreachable:NoExecute:-",
      "node.kubernetes.io/disk-pressure:NoSchedule:-",
      "node.kubernetes.io/memory-pressure:NoSchedule:-",
      "node.kubernetes.io/pid-pressure:NoSchedule:-",
      "node.kubernetes.io/unschedulable:NoSchedule:-",
    ],
  );
  assert.deepEqual(pod.spec?.affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution?.nodeSelectorTerms, [
    { matchFields: [{ key: "metadata.name", operator: "In", values: ["worker31.cyh.cloud"] }] },
  ]);
  assert.match(pod.metadata.name, /^agent-[bcdfghjklmnpqrstvwxz2456789]{5}$/);
  assert.equal(cluster.store.get("DaemonSet", "kube-system", "agent")!.status?.desiredNumberScheduled, 2);
});

test("hostNetwork daemon pods also tolerate network-unavailable", () => {
  const t = daemonPodTolerations({ hostNetwork: true, containers: [] });
  assert.equal(t.at(-1)?.key, "node.kubernetes.io/network-unavailable");
  assert.equal(daemonPodTolerations({ containers: [] }).length, 6);
});

test("a cordoned node keeps and gets daemon pods (they tolerate node.kubernetes.io/unschedulable)", async () => {
  const cluster = await seedCluster();
  cluster.store.modify("Node", undefined, "worker31.cyh.cloud", (n) => {
    n.spec = { ...n.spec, unschedulable: true };
  });
  cluster.advance(SECOND);
  cluster.store.add(one(ds(""), "DaemonSet", "kube-system"));
  cluster.advance(5 * SECOND);
  const onCordoned = cluster.store.list("Pod", { namespace: "kube-system", where: (p) => p.spec?.nodeName === "worker31.cyh.cloud" });
  assert.equal(onCordoned.length, 1);
  assert.equal(onCordoned[0]!.status?.phase, "Running");
});

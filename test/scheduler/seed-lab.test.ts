// The scheduling experiments of the seed lab (../shared/scenarios/seed-lab.md, "Kubernetes Pod
// Scheduler"), at the scheduler level: the seed's three nodes, the objects each experiment creates,
// node labels/taints/cordons applied to the store as kubectl would, and the placements or the exact
// FailedScheduling messages the seed document shows (kube-scheduler v1.30.2). Pods of Deployments are
// created directly (owned by a ReplicaSet), since controllers are another layer.
import { test } from "node:test";
import assert from "node:assert/strict";
import {
  addYaml,
  cordon,
  failedScheduling,
  labelNode,
  MASTER,
  placements,
  pod,
  replicaSetYaml,
  scheduler,
  seedLabStore,
  taintNode,
  W31,
  W32,
} from "./helpers.js";

const NS = "apiVersion: v1\nkind: Namespace\nmetadata: {name: scheduler}\n";
const nginx = "containers:\n- {name: nginx, image: nginx}";
const CP_TAINT = "1 node(s) had untolerated taint {node-role.kubernetes.io/control-plane: }";

test("experiment 1: nodeName places all 5 replicas on worker32; the scheduler leaves bound pods alone", () => {
  const store = seedLabStore(NS);
  const s = scheduler(store);
  addYaml(store, replicaSetYaml("webapp-55c6b896bc", 5, { app: "webapp" }, `nodeName: ${W32}\n${nginx}`));
  assert.deepEqual(s.scheduleAll(), []);
  assert.deepEqual(Object.values(placements(store, "scheduler")), [W32, W32, W32, W32, W32]);
  assert.deepEqual(s.pending(), []);
});

test("experiment 2: nodeSelector disktype=ssd puts all 3 on worker31; removing the label later moves nothing", () => {
  const store = seedLabStore(NS);
  const s = scheduler(store);
  labelNode(store, W31, "disktype", "ssd");
  addYaml(store, replicaSetYaml("webapp-7d675f9d9c", 3, { app: "webapp" }, `nodeSelector: {disktype: ssd}\n${nginx}`));
  const results = s.scheduleAll();
  assert.deepEqual(results.map((r) => r.node), [W31, W31, W31]);
  assert.deepEqual(results[0]!.filter[W32], { ok: false, reasons: ["node(s) didn't match Pod's node affinity/selector"], plugin: "NodeAffinity" });
  labelNode(store, W31, "disktype", null);
  assert.deepEqual(s.scheduleAll(), []);
  assert.deepEqual(Object.values(placements(store, "scheduler")), [W31, W31, W31]);
});

const cpuAffinity = `affinity:
  nodeAffinity:
    requiredDuringSchedulingIgnoredDuringExecution:
      nodeSelectorTerms:
      - matchExpressions:
        - {key: CPU, operator: In, values: [L1, L2]}
    preferredDuringSchedulingIgnoredDuringExecution:
    - weight: 1
      preference:
        matchExpressions:
        - {key: MEM, operator: In, values: [L1, L2]}
${nginx}`;

test("experiment 3: required CPU In [L1, L2] stays Pending until the workers are labelled, then one lands on each", () => {
  const store = seedLabStore(NS);
  const s = scheduler(store);
  addYaml(store, replicaSetYaml("web-8496b6959f", 2, { app: "web" }, cpuAffinity));
  const first = s.scheduleAll();
  const msg =
    `0/3 nodes are available: ${CP_TAINT}, 2 node(s) didn't match Pod's node affinity/selector. ` +
    "preemption: 0/3 nodes are available: 3 Preemption is not helpful for scheduling.";
  assert.deepEqual(first.map((r) => [r.node, r.message]), [
    [null, msg],
    [null, msg],
  ]);
  assert.deepEqual(failedScheduling(store, "scheduler", "web-8496b6959f-a"), [msg]);
  assert.deepEqual(pod(store, "scheduler", "web-8496b6959f-a").status?.conditions?.[0], { type: "PodScheduled", status: "False", reason: "Unschedulable", message: msg });
  labelNode(store, W31, "CPU", "L1");
  labelNode(store, W32, "CPU", "L2");
  assert.deepEqual(s.pending(), ["scheduler/web-8496b6959f-a", "scheduler/web-8496b6959f-b"], "the label events moved both pods back to the active queue");
  const second = s.scheduleAll();
  assert.deepEqual(new Set(second.map((r) => r.node)), new Set([W31, W32]), "one on each worker");
  // The second pod went to the other worker because of spreading and LeastAllocated:
  const scores = second[1]!.scores;
  const other = second[1]!.node!;
  const busy = other === W31 ? W32 : W31;
  assert.ok(scores[other]!.plugins["PodTopologySpread"]! > scores[busy]!.plugins["PodTopologySpread"]!);
  assert.ok(scores[other]!.plugins["NodeResourcesFit"]! > scores[busy]!.plugins["NodeResourcesFit"]!);
});

test("experiment 3 (rollout restart): with MEM=L2 on worker32 the new ReplicaSet's pods both land on worker32", () => {
  for (const deleteFirst of [W31, W32]) {
    const store = seedLabStore(NS);
    labelNode(store, W31, "CPU", "L1");
    labelNode(store, W32, "CPU", "L2");
    const s = scheduler(store);
    addYaml(store, replicaSetYaml("web-8496b6959f", 2, { app: "web" }, cpuAffinity));
    s.scheduleAll();
    labelNode(store, W32, "MEM", "L2");
    // RollingUpdate with maxSurge 25% (1) and maxUnavailable 25% (0): one new pod, then one old pod goes, ...
    const newRs = replicaSetYaml("web-6b8f7c9d5", 2, { app: "web", "pod-template-hash": "6b8f7c9d5" }, cpuAffinity).split("\n---\n");
    addYaml(store, [newRs[0], newRs[1]].join("\n---\n"));
    assert.equal(s.scheduleAll()[0]!.node, W32);
    const old = store.list("Pod", { namespace: "scheduler" }).find((p) => p.metadata.name.startsWith("web-8496b6959f") && p.spec?.nodeName === deleteFirst)!;
    store.delete("Pod", "scheduler", old.metadata.name);
    addYaml(store, newRs[2]!);
    const r = s.scheduleAll()[0]!;
    assert.equal(r.node, W32, `after deleting the old pod on ${deleteFirst}`);
    assert.equal(r.scores[W32]!.plugins["NodeAffinity"], 100);
    assert.equal(r.scores[W31]!.plugins["NodeAffinity"], 0);
  }
});

test("experiment 4: a node matching the weight-50 preferred term beats the one matching the weight-1 term", () => {
  const store = seedLabStore(NS);
  labelNode(store, W31, "label-1", "key-1");
  labelNode(store, W32, "label-2", "key-2");
  const s = scheduler(store);
  addYaml(
    store,
    `apiVersion: v1
kind: Pod
metadata: {name: with-affinity-anti-affinity}
spec:
  affinity:
    nodeAffinity:
      requiredDuringSchedulingIgnoredDuringExecution:
        nodeSelectorTerms:
        - matchExpressions:
          - {key: kubernetes.io/os, operator: In, values: [linux]}
      preferredDuringSchedulingIgnoredDuringExecution:
      - weight: 1
        preference:
          matchExpressions:
          - {key: label-1, operator: In, values: [key-1]}
      - weight: 50
        preference:
          matchExpressions:
          - {key: label-2, operator: In, values: [key-2]}
  containers:
  - {name: with-node-affinity, image: hub.cyh.cloud/library/nginx}
`,
  );
  const [r] = s.scheduleAll();
  assert.equal(r!.node, W32);
  assert.deepEqual([r!.scores[W31]!.plugins["NodeAffinity"], r!.scores[W32]!.plugins["NodeAffinity"]], [2, 100], "1 and 50, normalized by 50");
});

const podWithAffinity = `apiVersion: v1
kind: Pod
metadata: {name: pod-with-podaffinity}
spec:
  affinity:
    podAffinity:
      requiredDuringSchedulingIgnoredDuringExecution:
      - labelSelector:
          matchExpressions:
          - {key: app, operator: In, values: [web]}
        topologyKey: topology.kubernetes.io/zone
  containers:
  - {name: web, image: docker.io/library/nginx}
`;

test("experiment 5: pod affinity on topology.kubernetes.io/zone: either worker of zone v fits; without worker32's zone it lands on worker31", () => {
  const store = seedLabStore(NS);
  labelNode(store, W31, "topology.kubernetes.io/zone", "v");
  labelNode(store, W32, "topology.kubernetes.io/zone", "v");
  const s = scheduler(store);
  addYaml(store, `apiVersion: v1\nkind: Pod\nmetadata: {name: web, labels: {app: web}}\nspec:\n  nodeName: ${W31}\n  containers:\n  - {name: nginx, image: nginx}\n`);
  addYaml(store, podWithAffinity);
  const [r] = s.scheduleAll();
  assert.deepEqual([r!.filter[W31], r!.filter[W32]], [{ ok: true }, { ok: true }]);
  assert.equal(r!.node, W32, "as in the seed: worker32 wins on LeastAllocated (worker31 already runs web)");
  store.delete("Pod", "scheduler", "pod-with-podaffinity");
  labelNode(store, W32, "topology.kubernetes.io/zone", null);
  addYaml(store, podWithAffinity);
  const [again] = s.scheduleAll();
  assert.equal(again!.node, W31);
  assert.deepEqual(again!.filter[W32], { ok: false, reasons: ["node(s) didn't match pod affinity rules"], plugin: "InterPodAffinity" });
});

const storeAnti = `affinity:
  podAntiAffinity:
    requiredDuringSchedulingIgnoredDuringExecution:
    - labelSelector:
        matchExpressions:
        - {key: app, operator: In, values: [store]}
      topologyKey: kubernetes.io/hostname
containers:
- {name: web-server, image: docker.io/library/nginx}`;

test("experiment 6: anti-affinity on kubernetes.io/hostname, 3 replicas: one per worker, the third Pending", () => {
  const store = seedLabStore(NS);
  const s = scheduler(store);
  addYaml(store, replicaSetYaml("store-5596cf4c84", 3, { app: "store" }, storeAnti));
  const results = s.scheduleAll();
  assert.deepEqual(new Set(results.slice(0, 2).map((r) => r.node)), new Set([W31, W32]));
  assert.equal(results[2]!.node, null);
  assert.equal(
    results[2]!.message,
    `0/3 nodes are available: ${CP_TAINT}, 2 node(s) didn't match pod anti-affinity rules. ` +
      "preemption: 0/3 nodes are available: 1 Preemption is not helpful for scheduling, 2 No preemption victims found for incoming pod.",
  );
  // Deleting a running replica (kubectl delete pod) lets the pending one in.
  const running = store.list("Pod", { namespace: "scheduler" }).find((p) => p.spec?.nodeName === W31)!;
  store.delete("Pod", "scheduler", running.metadata.name);
  assert.equal(s.scheduleAll()[0]!.node, W31);
});

test("experiment 7: web-store (affinity to app=store, anti-affinity to itself): the first joins store's node, the second stays Pending", () => {
  const store = seedLabStore(NS);
  const s = scheduler(store);
  addYaml(store, replicaSetYaml("store-5596cf4c84", 1, { app: "store" }, `nodeName: ${W32}\n${storeAnti}`));
  const webStore = `affinity:
  podAntiAffinity:
    requiredDuringSchedulingIgnoredDuringExecution:
    - labelSelector:
        matchExpressions:
        - {key: app, operator: In, values: [web-store]}
      topologyKey: kubernetes.io/hostname
  podAffinity:
    requiredDuringSchedulingIgnoredDuringExecution:
    - labelSelector:
        matchExpressions:
        - {key: app, operator: In, values: [store]}
      topologyKey: kubernetes.io/hostname
containers:
- {name: web-app, image: docker.io/library/nginx}`;
  const both = replicaSetYaml("web-store-7b4779c958", 2, { app: "web-store" }, webStore).split("\n---\n");
  addYaml(store, [both[0], both[1]].join("\n---\n"));
  assert.equal(s.scheduleAll()[0]!.node, W32);
  addYaml(store, both[2]!);
  const [second] = s.scheduleAll();
  assert.equal(second!.node, null);
  assert.equal(
    second!.message,
    "0/3 nodes are available: 1 node(s) didn't match pod affinity rules, 1 node(s) didn't match pod anti-affinity rules, " +
      `${CP_TAINT}. preemption: 0/3 nodes are available: 1 No preemption victims found for incoming pod, 2 Preemption is not helpful for scheduling.`,
  );
});

const toleration = (key: string, value: string, effect: string): string => `- {key: ${key}, operator: Equal, value: ${value}, effect: ${effect}}`;

test("experiment 8: taints CPU=L1/CPU=L2 and toleration CPU=L3: Pending with the seed's exact message; toleration CPU=L1 puts both on worker31", () => {
  const store = seedLabStore(NS);
  taintNode(store, W31, { key: "CPU", value: "L1", effect: "NoSchedule" });
  taintNode(store, W32, { key: "CPU", value: "L2", effect: "NoSchedule" });
  const s = scheduler(store);
  addYaml(store, replicaSetYaml("web-5bf7b7b98f", 2, { app: "web" }, `tolerations:\n${toleration("CPU", "L3", "NoSchedule")}\n${nginx}`));
  const results = s.scheduleAll();
  const seedMessage =
    "0/3 nodes are available: 1 node(s) had untolerated taint {CPU: L1}, 1 node(s) had untolerated taint {CPU: L2}, " +
    "1 node(s) had untolerated taint {node-role.kubernetes.io/control-plane: }. preemption: 0/3 nodes are available: 3 Preemption is not helpful for scheduling.";
  assert.deepEqual(results.map((r) => r.message), [seedMessage, seedMessage]);
  assert.deepEqual(failedScheduling(store, "scheduler", "web-5bf7b7b98f-b"), [seedMessage]);
  for (const p of ["web-5bf7b7b98f-a", "web-5bf7b7b98f-b"]) store.delete("Pod", "scheduler", p);
  addYaml(store, replicaSetYaml("web-7c99d767", 2, { app: "web" }, `tolerations:\n${toleration("CPU", "L1", "NoSchedule")}\n${nginx}`));
  assert.deepEqual(s.scheduleAll().map((r) => r.node), [W31, W31]);
});

test("experiment 8, newer wording: kube-scheduler v1.35 hides the taints", () => {
  const store = seedLabStore(NS);
  taintNode(store, W31, { key: "CPU", value: "L1", effect: "NoSchedule" });
  taintNode(store, W32, { key: "CPU", value: "L2", effect: "NoSchedule" });
  const s = scheduler(store, { kubernetesVersion: "v1.35.0" });
  addYaml(store, replicaSetYaml("web-5bf7b7b98f", 1, { app: "web" }, `tolerations:\n${toleration("CPU", "L3", "NoSchedule")}\n${nginx}`));
  assert.equal(
    s.scheduleAll()[0]!.message,
    "0/3 nodes are available: 3 node(s) had untolerated taint(s). preemption: 0/3 nodes are available: 3 Preemption is not helpful for scheduling.",
  );
});

test("experiment 9: several taints and two CPU=L1 tolerations: Pending naming {CPU: L2}, {MEM: L2} and the control plane; adding MEM=L2 puts both on worker31", () => {
  const store = seedLabStore(NS);
  taintNode(store, W31, { key: "CPU", value: "L1", effect: "NoSchedule" });
  taintNode(store, W31, { key: "CPU", value: "L1", effect: "NoExecute" });
  taintNode(store, W31, { key: "MEM", value: "L2", effect: "NoSchedule" });
  taintNode(store, W32, { key: "CPU", value: "L2", effect: "NoSchedule" });
  const s = scheduler(store);
  const two = [toleration("CPU", "L1", "NoSchedule"), toleration("CPU", "L1", "NoExecute")].join("\n");
  addYaml(store, replicaSetYaml("web-6844d698c4", 2, { app: "web" }, `tolerations:\n${two}\n${nginx}`));
  const seedMessage =
    "0/3 nodes are available: 1 node(s) had untolerated taint {CPU: L2}, 1 node(s) had untolerated taint {MEM: L2}, " +
    "1 node(s) had untolerated taint {node-role.kubernetes.io/control-plane: }. preemption: 0/3 nodes are available: 3 Preemption is not helpful for scheduling.";
  assert.deepEqual(s.scheduleAll().map((r) => r.message), [seedMessage, seedMessage]);
  for (const p of ["web-6844d698c4-a", "web-6844d698c4-b"]) store.delete("Pod", "scheduler", p);
  addYaml(store, replicaSetYaml("web-77d5464ccf", 2, { app: "web" }, `tolerations:\n${two}\n${toleration("MEM", "L2", "NoSchedule")}\n${nginx}`));
  assert.deepEqual(s.scheduleAll().map((r) => r.node), [W31, W31]);
});

test("experiment 10: cordoned worker31 takes nothing; after uncordon, scaling 2 -> 4 puts the two new pods on worker31", () => {
  const store = seedLabStore(NS);
  cordon(store, W31, true);
  const s = scheduler(store);
  const four = replicaSetYaml("web-59b9bb7664", 4, { app: "web" }, nginx).split("\n---\n");
  addYaml(store, [four[0], four[1], four[2]].join("\n---\n"));
  const first = s.scheduleAll();
  assert.deepEqual(first.map((r) => r.node), [W32, W32]);
  assert.deepEqual(first[0]!.filter[W31], { ok: false, reasons: ["node(s) were unschedulable"], plugin: "NodeUnschedulable" });
  assert.deepEqual(first[0]!.filter[MASTER]?.plugin, "TaintToleration");
  cordon(store, W31, false);
  addYaml(store, [four[3], four[4]].join("\n---\n"));
  assert.deepEqual(s.scheduleAll().map((r) => r.node), [W31, W31]);
});

test("experiment 11 (drain, scheduler side): pods recreated after evictions from cordoned worker31 land on worker32", () => {
  const store = seedLabStore(NS);
  const s = scheduler(store);
  const rs = replicaSetYaml("web-59b9bb7664", 4, { app: "web" }, nginx).split("\n---\n");
  addYaml(store, rs.slice(0, 5).join("\n---\n"));
  s.scheduleAll();
  cordon(store, W31, true);
  const onW31 = store.list("Pod", { namespace: "scheduler", where: (p) => p.spec?.nodeName === W31 });
  assert.equal(onW31.length, 2, "spread 2/2 before the drain");
  for (const p of onW31) store.delete("Pod", "scheduler", p.metadata.name);
  addYaml(store, replicaSetYaml("web-59b9bb7664x", 2, { app: "web" }, nginx).split("\n---\n").slice(1).join("\n---\n"));
  assert.deepEqual(s.scheduleAll().map((r) => r.node), [W32, W32]);
});

test("pending pods are retried when the cluster changes: a taint removed, a node added", () => {
  const store = seedLabStore(NS);
  taintNode(store, W31, { key: "CPU", value: "L1", effect: "NoSchedule" });
  taintNode(store, W32, { key: "CPU", value: "L2", effect: "NoSchedule" });
  const s = scheduler(store);
  addYaml(store, replicaSetYaml("web-5bf7b7b98f", 1, { app: "web" }, nginx));
  assert.equal(s.scheduleAll()[0]!.node, null);
  assert.deepEqual(s.scheduleAll(), [], "nothing changed: nothing is retried");
  labelNode(store, W32, "unrelated", "x");
  assert.deepEqual(s.scheduleAll(), [], "worker32 still has an untolerated NoSchedule taint: the label change does not requeue");
  taintNode(store, W31, { key: "CPU", value: "L1", effect: "NoSchedule" }, true);
  const [r] = s.scheduleAll();
  assert.equal(r!.node, W31);
  assert.equal(store.list("Event", { namespace: "scheduler", where: (e) => e.reason === "Scheduled" })[0]?.message, `Successfully assigned scheduler/web-5bf7b7b98f-a to ${W31}`);
});

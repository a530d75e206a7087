// kubectl's output formats against real oracles: tables and describe blocks printed by the seed
// lab's cluster (the seed published "cyh.cloud" for the "laoma.cloud" its cluster used, which
// shifted some columns; with the original 20-character node names the tables are kubectl's
// tabwriter output byte for byte), and `kubectl create deployment --dry-run=client -o yaml`
// as kubectl v1.32 prints it.
import { test } from "node:test";
import assert from "node:assert/strict";
import type { KubeObject } from "../../src/k8s/index.js";
import { describePod } from "../../src/lab/kubectl/describe.js";
import { humanDuration } from "../../src/lab/kubectl/format.js";
import { tablePrinter } from "../../src/lab/kubectl/printers.js";
import { formatTable, tabwrite } from "../../src/lab/kubectl/tabwriter.js";
import { defaultScheduler, LabCluster, LabFiles, runLab } from "../../src/lab/index.js";
import { loadFiles } from "../../src/k8s/index.js";
import { SEED_CLUSTER } from "../controllers/support.js";

const table = (kind: "Pod" | "Node", objects: KubeObject[], age: string, wide: boolean, labelColumns: string[] = []): string[] => {
  const p = tablePrinter(kind)!;
  const header = [...p.header, ...(wide ? p.wideHeader : []), ...labelColumns.map((k) => k.toUpperCase())];
  const rows = objects.map((o) => [...p.row(o, { age: () => age }, wide), ...labelColumns.map((k) => o.metadata.labels?.[k] ?? "")]);
  return formatTable(header, rows);
};

const pod = (name: string, phase: "Pending" | "Running", ip?: string, node?: string): KubeObject<"Pod"> =>
  ({
    apiVersion: "v1",
    kind: "Pod",
    metadata: { name },
    spec: { containers: [{ name: "nginx" }], ...(node === undefined ? {} : { nodeName: node }) },
    status: {
      phase,
      ...(ip === undefined ? {} : { podIP: ip }),
      ...(phase === "Running" ? { containerStatuses: [{ name: "nginx", ready: true, restartCount: 0, image: "nginx", imageID: "", state: { running: {} } }] } : {}),
    },
  }) as KubeObject<"Pod">;

const node = (name: string, controlPlane: boolean, labels: Record<string, string> = {}, unschedulable = false): KubeObject<"Node"> =>
  ({
    apiVersion: "v1",
    kind: "Node",
    metadata: { name, labels: { ...(controlPlane ? { "node-role.kubernetes.io/control-plane": "" } : {}), ...labels } },
    spec: unschedulable ? { unschedulable: true } : {},
    status: { conditions: [{ type: "Ready", status: "True" }], nodeInfo: { kubeletVersion: "v1.30.2" } },
  }) as unknown as KubeObject<"Node">;

test("kubectl get pods: the seed's Pending table (nodeAffinity, 验证1)", () => {
  assert.deepEqual(table("Pod", [pod("web-8496b6959f-gphmk", "Pending"), pod("web-8496b6959f-rfc5h", "Pending")], "3s", false), [
    "NAME                   READY   STATUS    RESTARTS   AGE",
    "web-8496b6959f-gphmk   0/1     Pending   0          3s",
    "web-8496b6959f-rfc5h   0/1     Pending   0          3s",
  ]);
});

test("kubectl get pods -o wide: the seed's tables of the taint experiments", () => {
  const w = "worker31.laoma.cloud";
  assert.deepEqual(table("Pod", [pod("web-7c99d767-w9rzt", "Running", "10.224.162.142", w), pod("web-7c99d767-wwjhk", "Running", "10.224.19.13", w)], "5s", true), [
    "NAME                 READY   STATUS    RESTARTS   AGE   IP               NODE                   NOMINATED NODE   READINESS GATES",
    "web-7c99d767-w9rzt   1/1     Running   0          5s    10.224.162.142   worker31.laoma.cloud   <none>           <none>",
    "web-7c99d767-wwjhk   1/1     Running   0          5s    10.224.19.13     worker31.laoma.cloud   <none>           <none>",
  ]);
  assert.deepEqual(table("Pod", [pod("web-77d5464ccf-656fd", "Running", "10.224.19.18", w), pod("web-77d5464ccf-wjk6m", "Running", "10.224.19.27", w)], "5s", true), [
    "NAME                   READY   STATUS    RESTARTS   AGE   IP             NODE                   NOMINATED NODE   READINESS GATES",
    "web-77d5464ccf-656fd   1/1     Running   0          5s    10.224.19.18   worker31.laoma.cloud   <none>           <none>",
    "web-77d5464ccf-wjk6m   1/1     Running   0          5s    10.224.19.27   worker31.laoma.cloud   <none>           <none>",
  ]);
});

test("kubectl get node -L disktype: the label column, empty cells padded as kubectl pads them", () => {
  const nodes = [node("master30.laoma.cloud", true), node("worker31.laoma.cloud", false, { disktype: "ssd" }), node("worker32.laoma.cloud", false)];
  assert.deepEqual(table("Node", nodes, "11d", false, ["disktype"]), [
    "NAME                   STATUS   ROLES           AGE   VERSION   DISKTYPE",
    "master30.laoma.cloud   Ready    control-plane   11d   v1.30.2   ",
    "worker31.laoma.cloud   Ready    <none>          11d   v1.30.2   ssd",
    "worker32.laoma.cloud   Ready    <none>          11d   v1.30.2   ",
  ]);
});

test("kubectl get nodes after cordon: Ready,SchedulingDisabled (the seed's rows)", () => {
  const rows = table("Node", [node("master30.laoma.cloud", true), node("worker31.laoma.cloud", false, {}, true), node("worker32.laoma.cloud", false)], "9d", false).slice(1);
  assert.deepEqual(rows, [
    "master30.laoma.cloud   Ready                      control-plane   9d    v1.30.2",
    "worker31.laoma.cloud   Ready,SchedulingDisabled   <none>          9d    v1.30.2",
    "worker32.laoma.cloud   Ready                      <none>          9d    v1.30.2",
  ]);
});

test("describe's Events block: the seed's FailedScheduling event", () => {
  const message =
    "0/3 nodes are available: 1 node(s) had untolerated taint {CPU: L1}, 1 node(s) had untolerated taint {CPU: L2}, 1 node(s) had untolerated taint {node-role.kubernetes.io/control-plane: }. preemption: 0/3 nodes are available: 3 Preemption is not helpful for scheduling.";
  const p = pod("web-5bf7b7b98f-kh7hv", "Pending");
  p.spec!.serviceAccountName = "default";
  const lines = describePod(p, {
    since: () => 29,
    events: [{ metadata: {}, involvedObject: {}, type: "Warning", reason: "FailedScheduling", message, source: { component: "default-scheduler" }, firstTimestamp: "t" }],
  });
  const at = lines.indexOf("Events:");
  assert.deepEqual(lines.slice(at), [
    "Events:",
    "  Type     Reason            Age   From               Message",
    "  ----     ------            ----  ----               -------",
    `  Warning  FailedScheduling  29s   default-scheduler  ${message}`,
  ]);
  assert.ok(lines.includes("Node:             <none>"), "fields aligned at column 18 as in the seed's Node: line");
});

test("tabwriter: a block ends at a line with fewer cells; the text after the last tab is never padded", () => {
  assert.deepEqual(tabwrite(["a\tb\tc", "aaaa\tb", "x", "yy\tz"], 2), ["a     b  c", "aaaa  b", "x", "yy  z"]);
});

test("ages follow apimachinery's HumanDuration", () => {
  const cases: [number, string][] = [
    [3, "3s"],
    [119, "119s"],
    [126, "2m6s"],
    [600, "10m"],
    [3 * 3600 + 5 * 60, "3h5m"],
    [9 * 3600, "9h"],
    [7 * 86400 + 8 * 3600, "7d8h"],
    [11 * 86400, "11d"],
    [800 * 86400, "2y70d"],
  ];
  for (const [s, want] of cases) assert.equal(humanDuration(s), want, `${s}s`);
});

/** `kubectl create deployment webapp --image nginx --replicas 5 -o yaml --dry-run=client` (kubectl v1.32.4), as the seed also shows it. */
const KUBECTL_DRY_RUN = `apiVersion: apps/v1
kind: Deployment
metadata:
  creationTimestamp: null
  labels:
    app: webapp
  name: webapp
spec:
  replicas: 5
  selector:
    matchLabels:
      app: webapp
  strategy: {}
  template:
    metadata:
      creationTimestamp: null
      labels:
        app: webapp
    spec:
      containers:
      - image: nginx
        name: nginx
        resources: {}
status: {}`;

test("kubectl create deployment --dry-run=client -o yaml prints what kubectl prints", async () => {
  const loaded = await loadFiles([SEED_CLUSTER]);
  const cluster = LabCluster.create(loaded, { scheduler: defaultScheduler });
  assert.ok(cluster.ok);
  const out: string[] = [];
  const r = runLab(cluster.value, "kubectl create deployment webapp --image nginx --replicas 5 -o yaml --dry-run=client\nkubectl create deployment web --image=hub.cyh.cloud/library/nginx:1.25 --dry-run=client", { files: new LabFiles(), echo: false }, { out: (l) => out.push(l), err: (l) => out.push(`ERR ${l}`) });
  assert.equal(r.ok, true);
  assert.deepEqual(out, [...KUBECTL_DRY_RUN.split("\n"), "deployment.apps/web created (dry run)"]);
  assert.equal(cluster.value.store.list("Deployment").length, 0, "a dry run creates nothing");
});

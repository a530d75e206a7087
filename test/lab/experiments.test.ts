// Acceptance: the scheduling experiments of the seed lab (../shared/scenarios/seed-lab.md,
// "Kubernetes Pod Scheduler"), each run from its script in examples/lab/ against the seed
// cluster, with the placements, Pending pods and messages the seed document shows.
import { test } from "node:test";
import assert from "node:assert/strict";
import { rows, runExample } from "./support.js";

const W31 = "worker31.cyh.cloud";
const W32 = "worker32.cyh.cloud";
const NAME = "[bcdfghjklmnpqrstvwxz2456789]{5}";

const failedScheduling = (lines: readonly string[]): string[] =>
  lines.filter((l) => l.includes("FailedScheduling")).map((l) => l.replace(/^ {2}Warning {2}FailedScheduling {2}\S+ +default-scheduler {2}/, ""));

test("1 nodeName: all 5 replicas on worker32", async () => {
  const run = await runExample("01-nodename.lab");
  const out = run.step("awk '{print $1,$7}'").stdout;
  assert.equal(out[0], "NAME NODE");
  assert.equal(out.length, 6);
  for (const line of out.slice(1)) assert.match(line, new RegExp(`^webapp-[a-z0-9]+-${NAME} ${W32}$`));
  assert.equal(new Set(out).size, 6, "five different pods");
});

test("2 nodeSelector disktype=ssd: all 3 on worker31 in ReplicaSet webapp-7d675f9d9c (the seed's own hash); removing the label moves nothing", async () => {
  const run = await runExample("02-nodeselector.lab");
  assert.deepEqual(run.step("disktype=ssd").stdout, [`node/${W31} labeled`]);
  const [labelled, unlabelled] = run.steps("-L disktype").map((s) => s.stdout.find((l) => l.startsWith(W31))!);
  assert.match(labelled!, /^worker31\.cyh\.cloud {3}Ready {4}<none> {10}\S+ +v1\.30\.2 {3}ssd$/);
  assert.match(unlabelled!, /v1\.30\.2 {3}$/);
  assert.deepEqual(run.step("disktype-").stdout, [`node/${W31} unlabeled`]);
  const [before, after] = run.steps("awk").map((s) => s.stdout);
  assert.equal(before!.length, 4);
  for (const line of before!.slice(1)) assert.match(line, new RegExp(`^webapp-7d675f9d9c-${NAME} ${W31}$`));
  assert.deepEqual(after, before);
});

test("3 nodeAffinity: Pending until CPU=L1/L2, then one per worker; preferred MEM=L2 and a rollout restart put both on worker32", async () => {
  const run = await runExample("03-nodeaffinity.lab");
  const pending = run.steps("kubectl get pods")[0]!.stdout;
  assert.equal(pending.length, 3);
  for (const line of pending.slice(1)) assert.match(line, /^web-\w+-\w{5} {3}0\/1 {5}Pending {3}0 {10}\d+s$/);
  const why =
    "0/3 nodes are available: 1 node(s) had untolerated taint {node-role.kubernetes.io/control-plane: }, 2 node(s) didn't match Pod's node affinity/selector. preemption: 0/3 nodes are available: 3 Preemption is not helpful for scheduling.";
  assert.deepEqual(failedScheduling(run.step("describe pod web").stdout), [why, why], "one event per Pending pod");
  const [spread, restarted] = run.steps("awk").map((s) => rows(s.stdout));
  assert.deepEqual(spread!.map((r) => `${r[1]} ${r[2]}`).sort(), [`Running ${W31}`, `Running ${W32}`]);
  assert.deepEqual(restarted!.map((r) => `${r[1]} ${r[2]}`), [`Running ${W32}`, `Running ${W32}`]);
  const hash = (name: string): string => name.split("-")[1]!;
  assert.notEqual(hash(restarted![0]![0]!), hash(spread![0]![0]!), "the restart made a new ReplicaSet");
  assert.deepEqual(run.step("rollout restart").stdout, ["deployment.apps/web restarted"]);
});

test("4 preferred weights: the node matching the weight-50 term wins over the weight-1 one", async () => {
  const run = await runExample("04-affinity-weights.lab");
  const line = run.step("kubectl get pods -o wide").stdout[1]!;
  assert.match(line, new RegExp(`^with-affinity-anti-affinity +1/1 +Running +0 +\\S+ +\\S+ +${W32} `));
});

test("5 pod affinity by zone: either worker while both are in zone v (the seed saw worker32); worker31 once worker32 leaves the zone", async () => {
  const run = await runExample("05-podaffinity.lab");
  const [first, second] = run.steps("grep Node:").map((s) => s.stdout);
  assert.deepEqual(first, ["Node:             worker32.cyh.cloud/10.1.8.32"]);
  assert.deepEqual(second, ["Node:             worker31.cyh.cloud/10.1.8.31"]);
  assert.deepEqual(run.step("--force").output.map((l) => l.text), [
    "Warning: Immediate deletion does not wait for confirmation that the running resource has been terminated. The resource may continue to run on the cluster indefinitely.",
    'pod "web" force deleted',
    'pod "pod-with-podaffinity" force deleted',
  ]);
});

test("6 anti-affinity on hostname: one store pod per worker, the third Pending (ReplicaSet store-5596cf4c84, the seed's hash)", async () => {
  const run = await runExample("06-podantiaffinity.lab");
  const pods = rows(run.step("awk").stdout);
  for (const r of pods) assert.match(r[0]!, new RegExp(`^store-5596cf4c84-${NAME}$`));
  assert.deepEqual(pods.map((r) => `${r[1]} ${r[2]}`).sort(), ["Pending <none>", `Running ${W31}`, `Running ${W32}`]);
  const why = failedScheduling(run.step("grep FailedScheduling").stdout);
  assert.equal(why.length, 1);
  assert.match(why[0]!, /^0\/3 nodes are available: 1 node\(s\) had untolerated taint \{node-role\.kubernetes\.io\/control-plane: \}, 2 node\(s\) didn't match pod anti-affinity rules\. preemption: /);
});

test("7 web-store: the first replica joins the store pod's node, the second stays Pending (ReplicaSet web-store-7b4779c958, the seed's hash)", async () => {
  const run = await runExample("07-multi-affinity.lab");
  const [scaledDown, joined, scaledUp] = run.steps("awk").map((s) => rows(s.stdout));
  assert.equal(scaledDown!.length, 1);
  const storeNode = scaledDown![0]![2]!;
  assert.deepEqual(joined!.map((r) => [r[0]!.replace(/-\w{5}$/, ""), r[1], r[2]]), [
    ["store-5596cf4c84", "Running", storeNode],
    ["web-store-7b4779c958", "Running", storeNode],
  ]);
  assert.deepEqual(scaledUp!.map((r) => `${r[0]!.replace(/-\w{5}$/, "")} ${r[1]} ${r[2]}`).sort(), [
    `store-5596cf4c84 Running ${storeNode}`,
    "web-store-7b4779c958 Pending <none>",
    `web-store-7b4779c958 Running ${storeNode}`,
  ]);
});

test("8 taints CPU=L1 / CPU=L2 and a CPU=L3 toleration: Pending with exactly the seed's message; a CPU=L1 toleration: both on worker31", async () => {
  const run = await runExample("08-taints.lab");
  assert.deepEqual(run.steps("kubectl taint").map((s) => s.stdout[0]), [`node/${W31} tainted`, `node/${W32} tainted`, `node/${W31} untainted`, `node/${W32} untainted`]);
  const why = failedScheduling(run.step("describe pod web").stdout);
  assert.deepEqual(why, [
    "0/3 nodes are available: 1 node(s) had untolerated taint {CPU: L1}, 1 node(s) had untolerated taint {CPU: L2}, 1 node(s) had untolerated taint {node-role.kubernetes.io/control-plane: }. preemption: 0/3 nodes are available: 3 Preemption is not helpful for scheduling.",
    "0/3 nodes are available: 1 node(s) had untolerated taint {CPU: L1}, 1 node(s) had untolerated taint {CPU: L2}, 1 node(s) had untolerated taint {node-role.kubernetes.io/control-plane: }. preemption: 0/3 nodes are available: 3 Preemption is not helpful for scheduling.",
  ]);
  const wide = run.step("get pods -o wide").stdout;
  assert.equal(wide.length, 3);
  for (const line of wide.slice(1)) assert.match(line, new RegExp(`^web-\\w+-${NAME} +1/1 +Running +0 +\\S+ +[\\d.]+ +${W31} +<none> +<none>$`));
});

test("9 several taints: Pending naming {CPU: L2}, {MEM: L2} and the control plane; a MEM=L2 toleration puts both on worker31; NoExecute evicts at once or after tolerationSeconds", async () => {
  const run = await runExample("09-multi-taints.lab");
  assert.deepEqual(failedScheduling(run.step("describe pod web").stdout)[0], "0/3 nodes are available: 1 node(s) had untolerated taint {CPU: L2}, 1 node(s) had untolerated taint {MEM: L2}, 1 node(s) had untolerated taint {node-role.kubernetes.io/control-plane: }. preemption: 0/3 nodes are available: 3 Preemption is not helpful for scheduling.");
  const placed = run.step("kubectl get pod -o wide").stdout.slice(1);
  assert.equal(placed.length, 2);
  for (const line of placed) assert.match(line, new RegExp(`Running .* ${W31} `));
  const names = (s: { stdout: string[] }): string[] => s.stdout.slice(1).map((l) => l.split(/\s+/)[0]!);
  const states = run.steps("kubectl get pods -o wide");
  assert.deepEqual(states.map(names), [["patient", "plain"], ["patient"], ["patient"], []]);
  assert.match(states[2]!.stdout[1]!, /^patient +1\/1 +Running /);
  assert.deepEqual(run.steps("kubectl get pods -o wide")[3]!.stderr, ["No resources found in scheduler namespace."]);
});

test("10 cordon worker31: a new Deployment lands on worker32; after uncordon, scaling to 4 puts the two new pods on worker31", async () => {
  const run = await runExample("10-cordon.lab");
  assert.deepEqual(run.step("kubectl cordon").stdout, [`node/${W31} cordoned`]);
  const cordoned = run.steps("kubectl get nodes")[1]!.stdout;
  assert.deepEqual(cordoned.slice(0, 3).map((l) => l.split(/\s+/).slice(0, 3).join(" ")), ["NAME STATUS ROLES", "master30.cyh.cloud Ready control-plane", `${W31} Ready,SchedulingDisabled <none>`]);
  assert.deepEqual(run.step("uncordon").stdout, [`node/${W31} uncordoned`]);
  const nodeOf = (line: string): string => line.split(/\s+/)[6]!;
  const [two, four] = run.steps("kubectl get pod -o wide").map((s) => s.stdout.slice(1));
  assert.deepEqual(two!.map(nodeOf), [W32, W32]);
  const oldNames = new Set(two!.map((l) => l.split(/\s+/)[0]));
  assert.deepEqual(four!.filter((l) => !oldNames.has(l.split(/\s+/)[0])).map(nodeOf), [W31, W31]);
});

test("11 drain: refused while DaemonSet pods are there, kubectl's messages with --ignore-daemonsets; a PDB (3 replicas, minAvailable 2) lets one eviction through at a time", async () => {
  const run = await runExample("11-drain.lab");
  const [refused, ignoring, pdbDrain] = run.steps("kubectl drain").map((s) => s.output.map((l) => (l.stream === "err" ? `ERR ${l.text}` : l.text)));
  assert.equal(refused!.length, 6);
  assert.deepEqual(refused!.slice(0, 5), [`node/${W31} cordoned`, `ERR error: unable to drain node "${W31}", aborting command...`, "ERR ", "ERR There are pending nodes to be drained:", `ERR  ${W31}`]);
  assert.match(refused![5]!, new RegExp(`^ERR error: cannot delete DaemonSet-managed Pods \\(use --ignore-daemonsets to ignore\\): kube-system/calico-node-${NAME}, kube-system/kube-proxy-${NAME}$`));
  assert.equal(ignoring![0], `node/${W31} already cordoned`);
  assert.match(ignoring![1]!, new RegExp(`^ERR WARNING: ignoring DaemonSet-managed Pods: kube-system/calico-node-${NAME}, kube-system/kube-proxy-${NAME}$`));
  assert.match(ignoring![2]!, new RegExp(`^evicting pod kube-system/kuboard-\\w+-${NAME}$`), "the last pod's goroutine runs first, as in the seed");
  assert.equal(ignoring!.filter((l) => l.startsWith("evicting pod cyh/web-")).length, 2);
  assert.equal(ignoring!.filter((l) => / evicted$/.test(l)).length, 3);
  assert.equal(ignoring!.at(-1), `node/${W31} drained`);
  assert.match(run.step("kubectl get node").stdout.find((l) => l.startsWith(W31))!, /Ready,SchedulingDisabled/);
  const retries = pdbDrain!.filter((l) => l.includes("(will retry after 5s): Cannot evict pod as it would violate the pod's disruption budget."));
  assert.ok(retries.length >= 2, "the budget refused evictions while one pod was away");
  const evictions = pdbDrain!.filter((l) => /^pod\/pdb-demo-.* evicted$/.test(l));
  assert.equal(evictions.length, 3);
  const finalPods = run.steps("kubectl get pod -o wide").at(-1)!.stdout.slice(1);
  assert.equal(finalPods.length, 3);
  for (const l of finalPods) assert.match(l, new RegExp(`^pdb-demo-\\w+-${NAME} +1/1 +Running .* ${W32} `));
});

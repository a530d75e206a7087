// `cnisim schedule`, run as the built executable: the JSON shape of issue 6, Node objects without a
// Cluster file, pods already bound by spec.nodeName, --explain, --config errors and exit codes.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import { repoPath } from "./helpers.js";

const MAIN = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../src/cli/main.js");
const DIR = mkdtempSync(path.join(tmpdir(), "cnisim-schedule-"));
const CLUSTER = repoPath("examples/seed-lab/cluster.yaml");

function file(name: string, text: string): string {
  const p = path.join(DIR, name);
  writeFileSync(p, text);
  return p;
}

function cnisim(...args: string[]): { status: number | null; stdout: string; stderr: string } {
  const run = spawnSync(process.execPath, [MAIN, "schedule", ...args], { encoding: "utf8" });
  return { status: run.status, stdout: run.stdout, stderr: run.stderr };
}

const EXP8 = file(
  "exp8.yaml",
  `apiVersion: v1
kind: Namespace
metadata: {name: scheduler}
---
apiVersion: v1
kind: Node
metadata: {name: worker31.cyh.cloud}
spec: {taints: [{key: CPU, value: L1, effect: NoSchedule}]}
---
apiVersion: v1
kind: Node
metadata: {name: worker32.cyh.cloud}
spec: {taints: [{key: CPU, value: L2, effect: NoSchedule}]}
---
apiVersion: v1
kind: Pod
metadata: {name: web-l3, namespace: scheduler}
spec:
  tolerations: [{key: CPU, operator: Equal, value: L3, effect: NoSchedule}]
  containers: [{name: nginx, image: nginx}]
`,
);

test("-o json: the seed lab's experiment 8 in exactly the shape of issue 6", () => {
  const run = cnisim("-f", CLUSTER, EXP8, "-o", "json");
  assert.equal(run.status, 0, run.stderr);
  assert.equal(run.stderr, "");
  const taint = (t: string): { ok: false; reasons: string[] } => ({ ok: false, reasons: [`node(s) had untolerated taint {${t}}`] });
  assert.deepEqual(JSON.parse(run.stdout), {
    pods: [
      {
        pod: "scheduler/web-l3",
        node: null,
        message:
          "0/3 nodes are available: 1 node(s) had untolerated taint {CPU: L1}, 1 node(s) had untolerated taint {CPU: L2}, 1 node(s) had untolerated taint {node-role.kubernetes.io/control-plane: }. preemption: 0/3 nodes are available: 3 Preemption is not helpful for scheduling.",
        filter: {
          "master30.cyh.cloud": taint("node-role.kubernetes.io/control-plane: "),
          "worker31.cyh.cloud": taint("CPU: L1"),
          "worker32.cyh.cloud": taint("CPU: L2"),
        },
        scores: {},
      },
    ],
  });
});

test("Node objects without a Cluster; a pod with spec.nodeName counts as bound; scores are normalized per plugin and weighted", () => {
  const f = file(
    "nodes.yaml",
    `apiVersion: v1
kind: Node
metadata: {name: n1, labels: {kubernetes.io/hostname: n1}}
status: {allocatable: {cpu: "2", memory: 4Gi, pods: "110"}}
---
apiVersion: v1
kind: Node
metadata: {name: n2, labels: {kubernetes.io/hostname: n2}}
status: {allocatable: {cpu: "2", memory: 4Gi, pods: "110"}}
---
apiVersion: v1
kind: Pod
metadata: {name: busy}
spec: {nodeName: n1, containers: [{name: c, image: i, resources: {requests: {cpu: "1", memory: 1Gi}}}]}
---
apiVersion: v1
kind: Pod
metadata: {name: new}
spec: {containers: [{name: c, image: i, resources: {requests: {cpu: 500m, memory: 512Mi}}}]}
`,
  );
  const run = cnisim("-f", f, "-o", "json");
  assert.equal(run.status, 0, run.stderr);
  const { pods } = JSON.parse(run.stdout) as { pods: { pod: string; node: string; scores: Record<string, { total: number; plugins: Record<string, number> }> }[] };
  assert.deepEqual(pods.map((p) => [p.pod, p.node]), [["default/new", "n2"]]);
  // LeastAllocated: n1 cpu (2000-1500)/2000 = 25, memory (4Gi-1.5Gi)/4Gi = 62 -> 43; n2 75, 87 -> 81.
  assert.equal(pods[0]!.scores["n1"]!.plugins["NodeResourcesFit"], 43);
  assert.equal(pods[0]!.scores["n2"]!.plugins["NodeResourcesFit"], 81);
  // Balanced: n1 |0.75 - 0.375| / 2 -> 81; n2 |0.25 - 0.125| / 2 -> 93. TaintToleration 100 (x3).
  assert.deepEqual(pods[0]!.scores["n2"], { total: 300 + 81 + 93, plugins: { TaintToleration: 100, NodeResourcesFit: 81, NodeResourcesBalancedAllocation: 93 } });
  const text = cnisim("-f", f, "--explain");
  assert.equal(text.status, 0);
  assert.match(text.stdout, /^default\/new: -> n2$/m);
  assert.match(text.stdout, /^ {2}n2 +ok +474 +100 +81 +93$/m);
});

test("--config: a KubeSchedulerConfiguration error names file:line:col and exits 1; bad -o exits 2", () => {
  const cfg = file("bad-config.yaml", "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\npercentageOfNodesToScore: 120\n");
  const run = cnisim("-f", CLUSTER, "--config", cfg);
  assert.equal(run.status, 1);
  assert.equal(run.stderr.trim(), `cnisim: ${cfg}:3:27: KubeSchedulerConfiguration: percentageOfNodesToScore: Invalid value: 120: not in valid range [0, 100]`);
  const bad = cnisim("-f", CLUSTER, "-o", "yaml");
  assert.equal(bad.status, 2);
  assert.match(bad.stderr, /-o yaml: must be table or json/);
});

test("--seed outside 0..4294967295 (the Cluster file's spec.seed range) exits 2 naming the flag", () => {
  for (const seed of ["-1", "4294967296", "1.5", "x"]) {
    const r = cnisim("-f", CLUSTER, "--seed", seed);
    assert.equal(r.status, 2, seed);
    assert.equal(r.stderr, `cnisim: --seed ${seed}: must be an integer between 0 and 4294967295\n`);
  }
  assert.equal(cnisim("-f", CLUSTER, "--seed", "4294967295").status, 0);
});

// The real kubectl, unmodified, against `cnisim serve`'s API: get, describe and top print what a
// user of the seed lab expects, and kubectl's own top printer agrees with cnisim's to the byte.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { resolve } from "node:path";
import { formatTopTable, topHeaderStyleFor, topNodeRows, topPodRows } from "../../src/metrics/index.js";
import { kubectl, kubectlMissing, SEED_FILES, serveFiles, type Served } from "./serve-fixture.js";

const missing = kubectlMissing();
const skip = missing ?? false;
const POLICY = resolve(process.cwd(), "examples/seed-lab/policies/01-ingress-from-pods-run-test.yaml");

let served: Served;
let clientVersion = "";

before(async () => {
  if (missing !== null) return;
  served = await serveFiles([...SEED_FILES, POLICY]);
  const v = await kubectl(served.url, "version", "--client", "-o", "json");
  clientVersion = (JSON.parse(v.stdout) as { clientVersion: { gitVersion: string } }).clientVersion.gitVersion;
});

after(async () => {
  if (missing === null) await served.close();
});

const lines = (text: string): string[] => text.trimEnd().split("\n");
const words = (line: string | undefined): string[] => (line ?? "").trim().split(/\s+/);

test("kubectl get nodes: the three lab nodes, Ready, the control plane's role", { skip }, async () => {
  const r = await kubectl(served.url, "get", "nodes");
  assert.equal(r.code, 0, r.stderr);
  const out = lines(r.stdout);
  assert.deepEqual(words(out[0]), ["NAME", "STATUS", "ROLES", "AGE", "VERSION"]);
  assert.deepEqual(
    out.slice(1).map((l) => { const w = words(l); return [w[0], w[1], w[2], w[4]]; }),
    [
      ["master30.cyh.cloud", "Ready", "control-plane", "v1.30.2"],
      ["worker31.cyh.cloud", "Ready", "<none>", "v1.30.2"],
      ["worker32.cyh.cloud", "Ready", "<none>", "v1.30.2"],
    ],
  );
});

test("kubectl get pods -o wide: pod IPs and nodes; the unschedulable pod Pending without a node", { skip }, async () => {
  const r = await kubectl(served.url, "get", "pods", "-n", "web", "-o", "wide");
  assert.equal(r.code, 0, r.stderr);
  const out = lines(r.stdout);
  assert.deepEqual(words(out[0]), ["NAME", "READY", "STATUS", "RESTARTS", "AGE", "IP", "NODE", "NOMINATED", "NODE", "READINESS", "GATES"]);
  const rows = new Map(out.slice(1).map((l) => [words(l)[0], words(l)]));
  assert.deepEqual([...rows.keys()], ["test", "waiting", "web1", "web2"]);
  const web1 = rows.get("web1")!;
  assert.equal(web1[2], "Running");
  assert.match(web1[5]!, /^10\.224\.\d+\.\d+$/, "a pod IP from the Calico pool");
  assert.equal(web1[6], "worker32.cyh.cloud");
  assert.deepEqual(rows.get("waiting")!.slice(1, 3), ["0/1", "Pending"]);
  assert.equal(rows.get("waiting")![6], "<none>");
});

test("kubectl get pods -A with label and field selectors", { skip }, async () => {
  const byLabel = await kubectl(served.url, "get", "pods", "-A", "-l", "run=web1", "-o", "name");
  assert.equal(byLabel.stdout, "pod/web1\n", byLabel.stderr);
  const byField = await kubectl(served.url, "get", "pods", "-A", "--field-selector", "spec.nodeName=worker32.cyh.cloud,status.phase=Running", "-o", "name");
  const names = lines(byField.stdout);
  assert.ok(names.includes("pod/web1") && names.includes("pod/calico-node-z9dvd"), byField.stdout);
  assert.ok(!names.includes("pod/web2"), "web2 runs on worker31");
  const bad = await kubectl(served.url, "get", "pods", "--field-selector", "spec.color=blue");
  assert.notEqual(bad.code, 0);
  assert.match(bad.stderr, /field label not supported: spec\.color/);
});

test("kubectl get netpol: the lab's policy with its pod selector", { skip }, async () => {
  const r = await kubectl(served.url, "get", "netpol", "-A");
  assert.equal(r.code, 0, r.stderr);
  const out = lines(r.stdout);
  assert.deepEqual(words(out[0]), ["NAMESPACE", "NAME", "POD-SELECTOR", "AGE"]);
  assert.deepEqual(words(out[1]).slice(0, 3), ["default", "my-network-policy", "run=web1"]);
});

test("kubectl describe pod shows the scheduler's FailedScheduling event", { skip }, async () => {
  const r = await kubectl(served.url, "describe", "pod", "waiting", "-n", "web");
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /^Status:\s+Pending$/m);
  assert.match(r.stdout, /^Node-Selectors:\s+disktype=nvme$/m);
  const events = r.stdout.slice(r.stdout.indexOf("Events:"));
  assert.match(events, /Warning\s+FailedScheduling\s+\S+\s+default-scheduler\s+0\/3 nodes are available: 1 node\(s\) had untolerated taint \{node-role\.kubernetes\.io\/control-plane: \}, 2 node\(s\) didn't match Pod's node affinity\/selector\./);
});

test("kubectl top node: the lab's nodes with system pods, printed exactly as cnisim top prints them", { skip }, async () => {
  const r = await kubectl(served.url, "top", "node");
  assert.equal(r.code, 0, r.stderr);
  const nodes = served.backend.metered.nodes().map((n) => ({ name: n.name, ...n.allocatable }));
  const ours = formatTopTable(topNodeRows(served.backend.metrics.nodes(), nodes, topHeaderStyleFor(clientVersion)));
  assert.equal(r.stdout, ours.join("\n") + "\n");
  // master30: 20m system + calico-node 27 + etcd 16 + apiserver 46 + controller-manager 11 + proxy 1 + scheduler 4.
  assert.deepEqual(words(lines(r.stdout)[1]), ["master30.cyh.cloud", "125m", "6%", "1324Mi", "35%"]);
});

test("kubectl top pod -A: every running pod, the seed lab's kube-system usage, cnisim's printing", { skip }, async () => {
  const r = await kubectl(served.url, "top", "pod", "-A");
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.stdout, formatTopTable(topPodRows(served.backend.metrics.pods(), true)).join("\n") + "\n");
  const rows = new Map(lines(r.stdout).map((l) => [words(l)[1], words(l).slice(2)]));
  assert.deepEqual(rows.get("kube-apiserver-master.cyh.cloud"), ["46m", "355Mi"]);
  assert.deepEqual(rows.get("calico-node-crfr7"), ["27m", "57Mi"]);
  assert.deepEqual(rows.get("web1"), ["1m", "1Mi"], "a pod without declared usage: the idle baseline");
  assert.ok(!rows.has("waiting"), "a pending pod has no metrics");
});

test("kubectl top before metrics-server has two samples: kubectl's error, which cnisim top also prints", { skip }, async () => {
  const fresh = await serveFiles(SEED_FILES, 0);
  try {
    const r = await kubectl(fresh.url, "top", "node");
    assert.notEqual(r.code, 0);
    assert.equal(r.stderr.trim(), "error: metrics not available yet");
    // kubectl then looks at the pods: one older than two minutes (by the real clock) should have metrics.
    const p = await kubectl(fresh.url, "top", "pod", "-n", "web");
    assert.notEqual(p.code, 0);
    assert.match(p.stderr, /^error: Metrics not available for pod web\/test, age: \d+h\d+m[\d.]+s\n$/);
    const none = await kubectl(fresh.url, "top", "pod", "-n", "nothing");
    assert.deepEqual([none.code, none.stdout, none.stderr], [0, "", "No resources found in nothing namespace.\n"]);
  } finally {
    await fresh.close();
  }
});

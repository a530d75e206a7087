// kubectl commands beyond the experiments: run / expose / get svc, label namespaces and pods,
// taint errors, -A and -o yaml, NetworkPolicy, Deployment, ReplicaSet and DaemonSet tables.
import { test } from "node:test";
import assert from "node:assert/strict";
import { runScript } from "./support.js";

test("kubectl run and expose --type=NodePort: the pod (run=NAME), the service and its table row", async () => {
  const run = await runScript(
    "kubectl create ns web\nkubectl run web1 -n web --image=hub.laoma.cloud/library/nginx --image-pull-policy=IfNotPresent\n" +
      "kubectl expose pod web1 -n web --port=80 --target-port=80 --type=NodePort\nkubectl get svc -n web\nkubectl get svc -n web -o wide --no-headers\nkubectl get pods -n web --show-labels\n",
  );
  assert.deepEqual(run.result.errors, []);
  assert.deepEqual(run.step("kubectl run").stdout, ["pod/web1 created"]);
  assert.deepEqual(run.step("expose").stdout, ["service/web1 exposed"]);
  const svc = run.cluster.store.get("Service", "web", "web1")!;
  const nodePort = svc.spec!.ports![0]!.nodePort!;
  assert.ok(nodePort >= 30000 && nodePort <= 32767);
  assert.match(svc.spec!.clusterIP!, /^10\.(9[6-9]|10[0-9]|11[01])\./, "inside the service CIDR 10.96.0.0/12");
  assert.deepEqual(svc.spec!.selector, { run: "web1" });
  const table = run.steps("get svc -n web")[0]!.stdout;
  assert.match(table[0]!, /^NAME {3}TYPE {7}CLUSTER-IP +EXTERNAL-IP {3}PORT\(S\) {8}AGE$/);
  assert.match(table[1]!, new RegExp(`^web1   NodePort   ${svc.spec!.clusterIP!.replace(/\./g, "\\.")} +<none> +80:${nodePort}/TCP   10s$`));
  assert.match(run.step("-o wide --no-headers").stdout[0]!, /run=web1$/);
  assert.match(run.step("--show-labels").stdout[1]!, /run=web1$/);
});

test("labels on namespaces and pods, removal, and kubectl's verdicts", async () => {
  const run = await runScript(
    "kubectl create ns cyh\nkubectl label ns cyh project=myproject\nkubectl label ns cyh project=myproject\nkubectl label ns cyh project=other --overwrite\n" +
      "kubectl label ns cyh project-\nkubectl label ns cyh project-\nkubectl get ns cyh --show-labels --no-headers\n",
  );
  assert.deepEqual(
    run.steps("kubectl label").map((s) => s.stdout),
    [["namespace/cyh labeled"], ["namespace/cyh not labeled"], ["namespace/cyh labeled"], ["namespace/cyh unlabeled"], ['label "project" not found.', "namespace/cyh not labeled"]],
  );
  assert.match(run.step("get ns cyh").stdout[0]!, /kubernetes\.io\/metadata\.name=cyh$/);
});

test("kubectl taint errors: the no-overwrite check and a taint that is not there", async () => {
  const run = await runScript(
    "kubectl taint nodes worker31.cyh.cloud CPU=L1:NoSchedule\nkubectl taint nodes worker31.cyh.cloud CPU=L2:NoSchedule\nkubectl taint nodes worker31.cyh.cloud CPU=L2:NoSchedule --overwrite\n" +
      "kubectl taint nodes worker31.cyh.cloud MEM:NoSchedule-\nkubectl taint nodes worker31.cyh.cloud CPU=L1:Sometimes\nkubectl taint nodes worker31.cyh.cloud CPU-\n",
  );
  assert.deepEqual(
    run.result.steps.map((s) => [...s.stdout, ...s.stderr]),
    [
      ["node/worker31.cyh.cloud tainted"],
      ["error: node worker31.cyh.cloud already has CPU taint(s) with same effect(s) and --overwrite is false"],
      ["node/worker31.cyh.cloud modified"],
      ['error: taint "MEM:NoSchedule" not found'],
      ["error: invalid taint effect: Sometimes, unsupported taint effect"],
      ["node/worker31.cyh.cloud untainted"],
    ],
  );
});

test("get -A adds NAMESPACE; -o yaml prints the stored object with sorted keys", async () => {
  const run = await runScript("kubectl create deployment web --image=nginx --replicas=2\nkubectl get deploy -A\nkubectl get rs -o wide\nkubectl get deploy web -o yaml\n");
  const all = run.step("get deploy -A").stdout;
  assert.equal(all[0], "NAMESPACE   NAME   READY   UP-TO-DATE   AVAILABLE   AGE");
  assert.match(all[1]!, /^default {5}web {4}2\/2 {5}2 {12}2 {11}10s$/);
  assert.match(run.step("get rs -o wide").stdout[1]!, /^web-\w+ +2 +2 +2 +20s +nginx +nginx +app=web,pod-template-hash=\w+$/);
  const yaml = run.step("-o yaml").stdout;
  assert.equal(yaml[0], "apiVersion: apps/v1");
  assert.ok(yaml.includes("kind: Deployment"));
  assert.ok(yaml.includes("    deployment.kubernetes.io/revision: \"1\""));
});

test("NetworkPolicy and DaemonSet tables", async () => {
  const run = await runScript(
    "kubectl apply -f ../seed-lab/policies/01-ingress-from-pods-run-test.yaml\nkubectl get netpol\n" +
      "kubectl apply -f - <<EOF\napiVersion: apps/v1\nkind: DaemonSet\nmetadata: {name: agent}\nspec:\n  selector: {matchLabels: {app: agent}}\n  template:\n    metadata: {labels: {app: agent}}\n    spec:\n      nodeSelector: {kubernetes.io/os: linux}\n      containers: [{name: a, image: agent}]\nEOF\nkubectl get ds\n",
  );
  assert.deepEqual(run.result.errors, []);
  const np = run.step("get netpol").stdout;
  assert.match(np[1]!, /^my-network-policy +run=web1 +10s$/);
  assert.deepEqual(run.step("get ds").stdout, [
    "NAME    DESIRED   CURRENT   READY   UP-TO-DATE   AVAILABLE   NODE SELECTOR            AGE",
    "agent   2         2         2       2            2           kubernetes.io/os=linux   10s",
  ]);
});

test("kubectl apply again: unchanged; a changed manifest: configured, keeping what controllers and the server added", async () => {
  const manifest = "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web}\nspec:\n  replicas: REPLICAS\n  selector: {matchLabels: {app: web}}\n  template:\n    metadata: {labels: {app: web}}\n    spec: {containers: [{name: c, image: nginx}]}\n";
  const svc = "apiVersion: v1\nkind: Service\nmetadata: {name: web}\nspec:\n  type: NodePort\n  selector: {app: web}\n  ports: [{port: 80}]\n";
  const apply = (text: string): string => `kubectl apply -f - <<EOF\n${text}EOF\n`;
  const run = await runScript(apply(manifest.replace("REPLICAS", "2")) + apply(manifest.replace("REPLICAS", "2")) + apply(manifest.replace("REPLICAS", "3")) + apply(svc) + apply(svc));
  assert.deepEqual(run.result.steps.map((s) => s.stdout), [["deployment.apps/web created"], ["deployment.apps/web unchanged"], ["deployment.apps/web configured"], ["service/web created"], ["service/web unchanged"]]);
  const d = run.cluster.store.get("Deployment", "default", "web")!;
  assert.equal(d.metadata.annotations?.["deployment.kubernetes.io/revision"], "1", "the controller's annotation stays");
  assert.equal(d.status?.replicas, 3);
});

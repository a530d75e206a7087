// The lab runner: script errors name their line and stop the run (unless keep-going); kubectl's
// own errors are printed and the script goes on; files, here-documents, pipes, time.
import { test } from "node:test";
import assert from "node:assert/strict";
import { NOT_AVAILABLE } from "../../src/lab/index.js";
import { runScript } from "./support.js";

test("an unknown command stops the script at its line", async () => {
  const run = await runScript("kubectl get ns\nkubectl frobnicate pods\nkubectl get nodes\n");
  assert.equal(run.result.ok, false);
  assert.deepEqual(run.result.errors, ['test.lab:2: kubectl frobnicate pods: unknown command "frobnicate" for "kubectl"']);
  assert.deepEqual(run.result.steps.map((s) => s.line), [1, 2], "line 3 did not run");
  assert.ok(run.transcript.includes('ERR cnisim lab: test.lab:2: kubectl frobnicate pods: unknown command "frobnicate" for "kubectl"'));
});

test("an unknown flag stops the script; --keep-going runs the rest", async () => {
  const script = "kubectl get pods --bogus\nls -l\nkubectl get ns default\n";
  const stopped = await runScript(script);
  assert.deepEqual(stopped.result.errors, ["test.lab:1: kubectl get pods --bogus: unknown flag: --bogus"]);
  const going = await runScript(script, { keepGoing: true });
  assert.deepEqual(going.result.errors, ["test.lab:1: kubectl get pods --bogus: unknown flag: --bogus", 'test.lab:2: ls -l: unknown command "ls" (a lab runs kubectl, kubens, sleep, cat, echo)']);
  assert.deepEqual(going.step("get ns default").stdout.map((l) => l.split(/\s+/)[0]), ["NAME", "default"]);
});

test("kubectl's own errors are printed as kubectl prints them and do not stop the script", async () => {
  const run = await runScript("kubectl get pod nope\nkubectl delete deployment nope\nkubectl label node worker31.cyh.cloud a=1\nkubectl label node worker31.cyh.cloud a=2\nkubectl get ns kube-system --no-headers\n");
  assert.equal(run.result.ok, true);
  assert.deepEqual(run.step("get pod nope").stderr, ['Error from server (NotFound): pods "nope" not found']);
  assert.deepEqual(run.step("delete deployment nope").stderr, ['Error from server (NotFound): deployments.apps "nope" not found']);
  assert.deepEqual(run.step("a=2").stderr, ["error: 'a' already has a value (1), and --overwrite is false"]);
  assert.equal(run.step("a=2").exit, 1);
  assert.equal(run.step("kube-system").stdout.length, 1);
});

test("files written by the script, manifests from stdin, pipes and redirections", async () => {
  const script = [
    "cat > ns.yaml <<EOF",
    "apiVersion: v1",
    "kind: Namespace",
    "metadata:",
    "  name: lab",
    "EOF",
    "kubectl apply -f ns.yaml",
    "kubectl apply -f ns.yaml",
    "kubectl apply -n lab -f - <<EOF",
    "apiVersion: v1",
    "kind: Pod",
    "metadata: {name: p, labels: {run: p}}",
    "spec: {containers: [{name: p, image: nginx}]}",
    "EOF",
    "kubectl get pods -n lab --no-headers | awk '{print $1,$3}' > pods.txt",
    "cat pods.txt",
    "kubectl get ns | grep -c lab",
  ].join("\n");
  const run = await runScript(script);
  assert.deepEqual(run.result.errors, []);
  assert.deepEqual(run.steps("apply -f ns.yaml").map((s) => s.stdout), [["namespace/lab created"], ["namespace/lab unchanged"]]);
  assert.deepEqual(run.step("apply -n lab").stdout, ["pod/p created"]);
  assert.deepEqual(run.step("cat pods.txt").stdout, ["p Running"]);
  assert.deepEqual(run.step("grep -c").stdout, ["1"]);
});

test("a manifest that does not load is a script error naming file, line and field", async () => {
  const run = await runScript("kubectl apply -f - <<EOF\napiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec: {containers: [{name: p, image: nginx, ports: [{containerPort: 70000}]}]}\nEOF\n");
  assert.equal(run.result.ok, false);
  assert.match(run.result.errors[0]!, /^test\.lab:1: kubectl apply -f -: error validating "-":\nSTDIN:4:\d+: Pod default\/p: spec\.containers\[0\]\.ports\[0\]\.containerPort/);
});

test("simulated time: 10 s between commands, sleep adds its own (10 s, then 10 + 90 + 10 + 10 = 2m)", async () => {
  const run = await runScript("kubectl run p --image=nginx\nkubectl get pod p --no-headers\nsleep 90\nkubectl get pod p --no-headers\n");
  const age = (text: string): string => run.steps(text).map((s) => s.stdout[0]!.split(/\s+/)[4]!).join(",");
  assert.equal(age("get pod p"), "10s,2m");
});

test("one line, several commands: no time passes between them", async () => {
  const run = await runScript("kubectl run p --image=nginx; kubectl get pod p --no-headers && echo yes || echo no\n");
  assert.deepEqual(run.result.steps[0]!.stdout, ["pod/p created", "p   0/1   Pending   0   0s", "yes"]);
});

test("kubectl exec and top need layers cnisim does not have yet: a clear message, the script goes on", async () => {
  const run = await runScript("kubectl run p --image=nginx\nkubectl exec p -- wget -qO- http://web1\nkubectl top node\nkubectl get pod p --no-headers\n");
  assert.equal(run.result.ok, true);
  assert.deepEqual(run.step("exec").stderr, [NOT_AVAILABLE.exec]);
  assert.deepEqual(run.step("top").stderr, [NOT_AVAILABLE.top]);
  const extended = await runScript("kubectl run p --image=nginx\nkubectl exec p -- echo hi\n", {
    extensions: { exec: (r) => ({ stdout: [`${r.pod.metadata.name}: ${r.argv.join(" ")}`], stderr: [], exitCode: 0 }) },
  });
  assert.deepEqual(extended.step("exec").stdout, ["p: echo hi"]);
});

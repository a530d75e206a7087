// The lab's `kubectl top` through the metrics extension: the seed lab's metrics section as a script
// (top node, top pods -n kube-system), named objects, and kubectl's NotFound for a pod without metrics.
import { test } from "node:test";
import assert from "node:assert/strict";
import { meteredLab, openEmulation } from "../../src/api/index.js";
import { LabFiles, runLab } from "../../src/lab/index.js";
import { err } from "../../src/util/result.js";
import { SEED_FILES } from "./serve-fixture.js";

test("the seed lab's metrics section runs as a lab script with cnisim's metrics", async () => {
  const opened = await openEmulation(SEED_FILES);
  assert.ok(opened.ok);
  const { lab, model } = opened.value;
  const { extensions } = meteredLab(lab, model);
  const out: string[] = [];
  const errors: string[] = [];
  const script = ["kubectl top node", "kubectl top pods -n kube-system", "kubectl top node worker31.cyh.cloud", "kubectl top pod waiting -n web"].join("\n");
  const result = runLab(lab, script, { files: new LabFiles(() => err("no files")), echo: false, keepGoing: true, extensions }, { out: (l) => out.push(l), err: (l) => errors.push(l) });
  assert.deepEqual(result.errors, []);
  const words = out.map((l) => l.trim().split(/\s+/));
  assert.deepEqual(words[0], ["NAME", "CPU(cores)", "CPU%", "MEMORY(bytes)", "MEMORY%"]);
  assert.deepEqual(words[1], ["master30.cyh.cloud", "125m", "6%", "1324Mi", "35%"]);
  assert.deepEqual(words[4], ["NAME", "CPU(cores)", "MEMORY(bytes)"]);
  assert.deepEqual(words.slice(5, 19).map((w) => w[0]), [
    "calico-kube-controllers-6dfcd885bf-8rhg2", "calico-node-crfr7", "calico-node-sbmjt", "calico-node-z9dvd", "coredns-6d56c8448f-nhjpg",
    "coredns-6d56c8448f-w2f48", "etcd-master.cyh.cloud", "kube-apiserver-master.cyh.cloud", "kube-controller-manager-master.cyh.cloud",
    "kube-proxy-hx566", "kube-proxy-t2r4x", "kube-proxy-x6k8h", "kube-scheduler-master.cyh.cloud", "metrics-server-6556f8cb6c-78mhq",
  ]);
  assert.deepEqual(words.slice(19), [["NAME", "CPU(cores)", "CPU%", "MEMORY(bytes)", "MEMORY%"], ["worker31.cyh.cloud", "49m", "2%", "868Mi", "23%"]]);
  assert.deepEqual(errors, ['Error from server (NotFound): pods.metrics.k8s.io "waiting" not found']);
});

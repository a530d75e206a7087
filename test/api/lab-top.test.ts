// The lab's `kubectl top` through the metrics extension: the seed lab's metrics section as a script
// (top node, top pods -n kube-system), named objects, and kubectl's NotFound for a pod without metrics;
// and on the network runtime, with traffic flowing while the script runs.
import { test } from "node:test";
import assert from "node:assert/strict";
import { meteredEmulation, meteredLab, openEmulation, parseTrafficSpec, TrafficDriver } from "../../src/api/index.js";
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

test("the lab's kubectl top on the network: traffic the lab does not know about shows on the nodes it crosses", async () => {
  const opened = await openEmulation(SEED_FILES);
  assert.ok(opened.ok);
  const em = opened.value;
  assert.ok(em.waitForPods());
  const spec = parseTrafficSpec("udp web/test->web/web2:9000 rate=2000/s size=1000");
  assert.ok(spec.ok);
  const traffic = TrafficDriver.start(em.network!, [spec.value], em.lab.wall.epochMs);
  assert.ok(traffic.ok);
  const { extensions } = meteredEmulation(em, [traffic.value]);
  const out: string[] = [];
  const start = em.network!.sim.now;
  // `sleep` advances the lab alone: `kubectl top` first brings the network (and its traffic) up to date.
  const script = ["sleep 20", "kubectl top node", "kubectl top pods -n kube-system", "kubectl top pod -n web"].join("\n");
  const result = runLab(em.lab, script, { files: new LabFiles(() => err("no files")), echo: false, keepGoing: true, extensions }, { out: (l) => out.push(l), err: () => undefined });
  traffic.value.stop();
  em.close();
  assert.deepEqual(result.errors, []);
  assert.ok(em.network!.sim.now >= start + 20e9, "the network caught up with the lab's sleep");
  const rows = new Map(out.map((l) => l.trim().split(/\s+/)).map((w) => [w[0]!, w.slice(1)]));
  assert.deepEqual(rows.get("master30.cyh.cloud")?.slice(0, 1), ["125m"], "no traffic on the control plane: the seed's figure");
  for (const node of ["worker31.cyh.cloud", "worker32.cyh.cloud"]) assert.ok(Number(rows.get(node)![0]!.replace("m", "")) > 49, `above the idle 49m: ${out.join("\n")}`);
  assert.deepEqual(rows.get("etcd-master.cyh.cloud"), ["16m", "54Mi"], "kube-system pods keep their declared usage");
  assert.ok(Number(rows.get("web2")![0]!.replace("m", "")) > 10, out.join("\n"));
  assert.ok(out.some((l) => /^NAME\s+CPU\(cores\)\s+MEMORY\(bytes\)/.test(l)));
});

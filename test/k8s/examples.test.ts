// The seed lab's YAML: every example under examples/seed-lab loads with no errors and no
// warnings, the policy files are the seed document's text, and every complete manifest of
// the seed document loads as written.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import type { Service } from "kubernetes-types/core/v1.js";
import { loadFiles, loadText } from "../../src/k8s/load.js";
import { fmt, repoPath, sharedPath } from "./helpers.js";

const LAB = repoPath("examples/seed-lab");
const SEED = sharedPath("seed/k8s-network-scheduler-metrics-lab.zh.txt");
const POLICIES = readdirSync(join(LAB, "policies")).filter((f) => f.endsWith(".yaml")).sort();

test("cluster.yaml and workloads.yaml load with zero errors and zero warnings", async () => {
  const r = await loadFiles([join(LAB, "cluster.yaml"), join(LAB, "workloads.yaml")]);
  assert.deepEqual(fmt(r.errors), []);
  assert.deepEqual(fmt(r.warnings), []);
  assert.equal(r.cluster?.object.metadata.name, "seed-lab");
  assert.deepEqual(
    r.objects.map((o) => `${o.object.kind} ${o.object.metadata.namespace ?? ""}/${o.object.metadata.name}`),
    ["Namespace /web", "Namespace /cyh", "Pod web/web1", "Pod web/web2", "Pod web/test", "Pod cyh/test", "Service web/web1", "Service web/web2"],
  );
  const nodePorts = r.objects
    .filter((o) => o.object.kind === "Service")
    .map((o) => (o.object as Service).spec!.ports!.map((p) => p.nodePort));
  assert.deepEqual(nodePorts, [[30790], [32686]]);
});

test("each policy loads with the cluster and workloads, zero errors and zero warnings (namespace web, as after kubens web)", async () => {
  assert.equal(POLICIES.length, 13);
  for (const file of POLICIES) {
    const r = await loadFiles([join(LAB, "cluster.yaml"), join(LAB, "workloads.yaml"), join(LAB, "policies", file)], { namespace: "web" });
    assert.deepEqual(fmt(r.errors), [], file);
    assert.deepEqual(fmt(r.warnings), [], file);
    const np = r.objects.filter((o) => o.object.kind === "NetworkPolicy");
    assert.equal(np.length, 1, file);
    assert.equal(np[0]!.object.metadata.namespace, "web", file);
  }
});

test("the policy files are the seed document's text, line for line", () => {
  const seed = readFileSync(SEED, "utf8").split("\n");
  for (const file of POLICIES) {
    const text = readFileSync(join(LAB, "policies", file), "utf8");
    const m = /lines (\d+)-(\d+) of/.exec(text);
    assert.ok(m, `${file} names its seed lines`);
    const body = text.split("\n").filter((l) => !l.startsWith("# Seed lab") && !l.startsWith("# Transcribed")).join("\n").trimEnd();
    assert.equal(body, seed.slice(Number(m[1]) - 1, Number(m[2])).join("\n"), file);
  }
});

test("the whole examples folder loads (policies/ is a subfolder and is not included)", async () => {
  const r = await loadFiles([LAB]);
  assert.deepEqual(fmt(r.errors), []);
  assert.equal(r.objects.length, 8);
});

/** Blocks of the seed that start at a line "apiVersion:" (or a "---" before it) and end at a blank line. */
function seedManifests(): { line: number; text: string }[] {
  const lines = readFileSync(SEED, "utf8").split("\n");
  const out: { line: number; text: string }[] = [];
  for (let i = 0; i < lines.length; i++) {
    if (!lines[i]!.startsWith("apiVersion:")) continue;
    const start = i > 0 && lines[i - 1] === "---" ? i - 1 : i;
    let end = i;
    while (end < lines.length && lines[end]!.trim() !== "") end++;
    out.push({ line: start + 1, text: lines.slice(start, end).join("\n") });
    i = end;
  }
  return out;
}

test("every complete manifest of the seed document loads as written; the one fragment is a YAML error", () => {
  const namespaces = readFileSync(join(LAB, "workloads.yaml"), "utf8").split("\n---\n").slice(0, 2).join("\n---\n");
  const prefix = namespaces + "\n---\n";
  const prefixLines = prefix.split("\n").length - 1;
  const blocks = seedManifests();
  assert.equal(blocks.length, 27);
  const kinds: string[] = [];
  for (const b of blocks) {
    const r = loadText(prefix + b.text, `seed:${b.line}`);
    if (b.line === 623) {
      // "限定项目所有pod": the seed elides the rest of the rule with "......" (seed line 634).
      const line = prefixLines + (634 - 623 + 1);
      assert.deepEqual(fmt(r.errors), [`seed:623:${line}:1: document 3: yaml: Implicit map keys need to be followed by map values`]);
      continue;
    }
    assert.deepEqual(fmt(r.errors), [], `seed line ${b.line}`);
    assert.deepEqual(fmt(r.warnings), [], `seed line ${b.line}`);
    kinds.push(...r.objects.slice(2).map((o) => o.object.kind));
  }
  assert.deepEqual(
    kinds.reduce<Record<string, number>>((acc, k) => ({ ...acc, [k]: (acc[k] ?? 0) + 1 }), {}),
    { NetworkPolicy: 14, Deployment: 9, Pod: 4 },
  );
});

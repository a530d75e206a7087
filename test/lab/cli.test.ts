// `cnisim lab SCRIPT -f FILES`: exit codes, stdout/stderr, files relative to the script.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const MAIN = resolve(dirname(fileURLToPath(import.meta.url)), "../../src/cli/main.js");
const CLUSTER = resolve(process.cwd(), "examples/seed-lab/cluster.yaml");

const cnisim = (...args: string[]): { status: number | null; stdout: string; stderr: string } => {
  const r = spawnSync(process.execPath, [MAIN, ...args], { encoding: "utf8" });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
};

test("runs an example script: exit 0, commands echoed, kubectl's output", () => {
  const r = cnisim("lab", resolve(process.cwd(), "examples/lab/08-taints.lab"), "-f", CLUSTER);
  assert.equal(r.status, 0, r.stderr);
  assert.ok(r.stdout.includes("$ kubectl taint nodes worker31.cyh.cloud CPU=L1:NoSchedule\nnode/worker31.cyh.cloud tainted\n"));
  assert.ok(r.stdout.includes("1 node(s) had untolerated taint {CPU: L1}, 1 node(s) had untolerated taint {CPU: L2}"));
});

test("a script error: exit 1 and the script's file and line on stderr; files are read next to the script", () => {
  const dir = mkdtempSync(join(tmpdir(), "cnisim-lab-"));
  writeFileSync(join(dir, "ns.yaml"), "apiVersion: v1\nkind: Namespace\nmetadata: {name: from-file}\n");
  const script = join(dir, "s.lab");
  writeFileSync(script, "kubectl apply -f ns.yaml\nkubectl explode\nkubectl get ns\n");
  const r = cnisim("lab", script, "-f", CLUSTER, "--no-echo");
  assert.equal(r.status, 1);
  assert.equal(r.stdout, "namespace/from-file created\n");
  assert.equal(r.stderr, `cnisim lab: ${script}:2: kubectl explode: unknown command "explode" for "kubectl"\n`);
});

test("a bad --step is a usage error (exit 2)", () => {
  const r = cnisim("lab", "x.lab", "-f", CLUSTER, "--step", "soon");
  assert.equal(r.status, 2);
  assert.match(r.stderr, /--step: invalid duration "soon"/);
});

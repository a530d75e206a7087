// `cnisim top` and `cnisim serve` as a user runs them: tables, kubectl's errors and exit codes, the
// Cluster file's spec.costModel, and a served API that answers and stops on SIGTERM.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn, spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { SEED_FILES } from "./serve-fixture.js";

const MAIN = resolve(dirname(fileURLToPath(import.meta.url)), "../../src/cli/main.js");
const SEED = SEED_FILES.slice(0, 2);

const cnisim = (...args: string[]): { status: number | null; stdout: string; stderr: string } => {
  const r = spawnSync(process.execPath, [MAIN, ...args], { encoding: "utf8" });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
};
const words = (text: string): string[][] => text.trimEnd().split("\n").map((l) => l.trim().split(/\s+/));

test("cnisim top node: the seed lab with its system pods, as the lab's kubectl (v1.30) prints it", () => {
  const r = cnisim("top", "node", "-f", ...SEED, "--duration", "60s");
  assert.equal(r.status, 0, r.stderr);
  assert.deepEqual(words(r.stdout), [
    ["NAME", "CPU(cores)", "CPU%", "MEMORY(bytes)", "MEMORY%"],
    ["master30.cyh.cloud", "125m", "6%", "1324Mi", "35%"],
    ["worker31.cyh.cloud", "49m", "2%", "868Mi", "23%"],
    ["worker32.cyh.cloud", "49m", "2%", "865Mi", "23%"],
  ]);
  assert.ok(r.stdout.split("\n")[0]!.endsWith("MEMORY%   "), "kubectl's trailing padding");
  const current = cnisim("top", "node", "-f", ...SEED, "--kubectl-version", "v1.33.0", "--no-headers", "-l", "node-role.kubernetes.io/control-plane");
  assert.deepEqual(words(current.stdout), [["master30.cyh.cloud", "125m", "6%", "1324Mi", "35%"]]);
});

test("cnisim top pod: kube-system's pods; kubectl's messages when there is nothing to show", () => {
  const sys = cnisim("top", "pod", "-n", "kube-system", "-f", ...SEED);
  assert.equal(sys.status, 0, sys.stderr);
  assert.equal(words(sys.stdout).length, 15);
  assert.deepEqual(words(sys.stdout).find((w) => w[0] === "etcd-master.cyh.cloud"), ["etcd-master.cyh.cloud", "16m", "54Mi"]);
  const early = cnisim("top", "pod", "-n", "web", "-f", ...SEED, "--duration", "10s");
  assert.deepEqual([early.status, early.stdout, early.stderr], [1, "", "error: metrics not available yet\n"]);
  const none = cnisim("top", "pod", "-n", "nothing", "-f", ...SEED);
  assert.deepEqual([none.status, none.stdout, none.stderr], [0, "", "No resources found in nothing namespace.\n"]);
  const late = cnisim("top", "pod", "-n", "web", "-f", ...SEED, "--duration", "10s", "-l", "run=nobody");
  assert.equal(late.stderr, "No resources found in web namespace.\n");
});

test("spec.costModel in the Cluster file changes the numbers; a bad one is reported with its path", () => {
  const dir = mkdtempSync(join(tmpdir(), "cnisim-cost-"));
  const cluster = readFileSync(resolve(process.cwd(), "examples/seed-lab/cluster.yaml"), "utf8");
  const good = join(dir, "good.yaml");
  writeFileSync(good, cluster + "  costModel: {system: {cpu: 50m, memory: 1Gi}, resolution: 30s}\n");
  const r = cnisim("top", "node", "-f", good, "--duration", "90s", "--no-headers");
  assert.equal(r.status, 0, r.stderr);
  assert.deepEqual(words(r.stdout)[0], ["master30.cyh.cloud", "50m", "2%", "1024Mi", "27%"]);
  assert.ok(!r.stderr.includes("costModel"), "no unknown-field warning for the section metrics reads");
  const bad = join(dir, "bad.yaml");
  writeFileSync(bad, cluster + "  costModel: {cpuGHz: fast}\n");
  const e = cnisim("top", "node", "-f", bad);
  assert.equal(e.status, 1);
  assert.equal(e.stderr, `cnisim: ${bad}: spec.costModel.cpuGHz: must be a number above 0\n`);
});

test("cnisim serve: binds loopback, answers kubectl's discovery and lists, stops cleanly on SIGTERM", async () => {
  const child = spawn(process.execPath, [MAIN, "serve", "-f", ...SEED, "--port", "0", "--rate", "0", "--warmup", "20s"], { stdio: ["ignore", "pipe", "pipe"] });
  let stderr = "";
  child.stderr.setEncoding("utf8");
  const url = await new Promise<string>((resolveUrl, reject) => {
    child.stderr.on("data", (d: string) => {
      stderr += d;
      const m = /serving seed-lab at (http:\/\/[\d.]+:\d+)/.exec(stderr);
      if (m !== null) resolveUrl(m[1]!);
    });
    child.on("exit", (code) => reject(new Error(`serve exited with ${code}: ${stderr}`)));
  });
  assert.match(url, /^http:\/\/127\.0\.0\.1:\d+$/);
  const nodes = (await (await fetch(`${url}/api/v1/nodes`)).json()) as { kind: string; items: unknown[] };
  assert.deepEqual([nodes.kind, nodes.items.length], ["NodeList", 3]);
  const metrics = (await (await fetch(`${url}/apis/metrics.k8s.io/v1beta1/nodes`)).json()) as { items: { window: string }[] };
  assert.deepEqual(metrics.items.map((m) => m.window), ["15s", "15s", "15s"]);
  const exited = new Promise<number | null>((r) => child.on("exit", r));
  child.kill("SIGTERM");
  assert.equal(await exited, 0);
});

test("bad serve and top arguments are usage errors (exit 2)", () => {
  assert.equal(cnisim("serve", "-f", ...SEED, "--port", "70000").status, 2);
  const what = cnisim("top", "deployments", "-f", ...SEED);
  assert.deepEqual([what.status, what.stderr], [2, 'cnisim: top takes node or pod, not "deployments"\n']);
});

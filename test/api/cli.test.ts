// `cnisim top` and `cnisim serve` as a user runs them: tables, kubectl's errors and exit codes, the
// Cluster file's spec.costModel, a served API that answers and stops on SIGTERM, and --traffic.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn, spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { kubectl, kubectlMissing, SEED_FILES } from "./serve-fixture.js";

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
  // Without the DNS add-on master30 runs nothing but the system share the cost model sets.
  writeFileSync(good, cluster + "  addons: {dns: false}\n  costModel: {system: {cpu: 50m, memory: 1Gi}, resolution: 30s}\n");
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

test("cnisim top --traffic: the nodes the traffic crosses use more CPU; bad specs are usage errors", () => {
  const idle = cnisim("top", "node", "-f", SEED[0]!, "--for", "20s", "--no-headers");
  const busy = cnisim("top", "node", "-f", SEED[0]!, "--for", "20s", "--no-headers", "--traffic", "web/test->svc/web/web1:80 rate=200/s", "--traffic", "udp cyh/test->web/web1:9000 rate=2000/s size=1400");
  assert.equal(busy.status, 0, busy.stderr);
  assert.match(busy.stderr, /cnisim: traffic web\/test->svc\/web\/web1:80 rate=200\/s: 4001 sent, 400\d answered, 0 failed\n/);
  assert.match(busy.stderr, /cnisim: traffic udp cyh\/test->web\/web1:9000 rate=2000\/s size=1400: 40001 sent, 4000\d answered, 0 failed\n/);
  const cpu = (out: string): Map<string, number> => new Map(words(out).map((w) => [w[0]!, Number(w[1]!.replace("m", ""))]));
  const [before, after] = [cpu(idle.stdout), cpu(busy.stdout)];
  // web1 and web/test live on worker32, cyh/test on worker31: both workers work, the control plane does not.
  assert.ok(after.get("worker32.cyh.cloud")! > before.get("worker32.cyh.cloud")! + 10, busy.stdout);
  assert.ok(after.get("worker31.cyh.cloud")! > before.get("worker31.cyh.cloud")!, busy.stdout);
  assert.equal(after.get("master30.cyh.cloud"), before.get("master30.cyh.cloud"));
  const bad = cnisim("top", "node", "-f", SEED[0]!, "--traffic", "web/test->svc/web/web1:80 rat=2");
  assert.deepEqual([bad.status, bad.stderr], [2, 'cnisim: --traffic "web/test->svc/web/web1:80 rat=2": column 27: unknown option "rat" for http (rate, path, after)\n']);
  const unknown = cnisim("top", "node", "-f", SEED[0]!, "--traffic", "web/nobody->web/web1");
  assert.deepEqual([unknown.status, unknown.stderr.trim().split("\n").at(-1)], [1, 'cnisim: --traffic "web/nobody->web/web1": pod web/nobody has no network (unknown, not scheduled or not running)']);
});

test("cnisim serve --traffic: the real kubectl sees node CPU rise once the delayed traffic flows", { skip: kubectlMissing() ?? false }, async () => {
  // Simulated time runs 4x the wall clock; the traffic starts 20 s (simulated) after serving begins.
  const traffic = "udp cyh/test->web/web1:9000 rate=2000/s size=1400 after=20s";
  const child = spawn(process.execPath, [MAIN, "serve", "-f", SEED[0]!, "--port", "0", "--rate", "4", "--warmup", "30s", "--traffic", traffic], { stdio: ["ignore", "pipe", "pipe"] });
  let stderr = "";
  child.stderr.setEncoding("utf8");
  try {
    const url = await new Promise<string>((resolveUrl, reject) => {
      child.stderr.on("data", (d: string) => {
        stderr += d;
        const m = /serving seed-lab at (http:\/\/[\d.]+:\d+)/.exec(stderr);
        if (m !== null) resolveUrl(m[1]!);
      });
      child.on("exit", (code) => reject(new Error(`serve exited with ${code}: ${stderr}`)));
    });
    const worker31 = async (): Promise<number> => {
      const r = await kubectl(url, "top", "node", "worker31.cyh.cloud", "--no-headers");
      assert.equal(r.code, 0, r.stderr);
      return Number(words(r.stdout)[0]![1]!.replace("m", ""));
    };
    const idle = await worker31();
    await new Promise((r) => setTimeout(r, 10_000)); // 40 s simulated: the traffic has run 20 s, a full window
    const busy = await worker31();
    assert.ok(busy > idle, `worker31 ${idle}m idle, ${busy}m with traffic`);
    const pods = await kubectl(url, "top", "pod", "-A", "--no-headers");
    assert.equal(pods.code, 0, pods.stderr);
    const web1 = words(pods.stdout).find((w) => w[0] === "web" && w[1] === "web1");
    assert.ok(web1 !== undefined && Number(web1[2]!.replace("m", "")) > 10, pods.stdout);
  } finally {
    const exited = new Promise<number | null>((r) => child.on("exit", r));
    child.kill("SIGTERM");
    assert.equal(await exited, 0);
  }
});

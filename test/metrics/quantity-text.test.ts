// metrics-server's wire text: CPU and memory quantities in apimachinery's canonical form (checked
// against kubectl, which canonicalizes quantities with the same library), Go durations, metav1.Time.
import { test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync, spawnSync } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { formatCpuNanoCores, formatGoDuration, formatMemoryBytes, formatMetaTime } from "../../src/metrics/index.js";

const kubectl = spawnSync("kubectl", ["version", "--client"], { encoding: "utf8" });
const skip = kubectl.error !== undefined ? `kubectl is not installed (${kubectl.error.message}): no oracle for quantity text` : false;

/** kubectl's canonical text of a quantity (set resources --local prints the parsed, re-serialized limit). */
function canonical(resource: "cpu" | "memory", quantity: string): string {
  const dir = mkdtempSync(join(tmpdir(), "cnisim-q-"));
  const file = join(dir, "p.yaml");
  writeFileSync(file, "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec: {containers: [{name: c, image: x}]}\n");
  return execFileSync("kubectl", ["set", "resources", "-f", file, "--local", `--limits=${resource}=${quantity}`, "-o", `jsonpath={.spec.containers[0].resources.limits.${resource}}`], {
    encoding: "utf8",
    env: { ...process.env, KUBECONFIG: "/dev/null" },
  });
}

test("CPU from nanocores as resource.NewScaledQuantity(n, -9) prints (kubectl as the oracle)", { skip }, () => {
  for (const n of [0, 1, 100_000, 150_000, 1_234_567, 20_200_000, 97_000_000, 329_087_452, 1_500_000_000, 2_000_000_000, 12_000_000_000]) {
    assert.equal(formatCpuNanoCores(n), canonical("cpu", `${n}n`), `${n}n`);
  }
});

test("memory from bytes as resource.NewQuantity(b, BinarySI) prints (kubectl as the oracle)", { skip }, () => {
  // A BinarySI input of the same value: bytes / 1024 with a Ki suffix (exact in decimal).
  for (const b of [512, 1000, 1536, 1024 ** 2, 786_432 * 1024, 1_359_872 * 1024, 2_748_180 * 1024, 3 * 1024 ** 3, 1_392_509_952]) {
    assert.equal(formatMemoryBytes(b), canonical("memory", `${b / 1024}Ki`), `${b} bytes`);
  }
});

test("the forms metrics-server users see", () => {
  assert.equal(formatCpuNanoCores(329_087_452), "329087452n");
  assert.equal(formatMemoryBytes(2_748_180 * 1024), "2748180Ki");
  assert.equal(formatCpuNanoCores(97_000_000), "97m");
  assert.equal(formatMemoryBytes(1328 * 1024 ** 2), "1328Mi");
});

test("windows as Go's time.Duration.String(), timestamps as metav1.Time", () => {
  const cases: [number, string][] = [
    [0, "0s"],
    [1, "1ns"],
    [1_500, "1.5µs"],
    [1_500_000, "1.5ms"],
    [1_500_000_000, "1.5s"],
    [15e9, "15s"],
    [20_064_000_000, "20.064s"],
    [90e9, "1m30s"],
    [3600e9, "1h0m0s"],
    [3723.5e9, "1h2m3.5s"],
  ];
  for (const [ns, text] of cases) assert.equal(formatGoDuration(ns), text);
  assert.equal(formatMetaTime(Date.UTC(2019, 10, 1, 23, 58, 2, 999)), "2019-11-01T23:58:02Z");
});

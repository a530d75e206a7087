// `cnisim demo`, run as the built executable: it replays the seed lab's scheduling experiments and
// prints what the seed document shows, e.g. experiment 8's exact FailedScheduling message.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import path from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";

const MAIN = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../src/cli/main.js");

function demo(...args: string[]) {
  return spawnSync(process.execPath, [MAIN, "demo", ...args], { encoding: "utf8" });
}

test("the taints experiment prints the seed's FailedScheduling message word for word", () => {
  const run = demo("--only", "08-taints");
  assert.equal(run.status, 0, run.stderr);
  // From the seed document (seed-lab.md, scheduling experiment 8).
  assert.match(
    run.stdout,
    /0\/3 nodes are available: 1 node\(s\) had untolerated taint \{CPU: L1\}, 1 node\(s\) had untolerated taint \{CPU: L2\}, 1 node\(s\) had untolerated taint \{node-role\.kubernetes\.io\/control-plane: \}\. preemption: 0\/3 nodes are available: 3 Preemption is not helpful for scheduling\./,
  );
  assert.match(run.stdout, /1 of 1 experiments ran to the end\./);
});

test("an unknown experiment name is a clear error with exit code 1", () => {
  const run = demo("--only", "no-such-experiment");
  assert.equal(run.status, 1);
  assert.match(run.stderr, /cnisim: demo: no experiment matches "no-such-experiment"/);
});

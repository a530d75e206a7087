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

test("the NetworkPolicy part reproduces the seed's outcomes and explains the NodePort/ipBlock denial", () => {
  const run = demo("--only", "network");
  assert.equal(run.status, 0, run.stderr);
  const section = (n: number): string => run.stdout.split(`=== ${n}. `)[1]?.split("=== ")[0] ?? "";
  // Experiment 2 (seed-lab.md): web/test allowed; cyh/test denied although it carries run=test.
  assert.match(section(2), /cyh\/test\s+dropped:133/);
  assert.match(section(2), /web\/test\s+connected/);
  // Experiment 4: no namespace carries project=myproject, so both test pods are denied.
  assert.match(section(4), /web\/test\s+dropped:133/);
  // Experiment 6: through worker31 the packet is masqueraded to its tunl0 address and denied on worker32;
  // through worker32, the hosting node, the client address is kept and allowed.
  const six = section(6);
  assert.match(six, /trace ext\/client -> node\/worker31\.cyh\.cloud[\s\S]*SNAT 10\.1\.8\.100:\d+ -> 10\.224\.[\d.]+:\d+[\s\S]*verdict: dropped:133/);
  assert.match(six, /ipBlock 10\.1\.8\.0\/24 does not contain 10\.224\./);
  assert.match(six, /trace ext\/client -> node\/worker32\.cyh\.cloud[\s\S]*verdict: connected/);
});

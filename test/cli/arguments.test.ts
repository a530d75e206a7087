// The command line around commander: a command's argument written after a variadic -f is taken as one
// more path, so commander reports it missing; cnisim then says why (exit 2), and only then.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import path from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";

const MAIN = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../src/cli/main.js");
const LAB = path.resolve(process.cwd(), "examples/seed-lab");
const HINT = "cnisim: -f takes every path after it: give the command's arguments before -f (e.g. cnisim top node -f FILES..., cnisim lab SCRIPT -f FILES...)\n";

function cnisim(...args: string[]) {
  return spawnSync(process.execPath, [MAIN, ...args], { encoding: "utf8" });
}

test("an argument after -f is reported missing with the reason, exit 2", () => {
  for (const args of [["top", "-f", LAB, "node"], ["lab", "-f", LAB, "script.lab"]]) {
    const r = cnisim(...args);
    assert.equal(r.status, 2, args.join(" "));
    assert.match(r.stderr, /error: missing required argument/);
    assert.ok(r.stderr.endsWith(HINT), r.stderr);
  }
});

test("a missing argument without -f gets commander's message alone", () => {
  const r = cnisim("pcap", "inspect");
  assert.equal(r.status, 2);
  assert.match(r.stderr, /error: missing required argument 'file'/);
  assert.ok(!r.stderr.includes("-f takes every path"), r.stderr);
});

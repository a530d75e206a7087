// Runs every compiled test file with node's test runner. Node 20 treats a directory
// argument differently from Node 22, so the list is explicit: dist/test/**/*.test.js.
// Extra arguments select files whose path contains any of them (e.g. `wire pcap`).
import { readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { spawnSync } from "node:child_process";

function collect(dir) {
  const out = [];
  for (const name of readdirSync(dir).sort()) {
    const full = join(dir, name);
    if (statSync(full).isDirectory()) out.push(...collect(full));
    else if (name.endsWith(".test.js")) out.push(full);
  }
  return out;
}

const filters = process.argv.slice(2);
let files = collect("dist/test");
if (filters.length > 0) files = files.filter((f) => filters.some((s) => f.includes(s)));
if (files.length === 0) {
  console.error("run-tests: no test files found under dist/test");
  process.exit(1);
}
const result = spawnSync(process.execPath, ["--test", "--test-reporter=spec", ...files], { stdio: "inherit" });
process.exit(result.status ?? 1);

// Runs every compiled benchmark in dist/bench (or those whose path contains an argument).
import { readdirSync } from "node:fs";
import { join } from "node:path";
import { spawnSync } from "node:child_process";

const filters = process.argv.slice(2);
const files = readdirSync("dist/bench")
  .filter((n) => n.endsWith(".bench.js"))
  .map((n) => join("dist/bench", n))
  .filter((f) => filters.length === 0 || filters.some((s) => f.includes(s)));
let failed = 0;
for (const f of files) {
  console.log(`\n## ${f}`);
  const r = spawnSync(process.execPath, ["--expose-gc", f], { stdio: "inherit" });
  if (r.status !== 0) failed++;
}
process.exit(failed === 0 ? 0 : 1);

// Runs tshark (when installed) as a live oracle on files the tests write; tests skip with a printed reason
// when it is missing.
import { spawnSync } from "node:child_process";

let cached: boolean | null = null;

export function tsharkAvailable(): boolean {
  cached ??= spawnSync("tshark", ["--version"], { stdio: "ignore" }).status === 0;
  return cached;
}

export const TSHARK_MISSING = "tshark is not installed (apt-get install tshark), so there is no live oracle";

/** tshark -T fields output: one row per frame, one column per field (multiple values joined by ","). */
export function tsharkFields(file: string, fields: readonly string[], extraArgs: readonly string[] = []): string[][] {
  const args = ["-r", file, "-n", "-T", "fields", "-E", "separator=\t", ...extraArgs];
  for (const f of fields) args.push("-e", f);
  const run = spawnSync("tshark", args, { encoding: "utf8" });
  if (run.status !== 0) throw new Error(`tshark failed on ${file}: ${run.stderr}`);
  return run.stdout
    .split("\n")
    .filter((line) => line !== "")
    .map((line) => line.split("\t"));
}

/** tshark's stderr and status for a file it may reject. */
export function tsharkRead(file: string): { status: number | null; stderr: string } {
  const run = spawnSync("tshark", ["-r", file, "-n"], { encoding: "utf8" });
  return { status: run.status, stderr: run.stderr };
}

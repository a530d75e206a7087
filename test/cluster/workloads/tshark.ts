// Decodes frames with tshark (the oracle for the bytes the workloads produce): writes them to a
// temporary classic pcap with the project's PcapWriter and runs `tshark -r ... -T fields`.
// Returns null, with the reason, when tshark is not installed.

import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PcapWriter } from "../../../src/pcap/index.js";

export function tsharkMissing(): string | null {
  try {
    execFileSync("tshark", ["--version"], { stdio: "ignore", timeout: 20_000 });
    return null;
  } catch {
    return "tshark is not installed";
  }
}

/** One row per frame: the requested fields, "|"-separated values as tshark prints them. */
export async function tsharkFields(frames: readonly Uint8Array[], fields: readonly string[], extra: readonly string[] = []): Promise<string[][]> {
  const dir = mkdtempSync(join(tmpdir(), "cnisim-tshark-"));
  try {
    const file = join(dir, "frames.pcap");
    const w = PcapWriter.toFile(file, { linkType: 1 });
    frames.forEach((f, i) => w.write({ tsNs: BigInt(i) * 1000n, data: f }));
    await w.close();
    const out = execFileSync("tshark", ["-r", file, ...extra, "-T", "fields", "-E", "separator=|", ...fields.flatMap((f) => ["-e", f])], { encoding: "utf8", timeout: 60_000 });
    return out.trimEnd().split("\n").map((line) => line.split("|"));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

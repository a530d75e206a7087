// Where the pcap and CLI tests find their inputs: the shared external captures beside the repository
// (../shared, so that a CI clone with ../shared next to it works) and the project's own pcaps/.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";

export function externalCapture(name: string): string {
  return path.resolve(process.cwd(), "../shared/pcaps/external", name);
}

export const EXTERNAL_DIR = path.resolve(process.cwd(), "../shared/pcaps/external");

export function projectCapture(name: string): string {
  return path.resolve(process.cwd(), "pcaps", name);
}

/** A fresh temporary directory for files a test writes, removed when the test process exits. */
export function scratchDir(): string {
  const dir = mkdtempSync(path.join(tmpdir(), "cnisim-pcap-test-"));
  process.on("exit", () => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

// Namespaces for the live-mode tests: every namespace is named `cnisiml-<pid>-<tag>-<name>` (test/support/netns-lab.ts), deleted by
// close(), and a new harness first deletes those left by test processes that no longer run. Nothing
// here touches the machine's own interfaces: addresses exist only inside these namespaces.

import { spawn, type ChildProcess } from "node:child_process";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { NetnsLab, namespaceSkipReason, run } from "../support/netns-lab.js";

export { firstLine, run } from "../support/netns-lab.js";

const PREFIX = "cnisiml-";

/** The compiled fixture next to this file (works from any dist folder). */
export function fixturePath(name: string): string {
  return join(dirname(fileURLToPath(import.meta.url)), "fixtures", name);
}

let cachedSkip: string | null | undefined;

/** Why the namespace tests cannot run here (null when they can). */
export function liveSkipReason(): string | null {
  if (cachedSkip !== undefined) return cachedSkip;
  cachedSkip = namespaceSkipReason(PREFIX, ["ip", "ping", "tcpdump", "tshark"], "network namespaces and packet capture need it");
  if (cachedSkip !== null) console.log(`live namespace tests skipped: ${cachedSkip}`);
  return cachedSkip;
}

/** Polls cond every 20 ms until it holds or timeoutMs passes; throws naming `what`. */
export async function waitUntil(cond: () => boolean | Promise<boolean>, what: () => string, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await cond()) return;
    if (Date.now() > deadline) throw new Error(`live test: timed out after ${timeoutMs} ms waiting for ${what()}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** A spawned process with its output collected. */
export class Child {
  stdout = "";
  stderr = "";
  exitCode: number | null = null;
  private readonly exited: Promise<void>;

  constructor(readonly proc: ChildProcess) {
    proc.stdout?.on("data", (d: Buffer) => (this.stdout += d.toString()));
    proc.stderr?.on("data", (d: Buffer) => (this.stderr += d.toString()));
    this.exited = new Promise((resolve) =>
      proc.once("exit", (code, signal) => {
        this.exitCode = code ?? (signal !== null ? 128 : -1);
        resolve();
      }),
    );
  }

  /** Waits until the process exits (bounded), returning its exit code. */
  async wait(timeoutMs = 15_000): Promise<number> {
    await waitUntil(() => this.exitCode !== null, () => `process ${this.proc.pid} to exit; stderr: ${this.stderr.trim()}`, timeoutMs);
    await this.exited;
    return this.exitCode!;
  }

  /** SIGINT (what Ctrl-C sends), then waits for the exit; SIGKILL if it does not come. */
  async interrupt(timeoutMs = 10_000): Promise<number> {
    if (this.exitCode !== null) return this.exitCode;
    this.proc.kill("SIGINT");
    try {
      return await this.wait(timeoutMs);
    } catch (e) {
      this.proc.kill("SIGKILL");
      throw e;
    }
  }
}

export class LiveLab extends NetnsLab {
  constructor(tag: string) {
    super(PREFIX, tag);
  }

  /** Starts a process in ns with its output collected; close() kills it if it still runs. */
  spawn(ns: string, cmd: string, args: readonly string[]): Child {
    const child = new Child(spawn("ip", ["netns", "exec", ns, cmd, ...args], { stdio: ["ignore", "pipe", "pipe"] }));
    this.stoppers.push(async () => {
      if (child.exitCode !== null) return;
      child.proc.kill("SIGKILL");
      await child.wait(5_000).catch(() => undefined);
    });
    return child;
  }
}

/** tcpdump writing a pcap in ns; resolves once it listens. */
export async function startTcpdump(lab: LiveLab, ns: string, dev: string, file: string): Promise<Child> {
  const child = lab.spawn(ns, "tcpdump", ["-i", dev, "-U", "--immediate-mode", "-n", "-s", "0", "-Z", "root", "-w", file]);
  await waitUntil(() => child.exitCode !== null || child.stderr.includes("listening on"), () => `tcpdump on ${dev}: ${child.stderr}`);
  if (child.exitCode !== null) throw new Error(`tcpdump on ${dev} failed: ${child.stderr.trim()}`);
  return child;
}

/** tshark's decode of a capture as rows of the given fields (checksum validation on). */
export function tsharkFields(file: string, filter: string, fields: readonly string[]): string[][] {
  const out = run("tshark", [
    "-r", file, "-n",
    "-o", "ip.check_checksum:TRUE", "-o", "tcp.check_checksum:TRUE", "-o", "udp.check_checksum:TRUE",
    "-Y", filter, "-T", "fields", "-E", "separator=|", ...fields.flatMap((f) => ["-e", f]),
  ]);
  return out.split("\n").filter((l) => l !== "").map((l) => l.split("|"));
}

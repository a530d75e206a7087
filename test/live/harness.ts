// Namespaces for the live-mode tests: every namespace is named `cnisiml-<pid>-<name>`, deleted by
// close(), and a new harness first deletes those left by test processes that no longer run. Nothing
// here touches the machine's own interfaces: addresses exist only inside these namespaces.

import { execFileSync, spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const PREFIX = "cnisiml-";
const EXEC_TIMEOUT_MS = 20_000;

export function run(cmd: string, args: readonly string[], timeout = EXEC_TIMEOUT_MS): string {
  return execFileSync(cmd, args, { encoding: "utf8", timeout, stdio: ["ignore", "pipe", "pipe"] });
}

function commandExists(cmd: string): boolean {
  try {
    run("sh", ["-c", `command -v ${cmd}`]);
    return true;
  } catch {
    return false;
  }
}

/** The compiled fixture next to this file (works from any dist folder). */
export function fixturePath(name: string): string {
  return join(dirname(fileURLToPath(import.meta.url)), "fixtures", name);
}

let cachedSkip: string | null | undefined;

/** Why the namespace tests cannot run here (null when they can). */
export function liveSkipReason(): string | null {
  if (cachedSkip !== undefined) return cachedSkip;
  cachedSkip = probe();
  if (cachedSkip !== null) console.log(`live namespace tests skipped: ${cachedSkip}`);
  return cachedSkip;
}

function probe(): string | null {
  if (process.platform !== "linux") return `not Linux (${process.platform})`;
  if (typeof process.getuid === "function" && process.getuid() !== 0) return "not root: network namespaces and packet capture need it";
  for (const cmd of ["ip", "ping", "tcpdump", "tshark"]) if (!commandExists(cmd)) return `\`${cmd}\` is not installed`;
  const name = `${PREFIX}${process.pid}-probe`;
  try {
    run("ip", ["netns", "add", name]);
  } catch (e) {
    return `cannot create a network namespace: ${firstLine(e)}`;
  } finally {
    try {
      run("ip", ["netns", "del", name]);
    } catch {
      // never created
    }
  }
  return null;
}

export function firstLine(e: unknown): string {
  const error = e as { stderr?: string; message?: string };
  return (error.stderr ?? error.message ?? String(e)).trim().split("\n")[0] ?? "";
}

function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === "EPERM";
  }
}

/** Deletes `cnisiml-<pid>-*` namespaces whose test process is gone. */
function cleanStale(): void {
  let list = "";
  try {
    list = run("ip", ["netns", "list"]);
  } catch {
    return;
  }
  for (const line of list.split("\n")) {
    const name = line.split(" ")[0] ?? "";
    const m = /^cnisiml-(\d+)-/.exec(name);
    if (m === null || pidAlive(Number(m[1]))) continue;
    try {
      run("ip", ["netns", "del", name]);
    } catch {
      // raced with another cleaner
    }
  }
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

export class LiveLab {
  readonly prefix: string;
  private readonly namespaces: string[] = [];
  private readonly children: Child[] = [];
  private readonly dirs: string[] = [];

  constructor(tag: string) {
    cleanStale();
    this.prefix = `${PREFIX}${process.pid}-${tag}-`;
  }

  /** A namespace with IPv6 off (no solicitations on the wire) and lo up. */
  netns(name: string): string {
    const ns = this.prefix + name;
    run("ip", ["netns", "add", ns]);
    this.namespaces.push(ns);
    this.exec(ns, "sysctl", ["-qw", "net.ipv6.conf.all.disable_ipv6=1", "net.ipv6.conf.default.disable_ipv6=1"]);
    this.ip(ns, "link", "set", "lo", "up");
    return ns;
  }

  ip(ns: string, ...args: string[]): string {
    return run("ip", ["-n", ns, ...args]);
  }

  exec(ns: string, cmd: string, args: readonly string[], timeout?: number): string {
    return run("ip", ["netns", "exec", ns, cmd, ...args], timeout);
  }

  /** A veth pair with fixed MACs, one end in each namespace, both up. */
  veth(nsA: string, nameA: string, macA: string, nsB: string, nameB: string, macB: string): void {
    run("ip", ["link", "add", nameA, "address", macA, "netns", nsA, "type", "veth", "peer", "name", nameB, "address", macB, "netns", nsB]);
    this.ip(nsA, "link", "set", nameA, "up");
    this.ip(nsB, "link", "set", nameB, "up");
  }

  /** Transmit checksum offload off (SIOCETHTOOL ETHTOOL_STXCSUM = 0): TCP leaves with real checksums, MTU-sized. */
  txChecksumOff(ns: string, dev: string): void {
    const py =
      "import array,fcntl,socket,struct,sys\n" +
      "s=socket.socket(socket.AF_INET,socket.SOCK_DGRAM)\n" +
      "v=array.array('I',[0x17,0])\n" +
      "fcntl.ioctl(s,0x8946,struct.pack('16sP',sys.argv[1].encode(),v.buffer_info()[0])+bytes(16))\n";
    this.exec(ns, "python3", ["-c", py, dev]);
  }

  /** Starts a process in ns; close() stops it. */
  spawn(ns: string, cmd: string, args: readonly string[]): Child {
    const child = new Child(spawn("ip", ["netns", "exec", ns, cmd, ...args], { stdio: ["ignore", "pipe", "pipe"] }));
    this.children.push(child);
    return child;
  }

  tempDir(): string {
    const dir = mkdtempSync(join(tmpdir(), "cnisiml-"));
    this.dirs.push(dir);
    return dir;
  }

  async close(): Promise<void> {
    for (const child of this.children) {
      if (child.exitCode === null) {
        child.proc.kill("SIGKILL");
        await child.wait(5_000).catch(() => undefined);
      }
    }
    for (const ns of this.namespaces.splice(0).reverse()) {
      try {
        run("ip", ["netns", "del", ns]);
      } catch {
        // already gone
      }
    }
    for (const dir of this.dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
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

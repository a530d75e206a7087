// KernelLab: real Linux network namespaces for the kernel comparison tests. Every namespace a lab
// creates is named `cnisimk-<pid>-<tag>-<name>`, is deleted by close() (call it in `finally`), and a
// new lab first deletes namespaces left behind by test processes that no longer run.

import { execFileSync, spawn, type ChildProcess } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PY_INJECTOR, PY_TX_CSUM_OFF } from "./python.js";
import { Injector } from "./injector.js";
import { stopChild } from "./wait.js";

const PREFIX = "cnisimk-";
const EXEC_TIMEOUT_MS = 20_000;

function run(cmd: string, args: readonly string[]): string {
  return execFileSync(cmd, args, { encoding: "utf8", timeout: EXEC_TIMEOUT_MS, stdio: ["ignore", "pipe", "pipe"] });
}

function commandExists(cmd: string): boolean {
  try {
    run("sh", ["-c", `command -v ${cmd}`]);
    return true;
  } catch {
    return false;
  }
}

let cachedSkip: string | null | undefined;
let python: string | undefined;

/** The interpreter itself, not a version-manager shim (a pyenv shim costs seconds per start). */
function pythonBin(): string {
  if (python !== undefined) return python;
  for (const p of ["/usr/bin/python3", "/usr/local/bin/python3"]) if (existsSync(p)) return (python = p);
  return (python = run("python3", ["-c", "import sys; print(sys.executable)"]).trim() || "python3");
}

/**
 * Why kernel tests cannot run here (null when they can): needs root, iproute2, tcpdump, python3,
 * iptables, conntrack-tools,
 * and a namespace that can actually be created. Checked once per process.
 */
export function kernelSkipReason(): string | null {
  if (cachedSkip !== undefined) return cachedSkip;
  cachedSkip = probe();
  if (cachedSkip !== null) console.log(`kernel tests skipped: ${cachedSkip}`);
  return cachedSkip;
}

function probe(): string | null {
  if (process.platform !== "linux") return `not Linux (${process.platform})`;
  if (typeof process.getuid === "function" && process.getuid() !== 0) return "not root: network namespaces need CAP_SYS_ADMIN";
  for (const cmd of ["ip", "bridge", "tcpdump", "python3", "iptables", "conntrack"]) if (!commandExists(cmd)) return `\`${cmd}\` is not installed`;
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

function firstLine(e: unknown): string {
  const err = e as { stderr?: string; message?: string };
  return (err.stderr ?? err.message ?? String(e)).trim().split("\n")[0] ?? "";
}

function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === "EPERM";
  }
}

/** Deletes `cnisimk-<pid>-*` namespaces whose process is gone (a crashed earlier run). */
export function cleanStaleNamespaces(): void {
  let list: string;
  try {
    list = run("ip", ["netns", "list"]);
  } catch {
    return;
  }
  for (const line of list.split("\n")) {
    const name = line.split(" ")[0] ?? "";
    const m = /^cnisimk-(\d+)-/.exec(name);
    if (m === null || pidAlive(Number(m[1]))) continue;
    try {
      run("ip", ["netns", "del", name]);
    } catch {
      // raced with another cleaner
    }
  }
}

export class KernelLab {
  readonly prefix: string;
  private readonly namespaces: string[] = [];
  private readonly children: ChildProcess[] = [];
  private readonly tempDirs: string[] = [];
  private readonly injectors = new Map<string, Injector>();

  constructor(tag: string) {
    cleanStaleNamespaces();
    this.prefix = `${PREFIX}${process.pid}-${tag}-`;
  }

  /** Creates a namespace with IPv6 off (no router/neighbour solicitations on the wire) and lo up. */
  netns(name: string): string {
    const ns = this.prefix + name;
    run("ip", ["netns", "add", ns]);
    this.namespaces.push(ns);
    this.exec(ns, "sysctl", ["-qw", "net.ipv6.conf.all.disable_ipv6=1", "net.ipv6.conf.default.disable_ipv6=1"]);
    this.ip(ns, "link", "set", "lo", "up");
    return ns;
  }

  /** `ip -n NS ARGS...` */
  ip(ns: string, ...args: string[]): string {
    return run("ip", ["-n", ns, ...args]);
  }

  /** `ip netns exec NS CMD ARGS...` */
  exec(ns: string, cmd: string, args: readonly string[]): string {
    return run("ip", ["netns", "exec", ns, cmd, ...args]);
  }

  sysctl(ns: string, key: string, value: string | number): void {
    this.exec(ns, "sysctl", ["-qw", `${key}=${value}`]);
  }

  /** A veth pair with fixed MACs, one end in each namespace, both up. */
  veth(nsA: string, nameA: string, macA: string, nsB: string, nameB: string, macB: string, mtu = 1500): void {
    run("ip", ["link", "add", nameA, "address", macA, "mtu", String(mtu), "netns", nsA, "type", "veth",
      "peer", "name", nameB, "address", macB, "mtu", String(mtu), "netns", nsB]);
    this.ip(nsA, "link", "set", nameA, "up");
    this.ip(nsB, "link", "set", nameB, "up");
  }

  /**
   * Turns transmit checksum offload off (what `ethtool -K DEV tx off` does) so a locally generated
   * TCP/UDP packet leaves with the checksum the kernel computed in software, not a partial one.
   */
  txChecksumOff(ns: string, ...devs: string[]): void {
    this.exec(ns, pythonBin(), ["-c", PY_TX_CSUM_OFF, ...devs]);
  }

  /** Runs a python3 program (`python3 -c code args...`) in ns as a long-lived process. */
  spawnPython(ns: string, code: string, args: readonly string[] = []): ChildProcess {
    const child = spawn("ip", ["netns", "exec", ns, pythonBin(), "-u", "-c", code, ...args], { stdio: ["pipe", "pipe", "pipe"] });
    this.children.push(child);
    return child;
  }

  /** An injector in ns (started on first use): sends exact frames out of its interfaces via AF_PACKET. */
  async injector(ns: string): Promise<Injector> {
    let inj = this.injectors.get(ns);
    if (inj === undefined) {
      inj = new Injector(this.spawnPython(ns, PY_INJECTOR), ns);
      this.injectors.set(ns, inj);
      await inj.ready();
    }
    return inj;
  }

  /** Sends exact Ethernet frames out of dev in ns (dev_queue_xmit, no stack involved). */
  async send(ns: string, dev: string, frames: readonly Uint8Array[]): Promise<void> {
    await (await this.injector(ns)).send(dev, frames);
  }

  /** Starts a long-running process in ns; it is killed by close(). */
  spawn(ns: string, cmd: string, args: readonly string[]): ChildProcess {
    const child = spawn("ip", ["netns", "exec", ns, cmd, ...args], { stdio: ["ignore", "pipe", "pipe"] });
    this.children.push(child);
    return child;
  }

  /** A temporary directory removed by close(). */
  tempDir(): string {
    const dir = mkdtempSync(join(tmpdir(), "cnisimk-"));
    this.tempDirs.push(dir);
    return dir;
  }

  /** Stops the processes this lab started (by their pid) and deletes its namespaces. */
  async close(): Promise<void> {
    await Promise.all(this.children.map((c) => stopChild(c)));
    for (const ns of this.namespaces.splice(0).reverse()) {
      try {
        run("ip", ["netns", "del", ns]);
      } catch {
        // already gone
      }
    }
    for (const dir of this.tempDirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  }
}

// Network namespaces for tests that compare with, or talk through, the real kernel: every namespace is
// named `<prefix><pid>-<tag>-<name>`, deleted by close(), and a new lab first deletes the ones left by
// test processes that no longer run. Nothing here touches the machine's own interfaces. Shared by the
// kernel comparisons (test/kernel) and the live-mode tests (test/live), which add their own processes.

import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const EXEC_TIMEOUT_MS = 20_000;

/** Runs a command to its end (bounded) and returns its stdout; throws with its stderr on failure. */
export function run(cmd: string, args: readonly string[], timeout = EXEC_TIMEOUT_MS): string {
  return execFileSync(cmd, args, { encoding: "utf8", timeout, stdio: ["ignore", "pipe", "pipe"] });
}

export function commandExists(cmd: string): boolean {
  try {
    run("sh", ["-c", `command -v ${cmd}`]);
    return true;
  } catch {
    return false;
  }
}

export function firstLine(e: unknown): string {
  const error = e as { stderr?: string; message?: string };
  return (error.stderr ?? error.message ?? String(e)).trim().split("\n")[0] ?? "";
}

/**
 * Why namespaces cannot be used here (null when they can): Linux, root, the commands named, and a
 * namespace that can really be created.
 */
export function namespaceSkipReason(prefix: string, commands: readonly string[], rootNeed: string): string | null {
  if (process.platform !== "linux") return `not Linux (${process.platform})`;
  if (typeof process.getuid === "function" && process.getuid() !== 0) return `not root: ${rootNeed}`;
  for (const cmd of commands) if (!commandExists(cmd)) return `\`${cmd}\` is not installed`;
  const name = `${prefix}${process.pid}-probe`;
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

function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === "EPERM";
  }
}

/** Deletes `<prefix><pid>-*` namespaces whose test process is gone (a crashed earlier run). */
export function cleanStaleNamespaces(prefix: string): void {
  let list: string;
  try {
    list = run("ip", ["netns", "list"]);
  } catch {
    return;
  }
  for (const line of list.split("\n")) {
    const name = line.split(" ")[0] ?? "";
    if (!name.startsWith(prefix)) continue;
    const pid = Number(/^(\d+)-/.exec(name.slice(prefix.length))?.[1]);
    if (!Number.isInteger(pid) || pidAlive(pid)) continue;
    try {
      run("ip", ["netns", "del", name]);
    } catch {
      // raced with another cleaner
    }
  }
}

/**
 * Sets transmit checksum offload off (SIOCETHTOOL ETHTOOL_STXCSUM = 0, what `ethtool -K DEV tx off`
 * does) so locally generated TCP/UDP leaves with the checksum computed in software, not a partial one.
 */
const PY_TX_CSUM_OFF =
  "import array,fcntl,socket,struct,sys\n" +
  "s=socket.socket(socket.AF_INET,socket.SOCK_DGRAM)\n" +
  "for dev in sys.argv[1:]:\n" +
  "  v=array.array('I',[0x17,0])\n" +
  "  fcntl.ioctl(s,0x8946,struct.pack('16sP',dev.encode(),v.buffer_info()[0])+bytes(16))\n";

export class NetnsLab {
  readonly prefix: string;
  private readonly namespaces: string[] = [];
  private readonly tempDirs: string[] = [];
  /** Stops what a subclass started, before the namespaces go. */
  protected readonly stoppers: (() => Promise<void>)[] = [];

  constructor(
    prefix: string,
    tag: string,
    protected readonly python = "python3",
  ) {
    cleanStaleNamespaces(prefix);
    this.prefix = `${prefix}${process.pid}-${tag}-`;
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
  exec(ns: string, cmd: string, args: readonly string[], timeout?: number): string {
    return run("ip", ["netns", "exec", ns, cmd, ...args], timeout);
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

  /** Transmit checksum offload off on devs in ns (see PY_TX_CSUM_OFF). */
  txChecksumOff(ns: string, ...devs: string[]): void {
    this.exec(ns, this.python, ["-c", PY_TX_CSUM_OFF, ...devs]);
  }

  /** A temporary directory removed by close(). */
  tempDir(): string {
    const dir = mkdtempSync(join(tmpdir(), this.prefix.split("-")[0] + "-"));
    this.tempDirs.push(dir);
    return dir;
  }

  /** Stops the processes this lab started, deletes its namespaces and temporary directories. */
  async close(): Promise<void> {
    await Promise.all(this.stoppers.splice(0).map((stop) => stop()));
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

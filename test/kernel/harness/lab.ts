// KernelLab: real Linux network namespaces for the kernel comparison tests. Every namespace a lab
// creates is named `cnisimk-<pid>-<tag>-<name>`, is deleted by close() (call it in `finally`), and a
// new lab first deletes namespaces left behind by test processes that no longer run.

import { spawn, type ChildProcess } from "node:child_process";
import { existsSync } from "node:fs";
import { NetnsLab, namespaceSkipReason, run } from "../../support/netns-lab.js";
import { PY_INJECTOR } from "./python.js";
import { Injector } from "./injector.js";
import { stopChild } from "./wait.js";

const PREFIX = "cnisimk-";

let cachedSkip: string | null | undefined;
let python: string | undefined;

/** The interpreter itself, not a version-manager shim (a pyenv shim costs seconds per start). */
function pythonBin(): string {
  if (python !== undefined) return python;
  for (const p of ["/usr/bin/python3", "/usr/local/bin/python3"]) if (existsSync(p)) return (python = p);
  return (python = run("python3", ["-c", "import sys; print(sys.executable)"]).trim() || "python3");
}

/** Why the kernel comparisons cannot run here (null when they can); printed once. */
export function kernelSkipReason(): string | null {
  if (cachedSkip !== undefined) return cachedSkip;
  cachedSkip = namespaceSkipReason(PREFIX, ["ip", "bridge", "tcpdump", "python3", "iptables", "conntrack"], "network namespaces need CAP_SYS_ADMIN");
  if (cachedSkip !== null) console.log(`kernel tests skipped: ${cachedSkip}`);
  return cachedSkip;
}

export class KernelLab extends NetnsLab {
  private readonly injectors = new Map<string, Injector>();

  constructor(tag: string) {
    super(PREFIX, tag, pythonBin());
  }

  /** Runs a python3 program (`python3 -c code args...`) in ns as a long-lived process. */
  spawnPython(ns: string, code: string, args: readonly string[] = []): ChildProcess {
    return this.track(spawn("ip", ["netns", "exec", ns, this.python, "-u", "-c", code, ...args], { stdio: ["pipe", "pipe", "pipe"] }));
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

  /** Starts a long-running process in ns; it is stopped by close(). */
  spawn(ns: string, cmd: string, args: readonly string[]): ChildProcess {
    return this.track(spawn("ip", ["netns", "exec", ns, cmd, ...args], { stdio: ["ignore", "pipe", "pipe"] }));
  }

  private track(child: ChildProcess): ChildProcess {
    this.stoppers.push(() => stopChild(child));
    return child;
  }
}

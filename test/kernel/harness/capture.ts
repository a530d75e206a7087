// KernelCapture: tcpdump on one interface of a lab namespace, writing a pcap that is read back with
// the project's own reader (src/pcap openCapture). Frames are available while the capture runs, so a
// test polls for the frames it waits on instead of sleeping.

import { join } from "node:path";
import type { ChildProcess } from "node:child_process";
import { openCapture } from "../../../src/pcap/open-capture.js";
import type { KernelLab } from "./lab.js";
import { stopChild, waitUntil } from "./wait.js";

/** Which frames tcpdump keeps (`-Q`): received by the interface, sent by it, or both. */
export type CaptureDirection = "in" | "out" | "inout";

export interface CapturedFrame {
  readonly data: Uint8Array;
  readonly tsNs: bigint;
}

export class KernelCapture {
  private constructor(
    readonly ns: string,
    readonly dev: string,
    private readonly dir: string,
    private readonly child: ChildProcess,
  ) {}

  private get file(): string {
    return join(this.dir, "capture.pcap");
  }

  /** Starts tcpdump and resolves once it listens (its "listening on" line). */
  static async start(lab: KernelLab, ns: string, dev: string, direction: CaptureDirection = "in"): Promise<KernelCapture> {
    const dir = lab.tempDir();
    const child = lab.spawn(ns, "tcpdump", [
      "-i", dev, "-Q", direction, "-U", "--immediate-mode", "--time-stamp-precision=nano", "-n", "-s", "0", "-Z", "root", "-w", join(dir, "capture.pcap"),
    ]);
    const cap = new KernelCapture(ns, dev, dir, child);
    let stderr = "";
    child.stderr?.on("data", (d: Buffer) => (stderr += d.toString()));
    let exited = false;
    child.once("exit", () => (exited = true));
    await waitUntil(() => exited || stderr.includes("listening on"), `tcpdump on ${dev} to start`);
    if (exited) throw new Error(`tcpdump on ${dev} in ${ns} failed: ${stderr.trim()}`);
    return cap;
  }

  /** The frames captured so far (a record still being written is left for the next read). */
  async frames(): Promise<Uint8Array[]> {
    return (await this.records()).map((r) => r.data);
  }

  /** Frames with their capture time (ns, the kernel's clock: comparable across interfaces). */
  async records(): Promise<CapturedFrame[]> {
    const out: CapturedFrame[] = [];
    try {
      for await (const rec of openCapture(this.file, { lenient: true })) out.push({ data: rec.data.slice(), tsNs: rec.tsNs });
    } catch {
      // header not written yet
    }
    return out;
  }

  /** Polls until pred holds for the captured frames; returns them. */
  async waitFor(pred: (frames: Uint8Array[]) => boolean, what: string, timeoutMs = 10_000): Promise<Uint8Array[]> {
    let last: Uint8Array[] = [];
    await waitUntil(async () => pred((last = await this.frames())), () => `${what} (on ${this.dev}: ${last.length} frames so far)`, timeoutMs);
    return last;
  }

  /** Stops tcpdump and returns everything it captured. */
  async stop(): Promise<Uint8Array[]> {
    await stopChild(this.child);
    return this.frames();
  }

  /** Stops tcpdump and returns everything it captured, with timestamps. */
  async stopRecords(): Promise<CapturedFrame[]> {
    await stopChild(this.child);
    return this.records();
  }
}

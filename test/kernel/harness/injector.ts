// Injector: one python3 process per namespace that sends exact Ethernet frames out of an interface
// through AF_PACKET (dev_queue_xmit: no stack, no checksum or header changes), line by line, so a
// test pays the interpreter's start-up once per namespace rather than per frame.

import type { ChildProcess } from "node:child_process";
import { waitUntil } from "./wait.js";

export class Injector {
  private buffered = "";
  private readonly replies: string[] = [];
  private exited = false;

  constructor(private readonly child: ChildProcess, readonly ns: string) {
    child.stdout?.on("data", (d: Buffer) => {
      this.buffered += d.toString();
      let nl: number;
      while ((nl = this.buffered.indexOf("\n")) >= 0) {
        this.replies.push(this.buffered.slice(0, nl));
        this.buffered = this.buffered.slice(nl + 1);
      }
    });
    child.once("exit", () => (this.exited = true));
  }

  async ready(): Promise<void> {
    await this.reply("injector start-up");
  }

  /** Sends the frames out of dev, in order; resolves once they have all been handed to the kernel. */
  async send(dev: string, frames: readonly Uint8Array[]): Promise<void> {
    this.child.stdin?.write(`${dev} ${frames.map((f) => Buffer.from(f).toString("hex")).join(" ")}\n`);
    const r = await this.reply(`injection on ${dev} in ${this.ns}`);
    if (r !== "ok") throw new Error(`injecting on ${dev} in ${this.ns}: ${r}`);
  }

  private async reply(what: string): Promise<string> {
    await waitUntil(() => this.replies.length > 0 || this.exited, what);
    const r = this.replies.shift();
    if (r === undefined) throw new Error(`injector in ${this.ns} exited during ${what}`);
    return r;
  }
}

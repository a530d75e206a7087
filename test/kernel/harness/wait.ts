// Bounded waiting for the kernel lab: poll a condition (no fixed sleeps), stop a child process.

import type { ChildProcess } from "node:child_process";

/** SIGTERM, then SIGKILL if the process has not exited within 3 s. */
export function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(() => child.kill("SIGKILL"), 3000);
    child.once("exit", () => {
      clearTimeout(timer);
      resolve();
    });
    child.kill("SIGTERM");
  });
}

/** Polls cond every 20 ms until it holds or timeoutMs passes; throws naming `what` on timeout. */
export async function waitUntil(cond: () => boolean | Promise<boolean>, what: string | (() => string), timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await cond()) return;
    if (Date.now() > deadline) {
      throw new Error(`kernel lab: timed out after ${timeoutMs} ms waiting for ${typeof what === "string" ? what : what()}`);
    }
    await new Promise((r) => setTimeout(r, 20));
  }
}

// Lazy loader of the optional `cap` package (libpcap bindings). Nothing else in cnisim loads it, and
// only when a live interface is opened, so every other command works without cap or libpcap.

import { createRequire } from "node:module";
import { err, ok, type Result } from "../../util/result.js";
import { liveError, LiveErrorKind, type LiveError } from "./errors.js";

/** The part of cap's native `Cap` handle cnisim uses. */
export interface CapHandle {
  open(device: string, filter: string, bufSize: number, buffer: Buffer): string;
  close(): void;
  send(buffer: Buffer, nBytes?: number): void;
  on(event: "packet", listener: (nbytes: number, truncated: boolean) => void): unknown;
}

export interface CapDevice {
  readonly name: string;
  readonly description?: string;
  readonly addresses?: readonly { readonly addr?: string }[];
}

export interface CapModule {
  readonly Cap: { new (): CapHandle; deviceList(): CapDevice[] };
}

let cached: Result<CapModule, LiveError> | undefined;

/** Loads `cap` once; later calls return the same module or the same error. */
export function loadCap(): Result<CapModule, LiveError> {
  cached ??= requireCap();
  return cached;
}

function requireCap(): Result<CapModule, LiveError> {
  try {
    const mod = createRequire(import.meta.url)("cap") as Partial<CapModule>;
    if (typeof mod.Cap !== "function") {
      return err(liveError(LiveErrorKind.MODULE_MISSING, "", "the `cap` module has no Cap class", "reinstall the optional dependency: npm install cap"));
    }
    return ok(mod as CapModule);
  } catch (e) {
    return err(classifyLoadError(e));
  }
}

/** Turns a require() failure into what the user has to install. */
export function classifyLoadError(e: unknown): LiveError {
  const error = e as NodeJS.ErrnoException;
  const message = String(error?.message ?? e).split("\n")[0] ?? "";
  if (/libpcap/i.test(message)) {
    return liveError(LiveErrorKind.LIBPCAP_MISSING, "", message, "install libpcap (Debian/Ubuntu: apt-get install libpcap0.8)");
  }
  if (error?.code === "MODULE_NOT_FOUND" || error?.code === "ERR_MODULE_NOT_FOUND") {
    return liveError(
      LiveErrorKind.MODULE_MISSING,
      "",
      "the optional `cap` module is not installed",
      "npm install cap; building it needs libpcap-dev and a C++ toolchain",
    );
  }
  return liveError(LiveErrorKind.MODULE_MISSING, "", `the \`cap\` module failed to load: ${message}`, "rebuild it: npm rebuild cap");
}

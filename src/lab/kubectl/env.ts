// What a kubectl command runs with (the cluster, the script's files, stdin, output lines, the
// exec/top extensions) and what it returns: an exit code, and for a mistake in the script itself
// (unknown command or flag, bad syntax) the usage error that stops the lab.
import type { LabCluster } from "../cluster.js";
import type { LabExtensions } from "../extensions.js";
import type { LabFiles } from "../files.js";
import { humanDuration } from "./format.js";
import { flagString, type ParsedArgs } from "./flags.js";

export interface KubectlIo {
  out(line: string): void;
  err(line: string): void;
}

export interface KubectlEnv {
  readonly cluster: LabCluster;
  readonly files: LabFiles;
  readonly io: KubectlIo;
  readonly stdin: string | undefined;
  readonly extensions: LabExtensions;
}

export interface CommandResult {
  readonly exit: number;
  /** Set when the script itself is wrong; the lab stops here unless --keep-going. */
  readonly usage?: string;
}

export const done: CommandResult = { exit: 0 };
export const failed: CommandResult = { exit: 1 };

export function usage(message: string): CommandResult {
  return { exit: 1, usage: message };
}

/** Prints kubectl's "error: ..." line and fails. */
export function kubectlError(env: KubectlEnv, message: string): CommandResult {
  env.io.err(`error: ${message}`);
  return failed;
}

/** Prints kubectl's "Error from server (Reason): ..." line. */
export function serverError(env: KubectlEnv, reason: string, message: string): CommandResult {
  env.io.err(`Error from server (${reason}): ${message}`);
  return failed;
}

/** The namespace a command works in: -n, else the context's. */
export function namespaceOf(env: KubectlEnv, p: ParsedArgs): string {
  return flagString(p, "namespace") ?? env.cluster.namespace;
}

/** AGE text of a timestamp at the current simulated time. */
export function ageOf(env: KubectlEnv, timestamp: string | undefined): string {
  return humanDuration(secondsSince(env, timestamp));
}

export function secondsSince(env: KubectlEnv, timestamp: string | undefined): number {
  const at = env.cluster.wall.nsOf(timestamp);
  if (Number.isNaN(at)) return 0;
  return Math.floor((env.cluster.now - at) / 1e9);
}

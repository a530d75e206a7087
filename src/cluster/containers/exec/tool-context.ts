// What a command run by `kubectl exec` sees: its pod's network namespace, its container's files, the
// pod's resolver (the kubelet's resolv.conf: cluster DNS, search path, ndots 5), its image's C library,
// and stdout/stderr. Commands finish by calling done(exitCode), possibly after simulated time.
import type { NetNamespace } from "../../../net/stack/namespace.js";
import type { Resolver } from "../../workloads/dns/resolver.js";
import type { ContainerFiles } from "../files.js";

export interface ToolContext {
  readonly ns: NetNamespace;
  readonly files: ContainerFiles;
  /** Null when the cluster has no DNS (names do not resolve). */
  readonly resolver: Resolver | null;
  /** The cluster DNS address the resolver asks (for nslookup's header). */
  readonly nameserver: number | null;
  readonly libc: "musl" | "glibc";
  /** Appends raw text to stdout (may hold several lines). */
  stdout(text: string): void;
  /** One line on stderr. */
  stderr(line: string): void;
}

export type Tool = (ctx: ToolContext, args: readonly string[], done: (exitCode: number) => void) => void;

const decoder = new TextDecoder();
export const text = (b: Uint8Array): string => decoder.decode(b);

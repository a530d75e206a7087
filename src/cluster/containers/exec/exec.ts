// `kubectl exec POD [-c C] -- CMD...` on a running cluster: runs the command in the pod's container
// (argv directly, or `sh|bash -c 'LIST'` through the small shell), with the container's files and the
// pod's network, and runs the simulator until it finished. The tools an image has are the ones its
// real image ships: busybox (sh, echo, cat, rm, wget, ping, nslookup), nginx's Debian (sh, bash, echo,
// cat, rm, curl); other images get every tool (cnisim cannot know what was installed in them).
import type { ClusterRuntime } from "../../runtime.js";
import { LibC, podResolvConf, Resolver } from "../../workloads/dns/resolver.js";
import { ImageKind, imageKind, imageLibc } from "../image.js";
import { parseCommandList, type SimpleCommand } from "./shell-words.js";
import { cat, echo, rm } from "./file-tools.js";
import { curl, wget } from "./http-tools.js";
import { nslookup, ping } from "./net-tools.js";
import type { Tool, ToolContext } from "./tool-context.js";

export interface ExecOutput {
  readonly stdout: readonly string[];
  readonly stderr: readonly string[];
  readonly exitCode: number;
}

const TOOLS: Readonly<Record<string, Tool>> = { echo, cat, rm, wget, curl, ping, nslookup };
const SHELLS = new Set(["sh", "bash"]);
const IMAGE_TOOLS: Partial<Record<ImageKind, ReadonlySet<string>>> = {
  [ImageKind.BUSYBOX]: new Set(["sh", "echo", "cat", "rm", "wget", "ping", "nslookup"]),
  [ImageKind.NGINX]: new Set(["sh", "bash", "echo", "cat", "rm", "curl"]),
  [ImageKind.COREDNS]: new Set(),
};
/** Longest simulated time one exec may run (a wget to a dropped address retries SYNs for ~2 minutes). */
const EXEC_LIMIT_NS = 15 * 60 * 1e9;

const baseName = (p: string): string => p.split("/").pop() ?? p;

function missing(program: string): ExecOutput {
  return {
    stdout: [],
    stderr: [`OCI runtime exec failed: exec failed: unable to start container process: exec: "${program}": executable file not found in $PATH: unknown`],
    exitCode: 126,
  };
}

/** Runs argv in container `container` (default: the first) of pod `podKey` ("ns/name"). */
export function execInPod(rt: ClusterRuntime, podKey: string, container: string | undefined, argv: readonly string[]): ExecOutput {
  const pod = rt.pod(podKey);
  const [namespace, name] = [podKey.slice(0, podKey.indexOf("/")), podKey.slice(podKey.indexOf("/") + 1)];
  const spec = rt.store.get("Pod", namespace, name);
  const c = container === undefined ? spec?.spec?.containers[0] : spec?.spec?.containers.find((x) => x.name === container);
  const files = rt.workloads.files(podKey, c?.name);
  if (pod === undefined || c === undefined || files === undefined) {
    return { stdout: [], stderr: [`error: unable to upgrade connection: container not found ("${container ?? c?.name ?? ""}")`], exitCode: 1 };
  }
  const kind = imageKind(c.image);
  const has = (program: string): boolean => IMAGE_TOOLS[kind]?.has(program) ?? (SHELLS.has(program) || program in TOOLS);
  const program = baseName(argv[0] ?? "");
  if (!has(program)) return missing(argv[0] ?? "");
  const libc = imageLibc(c.image);
  const stdout: string[] = [];
  const stderr: string[] = [];
  const ctx: ToolContext = {
    ns: pod.ns,
    files,
    resolver: rt.clusterDns === null ? null : new Resolver(pod.ns, podResolvConf(namespace, rt.clusterDns), { libc: libc === "musl" ? LibC.MUSL : LibC.GLIBC }),
    nameserver: rt.clusterDns,
    libc,
    stdout: (t) => stdout.push(t),
    stderr: (l) => stderr.push(l),
  };
  let commands: SimpleCommand[];
  const shell = SHELLS.has(program) ? program : null;
  if (shell !== null) {
    if (argv[1] !== "-c" || argv[2] === undefined) return { stdout: [], stderr: [`cnisim: ${argv[0]} needs -c 'COMMANDS' (no interactive shell in the lab)`], exitCode: 1 };
    const parsed = parseCommandList(argv[2]);
    if (!parsed.ok) return { stdout: [], stderr: [`${shell}: ${parsed.error}`], exitCode: 2 };
    commands = parsed.commands;
  } else commands = [{ argv, redirect: null, joiner: ";" }];

  let exitCode = -1;
  runList(ctx, commands, shell, has, (code) => {
    exitCode = code;
  });
  const limit = rt.sim.now + EXEC_LIMIT_NS;
  while (exitCode < 0 && rt.sim.pending > 0 && rt.sim.now < limit) rt.sim.step();
  if (exitCode < 0) {
    stderr.push("cnisim: the command did not finish within 15 minutes of simulated time");
    exitCode = 137;
  }
  return { stdout: splitLines(stdout.join("")), stderr, exitCode };
}

function splitLines(text: string): string[] {
  if (text === "") return [];
  const lines = text.split("\n");
  if (lines[lines.length - 1] === "") lines.pop();
  return lines;
}

/** Runs the list in order: `&&` runs after success, `||` after failure, `;` always. */
function runList(ctx: ToolContext, commands: readonly SimpleCommand[], shell: string | null, has: (p: string) => boolean, done: (code: number) => void): void {
  const next = (i: number, last: number): void => {
    const cmd = commands[i];
    if (cmd === undefined) return done(last);
    if ((cmd.joiner === "&&" && last !== 0) || (cmd.joiner === "||" && last === 0)) return next(i + 1, last);
    runOne(ctx, cmd, shell, has, (code) => next(i + 1, code));
  };
  next(0, 0);
}

function runOne(ctx: ToolContext, cmd: SimpleCommand, shell: string | null, has: (p: string) => boolean, done: (code: number) => void): void {
  const program = cmd.argv[0]!;
  const tool = TOOLS[baseName(program)];
  if (tool === undefined || !has(baseName(program))) {
    ctx.stderr(shell === "bash" ? `bash: line 1: ${program}: command not found` : `${shell ?? "sh"}: ${program}: not found`);
    return done(127);
  }
  if (cmd.redirect === null) return tool(ctx, cmd.argv.slice(1), done);
  const redirect = cmd.redirect;
  const captured: string[] = [];
  const sub: ToolContext = { ...ctx, stdout: (t) => captured.push(t) };
  const old = redirect.append ? new TextDecoder().decode(ctx.files.read(redirect.file) ?? new Uint8Array(0)) : "";
  const e = ctx.files.write(redirect.file, new TextEncoder().encode(old));
  if (e !== null) {
    ctx.stderr(shell === "bash" ? `bash: line 1: ${redirect.file}: ${e}` : `${shell ?? "sh"}: can't create ${redirect.file}: ${e}`);
    return done(1);
  }
  tool(sub, cmd.argv.slice(1), (code) => {
    ctx.files.write(redirect.file, new TextEncoder().encode(old + captured.join("")));
    done(code);
  });
}

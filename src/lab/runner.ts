// Runs a lab script against a LabCluster: each step is a shell command line (kubectl, kubens,
// sleep, cat, echo) possibly piped through text filters or redirected to a file; simulated time
// advances by the step between commands. A mistake in the script (unknown command or flag, bad
// syntax, a manifest that does not load) stops the run unless keepGoing; kubectl's own errors
// (NotFound, a refused drain, ...) are printed as kubectl prints them and the script goes on.
import type { LabCluster } from "./cluster.js";
import { parseSleep } from "./duration.js";
import type { LabExtensions } from "./extensions.js";
import type { LabFiles } from "./files.js";
import { textFilter, type TextFilter } from "./filters.js";
import { kubectl } from "./kubectl/kubectl.js";
import { CONTEXT_NAME } from "./kubectl/misc.js";
import { usage, type CommandResult, type KubectlIo } from "./kubectl/env.js";
import { parseScript, type ScriptStep } from "./script.js";
import { parseCommandList, type Pipeline } from "./words.js";

export interface LabSink {
  out(line: string): void;
  err(line: string): void;
}

export interface LabOptions {
  readonly files: LabFiles;
  /** Simulated time between commands (default 10 s). */
  readonly stepNs?: number;
  /** Simulated time before the first command, for the initial workloads to start (default 60 s). */
  readonly warmupNs?: number;
  readonly keepGoing?: boolean;
  /** Print each command as "$ command" before its output (default true). */
  readonly echo?: boolean;
  readonly extensions?: LabExtensions;
  /** Name of the script in error messages. */
  readonly scriptName?: string;
}

export interface OutputLine {
  readonly stream: "out" | "err";
  readonly text: string;
}

export interface StepRecord {
  readonly line: number;
  readonly command: string;
  readonly stdout: string[];
  readonly stderr: string[];
  /** stdout and stderr lines in the order they were written. */
  readonly output: OutputLine[];
  readonly exit: number;
  /** The script error that stopped (or, with keepGoing, would have stopped) the run. */
  readonly error?: string;
}

export interface LabResult {
  readonly ok: boolean;
  readonly steps: StepRecord[];
  /** Script errors, each naming its line. */
  readonly errors: string[];
}

const EDITORS = new Set(["vim", "vi", "nano", "emacs"]);

function shellCommand(cluster: LabCluster, options: LabOptions, argv: readonly string[], stdin: string | undefined, io: KubectlIo): CommandResult {
  const [program, ...args] = argv;
  switch (program) {
    case "kubectl":
    case "k":
      return kubectl({ cluster, files: options.files, io, stdin, extensions: options.extensions ?? {} }, args);
    case "kubens": {
      if (args.length !== 1) return usage("kubens NAMESPACE");
      cluster.namespace = args[0]!;
      io.out(`Context "${CONTEXT_NAME}" modified.`);
      io.out(`Active namespace is "${args[0]}".`);
      return { exit: 0 };
    }
    case "sleep": {
      if (args.length !== 1) return usage("sleep SECONDS");
      const d = parseSleep(args[0]!);
      if (!d.ok) return usage(d.error);
      cluster.advance(d.value);
      return { exit: 0 };
    }
    case "cat": {
      if (args.length === 0) {
        if (stdin === undefined) return usage("cat without a file needs a here-document (cat > FILE <<EOF)");
        for (const l of stdin.replace(/\n$/, "").split("\n")) io.out(l);
        return { exit: 0 };
      }
      for (const f of args) {
        const r = options.files.read(f);
        if (!r.ok) {
          io.err(`cat: ${f}: No such file or directory`);
          return { exit: 1 };
        }
        for (const l of r.value.replace(/\n$/, "").split("\n")) io.out(l);
      }
      return { exit: 0 };
    }
    case "echo":
      io.out(args.join(" "));
      return { exit: 0 };
    case "clear":
      return { exit: 0 };
    default:
      if (program !== undefined && EDITORS.has(program)) return usage(`${program} is interactive; write the file with: cat > ${args[0] ?? "FILE"} <<EOF ... EOF`);
      return usage(`unknown command "${program ?? ""}" (a lab runs kubectl, kubens, sleep, cat, echo)`);
  }
}

interface StepOutput {
  readonly stdout: string[];
  readonly stderr: string[];
  readonly output: OutputLine[];
}

function runPipeline(cluster: LabCluster, options: LabOptions, pipeline: Pipeline, stdin: string | undefined, sink: StepOutput): CommandResult {
  const emit = (stream: "out" | "err", text: string): void => {
    (stream === "out" ? sink.stdout : sink.stderr).push(text);
    sink.output.push({ stream, text });
  };
  const { commands, redirect } = pipeline;
  const filters: TextFilter[] = [];
  for (const argv of commands.slice(1)) {
    const f = textFilter(argv);
    if (!f.ok) return usage(f.error);
    filters.push(f.value);
  }
  const captured: string[] = [];
  const piping = filters.length > 0 || redirect !== null;
  const io: KubectlIo = { out: (l) => (piping ? captured.push(l) : emit("out", l)), err: (l) => emit("err", l) };
  const result = shellCommand(cluster, options, commands[0]!, stdin, io);
  if (piping) {
    let lines = captured;
    for (const f of filters) lines = f(lines);
    if (redirect !== null) options.files.write(redirect.file, lines.length === 0 ? "" : lines.join("\n") + "\n", redirect.append);
    else for (const l of lines) emit("out", l);
  }
  return result.usage === undefined ? result : { ...result, usage: `${commands[0]!.join(" ")}: ${result.usage}` };
}

/** Runs one script line: pipelines joined by ";", "&&", "||", with no simulated time between them. */
function runStep(cluster: LabCluster, options: LabOptions, step: ScriptStep): { record: StepRecord; error: string | null } {
  const out: StepOutput = { stdout: [], stderr: [], output: [] };
  const fail = (message: string, exit: number): { record: StepRecord; error: string } => {
    const error = `${options.scriptName ?? "script"}:${step.line}: ${message}`;
    return { record: { line: step.line, command: step.command, ...out, exit, error }, error };
  };
  const parsed = parseCommandList(step.command);
  if (parsed.items === null) return fail(parsed.error ?? "cannot parse the command", 2);
  let exit = 0;
  for (const { join, pipeline } of parsed.items) {
    if ((join === "&&" && exit !== 0) || (join === "||" && exit === 0)) continue;
    const result = runPipeline(cluster, options, pipeline, step.stdin, out);
    if (result.usage !== undefined) return fail(result.usage, result.exit);
    exit = result.exit;
  }
  return { record: { line: step.line, command: step.command, ...out, exit }, error: null };
}

export function runLab(cluster: LabCluster, script: string, options: LabOptions, sink: LabSink): LabResult {
  const parsed = parseScript(script);
  const name = options.scriptName ?? "script";
  const errors = parsed.errors.map((e) => `${name}:${e.line}: ${e.message}`);
  for (const e of errors) sink.err(`cnisim lab: ${e}`);
  if (errors.length > 0 && options.keepGoing !== true) return { ok: false, steps: [], errors };
  const steps: StepRecord[] = [];
  cluster.advance(options.warmupNs ?? 60e9);
  for (const step of parsed.steps) {
    if (options.echo !== false) sink.out(`$ ${step.command}${step.stdin === undefined ? "" : " <<EOF"}`);
    const { record, error } = runStep(cluster, options, step);
    for (const l of record.output) (l.stream === "out" ? sink.out : sink.err)(l.text);
    steps.push(record);
    if (error !== null) {
      errors.push(error);
      sink.err(`cnisim lab: ${error}`);
      if (options.keepGoing !== true) return { ok: false, steps, errors };
    }
    cluster.advance(options.stepNs ?? 10e9);
  }
  return { ok: errors.length === 0, steps, errors };
}

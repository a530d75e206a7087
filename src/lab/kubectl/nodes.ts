// kubectl cordon / uncordon / drain. Drain runs in simulated time until kubectl would return:
// every eviction done (PDB-refused ones retried every 5 s) or the drain refused.
import { DrainRun, setCordon } from "../../controllers/index.js";
import { compileSelector } from "../../k8s/selector.js";
import { parseGoDuration } from "../duration.js";
import { done, failed, kubectlError, serverError, usage, type CommandResult, type KubectlEnv } from "./env.js";
import { flagBool, flagString, parseFlags } from "./flags.js";
import { resourceType } from "./resources.js";
import { parseSelectorText } from "./selector-text.js";

/** How long a lab lets kubectl drain wait for evictions (simulated; kubectl itself would wait forever). */
const DRAIN_LIMIT_NS = 60 * 60 * 1e9;

function nodeNames(args: readonly string[]): { names: string[] } | { result: CommandResult } {
  const names: string[] = [];
  for (const a of args) {
    if (a.includes("/")) {
      const [t, n] = a.split("/");
      if (resourceType(t!)?.kind !== "Node") return { result: usage(`expected resource of type node, got "${t}"`) };
      names.push(n!);
    } else names.push(a);
  }
  if (names.length === 0) return { result: usage("USAGE: NODE [flags]") };
  return { names };
}

export function cordon(env: KubectlEnv, words: readonly string[], on: boolean): CommandResult {
  const parsed = parseFlags(words, { "dry-run": { kind: "string" }, selector: { kind: "string", short: "l" } });
  if (!parsed.ok) return usage(parsed.error);
  const r = nodeNames(parsed.value.args);
  if ("result" in r) return r.result;
  for (const name of r.names) {
    if (env.cluster.store.get("Node", undefined, name) === undefined) return serverError(env, "NotFound", `nodes "${name}" not found`);
    const outcome = setCordon(env.cluster.store, name, on);
    if (!outcome.ok) return kubectlError(env, `unable to ${on ? "cordon" : "uncordon"} node "${name}": ${outcome.error.message}`);
    env.io.out(`node/${name} ${outcome.value}`);
  }
  return done;
}

export function drain(env: KubectlEnv, words: readonly string[]): CommandResult {
  const parsed = parseFlags(words, {
    "ignore-daemonsets": { kind: "bool" },
    "delete-emptydir-data": { kind: "bool" },
    "delete-local-data": { kind: "bool" },
    force: { kind: "bool" },
    "pod-selector": { kind: "string" },
    timeout: { kind: "string" },
    "grace-period": { kind: "string" },
  });
  if (!parsed.ok) return usage(parsed.error);
  const p = parsed.value;
  const r = nodeNames(p.args);
  if ("result" in r) return r.result;
  if (flagBool(p, "delete-local-data")) env.io.err("Flag --delete-local-data has been deprecated, This option is deprecated and will be deleted. Use --delete-emptydir-data.");
  let timeoutNs = 0;
  const timeoutText = flagString(p, "timeout");
  if (timeoutText !== undefined) {
    const t = parseGoDuration(timeoutText);
    if (!t.ok) return usage(`invalid argument "${timeoutText}" for "--timeout" flag: ${t.error}`);
    timeoutNs = t.value;
  }
  let podSelector: ((l: Readonly<Record<string, string>>) => boolean) | undefined;
  const selText = flagString(p, "pod-selector");
  if (selText !== undefined) {
    const sel = parseSelectorText(selText);
    if (!sel.ok) return kubectlError(env, "--pod-selector=<pod_selector> must be a valid label selector");
    const compiled = compileSelector(sel.value);
    podSelector = (l) => compiled.matches(l);
  }
  for (const name of r.names) {
    if (env.cluster.store.get("Node", undefined, name) === undefined) return serverError(env, "NotFound", `nodes "${name}" not found`);
    const run = new DrainRun(
      env.cluster.manager.ctx,
      name,
      {
        ignoreDaemonSets: flagBool(p, "ignore-daemonsets"),
        deleteEmptyDirData: flagBool(p, "delete-emptydir-data") || flagBool(p, "delete-local-data"),
        force: flagBool(p, "force"),
        timeoutNs,
        ...(podSelector === undefined ? {} : { podSelector }),
      },
      { out: (l) => env.io.out(l), err: (l) => env.io.err(l) },
    );
    run.start();
    const finished = env.cluster.runUntil(() => run.state !== "running", DRAIN_LIMIT_NS);
    if (!finished) return kubectlError(env, `cnisim lab: drain of node "${name}" did not finish within 1h of simulated time`);
    if (run.state === "failed") {
      env.io.err(`error: ${run.error}`);
      return failed;
    }
  }
  return done;
}

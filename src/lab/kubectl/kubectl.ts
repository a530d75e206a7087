// kubectl's command dispatch in a lab: the verb picks the command; an unknown verb is a usage error.
import { applyOrCreate, deleteCommand } from "./manifests.js";
import { create, expose, run } from "./create.js";
import { describe } from "./describe-command.js";
import { usage, type CommandResult, type KubectlEnv } from "./env.js";
import { get } from "./get.js";
import { label } from "./label.js";
import { config, exec, logs, top, version } from "./misc.js";
import { cordon, drain } from "./nodes.js";
import { taint } from "./taint.js";
import { rollout, scale } from "./workloads.js";

type Verb = (env: KubectlEnv, words: readonly string[]) => CommandResult;

const VERBS: Readonly<Record<string, Verb>> = {
  get,
  describe,
  apply: (env, w) => applyOrCreate(env, w, "apply"),
  create,
  delete: deleteCommand,
  run,
  expose,
  label,
  taint,
  cordon: (env, w) => cordon(env, w, true),
  uncordon: (env, w) => cordon(env, w, false),
  drain,
  scale,
  rollout,
  config,
  exec,
  logs,
  top,
  version,
};

/** Runs `kubectl ARGS...` (the words after "kubectl"). */
export function kubectl(env: KubectlEnv, args: readonly string[]): CommandResult {
  // Global flags may come before the verb: kubectl -n web get pods.
  const leading: string[] = [];
  let i = 0;
  while (i < args.length && args[i]!.startsWith("-")) {
    const a = args[i]!;
    leading.push(a);
    i++;
    if ((a === "-n" || a === "--namespace") && i < args.length) leading.push(args[i++]!);
  }
  const [verb, ...after] = args.slice(i);
  const rest = [...after, ...leading];
  if (verb === undefined) return usage("kubectl needs a command, e.g. kubectl get pods");
  const handler = VERBS[verb];
  if (handler === undefined) return usage(`unknown command "${verb}" for "kubectl"`);
  return handler(env, rest);
}

export const KUBECTL_VERBS: readonly string[] = Object.keys(VERBS);

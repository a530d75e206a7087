// kubectl config set-context --current --namespace, kubectl exec, logs and top (through the lab's
// extensions), kubectl version.
import { NOT_AVAILABLE } from "../extensions.js";
import { done, failed, kubectlError, namespaceOf, serverError, usage, type CommandResult, type KubectlEnv } from "./env.js";
import { flagBool, flagString, parseFlags } from "./flags.js";
import { resourceType } from "./resources.js";

export const CONTEXT_NAME = "kubernetes-admin@kubernetes";

export function config(env: KubectlEnv, words: readonly string[]): CommandResult {
  const [sub, ...rest] = words;
  if (sub !== "set-context") return usage(`cnisim's kubectl config supports set-context --current --namespace=NS, not "${sub ?? ""}"`);
  const parsed = parseFlags(rest, { current: { kind: "bool" } });
  if (!parsed.ok) return usage(parsed.error);
  const p = parsed.value;
  if (!flagBool(p, "current") && p.args[0] !== CONTEXT_NAME) return usage("set-context needs --current (or the context name " + CONTEXT_NAME + ")");
  const ns = flagString(p, "namespace");
  if (ns !== undefined) env.cluster.namespace = ns;
  env.io.out(`Context "${CONTEXT_NAME}" modified.`);
  return done;
}

export function exec(env: KubectlEnv, words: readonly string[]): CommandResult {
  const parsed = parseFlags(words, { container: { kind: "string", short: "c" }, stdin: { kind: "bool", short: "i" }, tty: { kind: "bool", short: "t" } });
  if (!parsed.ok) return usage(parsed.error);
  const p = parsed.value;
  const [target, ...extra] = p.args;
  if (target === undefined) return usage("pod or type/name must be specified");
  if (p.rest === null || p.rest.length === 0) return usage("you must specify at least one command for the container (kubectl exec POD -- COMMAND)");
  if (extra.length > 0) return usage(`exec [POD] [COMMAND] is not supported anymore. Use exec [POD] -- [COMMAND] instead`);
  let name = target;
  if (target.includes("/")) {
    const [t, n] = target.split("/");
    if (resourceType(t!)?.kind !== "Pod") return usage(`cnisim's kubectl exec takes a pod, not "${t}"`);
    name = n!;
  }
  const ns = namespaceOf(env, p);
  const pod = env.cluster.store.get("Pod", ns, name);
  if (pod === undefined) return serverError(env, "NotFound", `pods "${name}" not found`);
  const container = flagString(p, "container") ?? pod.spec?.containers[0]?.name ?? "";
  if (pod.status?.phase !== "Running") return kubectlError(env, `unable to upgrade connection: container not found ("${container}")`);
  if (env.extensions.exec === undefined) {
    env.io.err(NOT_AVAILABLE.exec);
    return failed;
  }
  const r = env.extensions.exec({ cluster: env.cluster, pod, container, argv: p.rest });
  for (const l of r.stdout) env.io.out(l);
  for (const l of r.stderr) env.io.err(l);
  if (r.exitCode !== 0) env.io.err(`command terminated with exit code ${r.exitCode}`);
  return r.exitCode === 0 ? done : failed;
}

export function logs(env: KubectlEnv, words: readonly string[]): CommandResult {
  const parsed = parseFlags(words, { container: { kind: "string", short: "c" }, tail: { kind: "string" } });
  if (!parsed.ok) return usage(parsed.error);
  const p = parsed.value;
  const [target] = p.args;
  if (target === undefined) return usage("expected POD or TYPE/NAME is a required argument for the logs command");
  const name = target.startsWith("pod/") ? target.slice(4) : target;
  const tailText = flagString(p, "tail") ?? "-1";
  const tail = Number(tailText);
  if (!Number.isInteger(tail)) return usage(`invalid argument "${tailText}" for "--tail" flag: strconv.ParseInt: parsing "${tailText}": invalid syntax`);
  const pod = env.cluster.store.get("Pod", namespaceOf(env, p), name);
  if (pod === undefined) return serverError(env, "NotFound", `pods "${name}" not found`);
  const container = flagString(p, "container") ?? pod.spec?.containers[0]?.name ?? "";
  if (env.extensions.logs === undefined) {
    env.io.err(NOT_AVAILABLE.logs);
    return failed;
  }
  const r = env.extensions.logs({ cluster: env.cluster, pod, container, tail });
  for (const l of r.stdout) env.io.out(l);
  for (const l of r.stderr) env.io.err(l);
  return r.exitCode === 0 ? done : failed;
}

export function top(env: KubectlEnv, words: readonly string[]): CommandResult {
  const [what, ...rest] = words;
  const kind = what === undefined ? undefined : resourceType(what)?.kind;
  if (kind !== "Node" && kind !== "Pod") return usage(`kubectl top takes node or pod, not "${what ?? ""}"`);
  const parsed = parseFlags(rest, { "all-namespaces": { kind: "bool", short: "A" }, containers: { kind: "bool" }, "sort-by": { kind: "string" } });
  if (!parsed.ok) return usage(parsed.error);
  const p = parsed.value;
  if (env.extensions.top === undefined) {
    env.io.err(NOT_AVAILABLE.top);
    return failed;
  }
  const r = env.extensions.top({
    cluster: env.cluster,
    what: kind === "Node" ? "node" : "pod",
    names: p.args,
    namespace: kind === "Node" || flagBool(p, "all-namespaces") ? null : namespaceOf(env, p),
  });
  for (const l of r.stdout) env.io.out(l);
  for (const l of r.stderr) env.io.err(l);
  return r.exitCode === 0 ? done : failed;
}

export function version(env: KubectlEnv, words: readonly string[]): CommandResult {
  const parsed = parseFlags(words, { client: { kind: "bool" } });
  if (!parsed.ok) return usage(parsed.error);
  const v = env.cluster.model.kubernetesVersion;
  env.io.out(`Client Version: ${v}`);
  env.io.out("Kustomize Version: v5.0.4-0.20230601165947-6ce0bf390ce3");
  if (!flagBool(parsed.value, "client")) env.io.out(`Server Version: ${v}`);
  return done;
}

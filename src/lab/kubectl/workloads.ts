// kubectl scale and kubectl rollout restart|status for Deployments (and scale for ReplicaSets).
import { done, kubectlError, namespaceOf, serverError, usage, type CommandResult, type KubectlEnv } from "./env.js";
import { flagString, parseFlags } from "./flags.js";
import { resourceType, splitTypeAndNames } from "./resources.js";

/** How long rollout status waits (simulated), like its default --timeout of 0 = forever, capped. */
const ROLLOUT_LIMIT_NS = 10 * 60 * 1e9;

export function scale(env: KubectlEnv, words: readonly string[]): CommandResult {
  const parsed = parseFlags(words, { replicas: { kind: "string" }, "current-replicas": { kind: "string" } });
  if (!parsed.ok) return usage(parsed.error);
  const p = parsed.value;
  const text = flagString(p, "replicas");
  if (text === undefined) return usage("required flag(s) \"replicas\" not set");
  const replicas = Number(text);
  if (!Number.isInteger(replicas) || replicas < 0) return kubectlError(env, "The --replicas=COUNT flag is required, and COUNT must be greater than or equal to 0");
  const split = splitTypeAndNames(p.args);
  if (split === null || split.names.length === 0) return usage("resource(s) were provided, but no name was specified");
  const type = resourceType(split.type);
  if (type?.kind !== "Deployment" && type?.kind !== "ReplicaSet") return usage(`cnisim's kubectl scale supports deployments and replicasets, not "${split.type}"`);
  const ns = namespaceOf(env, p);
  for (const name of split.names) {
    const r = env.cluster.store.modify(type.kind, ns, name, (o) => {
      o.spec = { ...o.spec!, replicas };
    });
    if (!r.ok) return serverError(env, "NotFound", `${type.plural} "${name}" not found`);
    env.io.out(`${type.singular}/${name} scaled`);
  }
  return done;
}

export function rollout(env: KubectlEnv, words: readonly string[]): CommandResult {
  const [sub, ...rest] = words;
  const parsed = parseFlags(rest, { timeout: { kind: "string" }, watch: { kind: "bool", short: "w" } });
  if (!parsed.ok) return usage(parsed.error);
  const p = parsed.value;
  if (sub !== "restart" && sub !== "status") return usage(`cnisim's kubectl rollout supports restart and status, not "${sub ?? ""}"`);
  const split = splitTypeAndNames(p.args);
  if (split === null || split.names.length === 0) return usage("resource(s) were provided, but no name was specified");
  const type = resourceType(split.type);
  if (type?.kind !== "Deployment") return usage(`cnisim's kubectl rollout supports deployments, not "${split.type}"`);
  const ns = namespaceOf(env, p);
  for (const name of split.names) {
    if (env.cluster.store.get("Deployment", ns, name) === undefined) return serverError(env, "NotFound", `deployments.apps "${name}" not found`);
    if (sub === "restart") {
      const at = env.cluster.wall.timestamp();
      env.cluster.store.modify("Deployment", ns, name, (d) => {
        const template = d.spec!.template;
        template.metadata = { ...template.metadata, annotations: { ...template.metadata?.annotations, "kubectl.kubernetes.io/restartedAt": at } };
      });
      env.io.out(`deployment.apps/${name} restarted`);
      continue;
    }
    let last = "";
    const complete = (): boolean => {
      const d = env.cluster.store.get("Deployment", ns, name);
      if (d === undefined) return true;
      const want = d.spec?.replicas ?? 1;
      const s = d.status ?? {};
      let line = "";
      if ((s.observedGeneration ?? 0) < (d.metadata.generation ?? 1)) line = "Waiting for deployment spec update to be observed...";
      else if ((s.updatedReplicas ?? 0) < want) line = `Waiting for deployment "${name}" rollout to finish: ${s.updatedReplicas ?? 0} out of ${want} new replicas have been updated...`;
      else if ((s.replicas ?? 0) > (s.updatedReplicas ?? 0)) line = `Waiting for deployment "${name}" rollout to finish: ${(s.replicas ?? 0) - (s.updatedReplicas ?? 0)} old replicas are pending termination...`;
      else if ((s.availableReplicas ?? 0) < (s.updatedReplicas ?? 0)) line = `Waiting for deployment "${name}" rollout to finish: ${s.availableReplicas ?? 0} of ${s.updatedReplicas ?? 0} updated replicas are available...`;
      if (line === "") return true;
      if (line !== last) env.io.out(line);
      last = line;
      return false;
    };
    if (!env.cluster.runUntil(complete, ROLLOUT_LIMIT_NS)) return kubectlError(env, "timed out waiting for the condition");
    env.io.out(`deployment "${name}" successfully rolled out`);
  }
  return done;
}

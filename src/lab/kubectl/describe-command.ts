// kubectl describe TYPE [NAME|PREFIX...]: pods and nodes (a name that matches no object exactly
// selects every object whose name starts with it, as kubectl does).
import { eventsFor } from "../../controllers/index.js";
import type { KubeObject } from "../../k8s/index.js";
import { describeNode, describePod } from "./describe.js";
import { done, failed, namespaceOf, secondsSince, serverError, usage, type CommandResult, type KubectlEnv } from "./env.js";
import { parseFlags } from "./flags.js";
import { resourceType, splitTypeAndNames } from "./resources.js";

export function describe(env: KubectlEnv, words: readonly string[]): CommandResult {
  const parsed = parseFlags(words, { selector: { kind: "string", short: "l" }, "all-namespaces": { kind: "bool", short: "A" } });
  if (!parsed.ok) return usage(parsed.error);
  const p = parsed.value;
  const split = splitTypeAndNames(p.args);
  if (split === null) return usage("You must specify the type of resource to describe.");
  const type = resourceType(split.type);
  if (type === undefined) return usage(`the server doesn't have a resource type "${split.type}"`);
  if (type.kind !== "Pod" && type.kind !== "Node") return usage(`cnisim's kubectl describe supports pods and nodes, not ${type.plural}`);
  const ns = type.namespaced ? namespaceOf(env, p) : undefined;
  const all = env.cluster.store.list(type.kind, ns === undefined ? {} : { namespace: ns }) as KubeObject[];
  let chosen: KubeObject[] = [];
  if (split.names.length === 0) chosen = all;
  for (const name of split.names) {
    const exact = all.find((o) => o.metadata.name === name);
    const matches = exact !== undefined ? [exact] : all.filter((o) => o.metadata.name.startsWith(name));
    if (matches.length === 0) {
      serverError(env, "NotFound", `${type.plural} "${name}" not found`);
      return failed;
    }
    chosen.push(...matches);
  }
  if (chosen.length === 0) {
    env.io.err(ns === undefined ? "No resources found" : `No resources found in ${ns} namespace.`);
    return done;
  }
  chosen.forEach((obj, i) => {
    if (i > 0) {
      env.io.out("");
      env.io.out("");
    }
    const ctx = { since: (ts: string | undefined) => secondsSince(env, ts), events: eventsFor(env.cluster.store, obj) };
    const lines = obj.kind === "Pod" ? describePod(obj, ctx) : describeNode(obj as KubeObject<"Node">, ctx);
    for (const line of lines) env.io.out(line);
  });
  return done;
}

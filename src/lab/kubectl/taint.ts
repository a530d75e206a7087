// kubectl taint nodes NAME KEY[=VALUE]:EFFECT ... KEY[:EFFECT]- ... [--overwrite]: kubectl's
// parsing, its no-overwrite check, its reordering (new taints first, then the old ones kept)
// and its verdicts tainted / untainted / modified. NoExecute taints get timeAdded.
import type { Taint } from "kubernetes-types/core/v1.js";
import { done, kubectlError, serverError, usage, type CommandResult, type KubectlEnv } from "./env.js";
import { flagBool, parseFlags } from "./flags.js";
import { resourceType } from "./resources.js";

const EFFECTS = ["NoSchedule", "PreferNoSchedule", "NoExecute"];

function parseTaint(spec: string, removing: boolean): { taint: Taint } | { error: string } {
  const colon = spec.lastIndexOf(":");
  const keyValue = colon < 0 ? spec : spec.slice(0, colon);
  const effect = colon < 0 ? "" : spec.slice(colon + 1);
  if (!removing && effect === "") return { error: `invalid taint spec: ${spec}` };
  if (effect !== "" && !EFFECTS.includes(effect)) return { error: `invalid taint effect: ${effect}, unsupported taint effect` };
  const eq = keyValue.indexOf("=");
  const key = eq < 0 ? keyValue : keyValue.slice(0, eq);
  const value = eq < 0 ? undefined : keyValue.slice(eq + 1);
  if (key === "") return { error: `invalid taint spec: ${spec}` };
  return { taint: { key, effect, ...(value === undefined || value === "" ? {} : { value }) } };
}

const taintText = (t: Taint): string => `${t.key}${(t.value ?? "") === "" ? "" : `=${t.value}`}${t.effect === "" ? "" : `:${t.effect}`}`;

export function taint(env: KubectlEnv, words: readonly string[]): CommandResult {
  const parsed = parseFlags(words, { overwrite: { kind: "bool" }, all: { kind: "bool" }, selector: { kind: "string", short: "l" } });
  if (!parsed.ok) return usage(parsed.error);
  const p = parsed.value;
  const [typeText, ...rest] = p.args;
  let names: string[] = [];
  let specs: string[];
  if (typeText === undefined) return usage("at least one taint update is required");
  if (typeText.includes("/")) {
    names = [typeText.split("/")[1] ?? ""];
    specs = rest;
    if (resourceType(typeText.split("/")[0]!)?.kind !== "Node") return usage(`taints apply to nodes, not "${typeText}"`);
  } else {
    if (resourceType(typeText)?.kind !== "Node") return usage(`taints apply to nodes, not "${typeText}"`);
    const i = rest.findIndex((a) => a.includes(":") || a.includes("=") || a.endsWith("-"));
    names = i < 0 ? rest : rest.slice(0, i);
    specs = i < 0 ? [] : rest.slice(i);
  }
  if (flagBool(p, "all")) names = env.cluster.store.list("Node").map((n) => n.metadata.name);
  if (specs.length === 0) return kubectlError(env, "at least one taint update is required");
  const add: Taint[] = [];
  const remove: Taint[] = [];
  for (const s of specs) {
    const removing = s.endsWith("-");
    const r = parseTaint(removing ? s.slice(0, -1) : s, removing);
    if ("error" in r) return kubectlError(env, r.error);
    (removing ? remove : add).push(r.taint);
  }
  for (const a of add) if (remove.some((r) => r.key === a.key && r.effect === a.effect)) return kubectlError(env, "can not both modify and remove the following taint(s) in the same command: " + taintText(a));
  const overwrite = flagBool(p, "overwrite");
  for (const name of names) {
    const node = env.cluster.store.get("Node", undefined, name);
    if (node === undefined) return serverError(env, "NotFound", `nodes "${name}" not found`);
    const old = node.spec?.taints ?? [];
    if (!overwrite) {
      const clashes = add.filter((t) => old.some((o) => o.key === t.key && o.effect === t.effect));
      if (clashes.length > 0) {
        const msgs = clashes.map((t) => `node ${name} already has ${t.key} taint(s) with same effect(s) and --overwrite is false`);
        return kubectlError(env, msgs.length === 1 ? msgs[0]! : `[${msgs.join(", ")}]`);
      }
    }
    const now = env.cluster.wall.timestamp();
    const next: Taint[] = add.map((t) => (t.effect === "NoExecute" ? { ...t, timeAdded: now } : { ...t }));
    for (const o of old) if (!next.some((t) => t.key === o.key && t.effect === o.effect)) next.push(o);
    const added = next.length !== old.length;
    const errors: string[] = [];
    let deleted = false;
    for (const r of remove) {
      const before = next.length;
      for (let i = next.length - 1; i >= 0; i--) if (next[i]!.key === r.key && (r.effect === "" || next[i]!.effect === r.effect)) next.splice(i, 1);
      if (next.length === before) errors.push(`taint ${JSON.stringify(taintText(r))} not found`);
      else deleted = true;
    }
    if (errors.length > 0) return kubectlError(env, errors.length === 1 ? errors[0]! : `[${errors.join(", ")}]`);
    const verdict = (added && deleted) || overwrite ? "modified" : added ? "tainted" : "untainted";
    env.cluster.store.modify("Node", undefined, name, (n) => {
      const spec = (n.spec ??= {});
      if (next.length === 0) delete spec.taints;
      else spec.taints = next;
    });
    env.io.out(`node/${name} ${verdict}`);
  }
  return done;
}

// kubectl apply -f / create -f / delete -f: manifests from files the script wrote or names (or
// stdin with "-f -"), loaded and validated by the k8s loader, sent one object at a time, with
// kubectl's per-object lines ("deployment.apps/web created", `pod "x" deleted`) and errors.
import { formatDiagnostic, loadText, type KubeObject } from "../../k8s/index.js";
import { applyObject, createObject, deleteObject, isGone } from "./api.js";
import { done, failed, kubectlError, namespaceOf, serverError, usage, type CommandResult, type KubectlEnv } from "./env.js";
import { flagBool, flagList, flagString, parseFlags, type ParsedArgs } from "./flags.js";
import { resourceOfKind, resourceType, splitTypeAndNames } from "./resources.js";
import { parseSelectorText } from "./selector-text.js";
import { compileSelector } from "../../k8s/selector.js";

const FORCE_WARNING =
  "Warning: Immediate deletion does not wait for confirmation that the running resource has been terminated. The resource may continue to run on the cluster indefinitely.";
/** How long kubectl delete waits for the objects to go (simulated). */
const DELETE_WAIT_NS = 5 * 60 * 1e9;

interface Manifest {
  readonly file: string;
  readonly objects: KubeObject[];
}

function readManifests(env: KubectlEnv, p: ParsedArgs): { manifests: Manifest[]; result: CommandResult | null } {
  const files = flagList(p, "filename");
  const manifests: Manifest[] = [];
  for (const file of files) {
    let text: string;
    if (file === "-") {
      if (env.stdin === undefined) return { manifests, result: usage('"-f -" reads standard input: give the manifest in a here-document (<<EOF)') };
      text = env.stdin;
    } else {
      const r = env.files.read(file);
      if (!r.ok) return { manifests, result: usage(`the path "${file}" does not exist (${r.error})`) };
      text = r.value;
    }
    const loaded = loadText(text, file === "-" ? "STDIN" : file, { namespace: namespaceOf(env, p) });
    if (loaded.errors.length > 0) {
      return { manifests, result: usage(`error validating "${file}":\n${loaded.errors.map(formatDiagnostic).join("\n")}`) };
    }
    const objects = loaded.objects.map((o) => o.object);
    if (loaded.cluster !== undefined) return { manifests, result: usage(`"${file}": a cnisim Cluster object cannot be applied to a running lab; pass it to cnisim lab with -f`) };
    manifests.push({ file, objects });
  }
  return { manifests, result: null };
}

const MANIFEST_FLAGS = {
  filename: { kind: "list", short: "f" },
  "dry-run": { kind: "string" },
  output: { kind: "string", short: "o" },
  recursive: { kind: "bool", short: "R" },
} as const;

export function applyOrCreate(env: KubectlEnv, words: readonly string[], verb: "apply" | "create"): CommandResult {
  const parsed = parseFlags(words, MANIFEST_FLAGS);
  if (!parsed.ok) return usage(parsed.error);
  const p = parsed.value;
  if (flagList(p, "filename").length === 0) return usage(`must specify one of -f and -k`);
  if (p.args.length > 0) return usage(`unexpected arguments: ${p.args.join(" ")}`);
  const { manifests, result } = readManifests(env, p);
  if (result !== null) return result;
  const dryRun = flagString(p, "dry-run");
  let code = done;
  for (const m of manifests) {
    for (const obj of m.objects) {
      const type = resourceOfKind(obj.kind);
      if (dryRun !== undefined) {
        env.io.out(`${type.singular}/${obj.metadata.name} created (dry run)`);
        continue;
      }
      if (verb === "create") {
        const r = createObject(env.cluster, obj);
        if (r.ok) env.io.out(`${type.singular}/${obj.metadata.name} created`);
        else code = serverError(env, r.error.reason, `error when creating "${m.file}": ${r.error.message}`);
      } else {
        const r = applyObject(env.cluster, obj);
        if (r.ok) env.io.out(`${type.singular}/${obj.metadata.name} ${r.value}`);
        else code = serverError(env, r.error.reason, `error when creating "${m.file}": ${r.error.message}`);
      }
    }
  }
  return code;
}

export function deleteCommand(env: KubectlEnv, words: readonly string[]): CommandResult {
  const parsed = parseFlags(words, {
    filename: { kind: "list", short: "f" },
    force: { kind: "bool" },
    "grace-period": { kind: "string" },
    selector: { kind: "string", short: "l" },
    all: { kind: "bool" },
    wait: { kind: "bool" },
    now: { kind: "bool" },
  });
  if (!parsed.ok) return usage(parsed.error);
  const p = parsed.value;
  const force = flagBool(p, "force");
  const graceText = flagString(p, "grace-period");
  let grace: number | undefined = graceText === undefined ? undefined : Number(graceText);
  if (grace !== undefined && (!Number.isInteger(grace) || grace < -1)) return usage(`invalid --grace-period ${graceText}`);
  if (grace === -1) grace = undefined;
  if (flagBool(p, "now")) grace = 1;
  if (force && grace === undefined) grace = 0;
  const targets: { obj: KubeObject; file: string | null }[] = [];
  let code = done;
  if (flagList(p, "filename").length > 0) {
    const { manifests, result } = readManifests(env, p);
    if (result !== null) return result;
    for (const m of manifests) {
      for (const obj of m.objects) {
        const type = resourceOfKind(obj.kind);
        const current = env.cluster.store.get(obj.kind, type.namespaced ? (obj.metadata.namespace ?? env.cluster.namespace) : undefined, obj.metadata.name);
        if (current === undefined) code = serverError(env, "NotFound", `error when deleting "${m.file}": ${type.plural} "${obj.metadata.name}" not found`);
        else targets.push({ obj: current, file: m.file });
      }
    }
  } else {
    const split = splitTypeAndNames(p.args);
    if (split === null) return usage("You must provide one or more resources by argument or filename.");
    const type = resourceType(split.type);
    if (type === undefined) return usage(`the server doesn't have a resource type "${split.type}"`);
    const ns = type.namespaced ? namespaceOf(env, p) : undefined;
    const selText = flagString(p, "selector");
    if (split.names.length === 0) {
      if (selText === undefined && !flagBool(p, "all")) return usage("resource(s) were provided, but no name was specified");
      const sel = selText === undefined ? null : parseSelectorText(selText);
      if (sel !== null && !sel.ok) return kubectlError(env, sel.error);
      const compiled = sel === null ? null : compileSelector(sel.value);
      const list = env.cluster.store.list(type.kind, {
        ...(ns === undefined ? {} : { namespace: ns }),
        ...(compiled === null ? {} : { labels: (l: Readonly<Record<string, string>>) => compiled.matches(l) }),
      });
      if (list.length === 0) env.io.err(ns === undefined ? "No resources found" : `No resources found in ${ns} namespace.`);
      for (const obj of list) targets.push({ obj, file: null });
    }
    for (const name of split.names) {
      const obj = env.cluster.store.get(type.kind, ns, name);
      if (obj === undefined) code = serverError(env, "NotFound", `${type.plural} "${name}" not found`);
      else targets.push({ obj, file: null });
    }
  }
  if (targets.length > 0 && grace === 0) env.io.err(FORCE_WARNING);
  const deleted: KubeObject[] = [];
  for (const { obj } of targets) {
    const type = resourceOfKind(obj.kind);
    const r = deleteObject(env.cluster, obj.kind, obj.metadata.namespace, obj.metadata.name, grace === undefined ? {} : { gracePeriodSeconds: grace });
    if (!r.ok) {
      code = serverError(env, r.error.reason, r.error.message);
      continue;
    }
    env.io.out(`${type.singular} "${obj.metadata.name}" ${grace === 0 ? "force deleted" : "deleted"}`);
    deleted.push(obj);
  }
  const waitFlag = p.flags.get("wait");
  if (waitFlag !== false && deleted.length > 0) {
    const gone = env.cluster.runUntil(() => deleted.every((o) => isGone(env.cluster, o)), DELETE_WAIT_NS);
    if (!gone) return kubectlError(env, "timed out waiting for the condition");
  }
  return code.exit === 0 ? done : failed;
}

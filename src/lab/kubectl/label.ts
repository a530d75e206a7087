// kubectl label TYPE NAME... KEY=VALUE... KEY-... [--overwrite] [-l selector | --all]: kubectl's
// validation ("'k' already has a value (v), and --overwrite is false") and its per-object
// verdict: labeled, unlabeled (keys removed without --overwrite), or not labeled.
import type { KubeObject } from "../../k8s/index.js";
import { compileSelector } from "../../k8s/selector.js";
import { done, failed, kubectlError, namespaceOf, serverError, usage, type CommandResult, type KubectlEnv } from "./env.js";
import { flagBool, flagString, parseFlags } from "./flags.js";
import { resourceType } from "./resources.js";
import { parseSelectorText } from "./selector-text.js";

const KEY = /^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*\/)?[A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?$/;
const VALUE = /^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$/;

export function label(env: KubectlEnv, words: readonly string[]): CommandResult {
  const parsed = parseFlags(words, {
    overwrite: { kind: "bool" },
    selector: { kind: "string", short: "l" },
    all: { kind: "bool" },
    "dry-run": { kind: "string" },
  });
  if (!parsed.ok) return usage(parsed.error);
  const p = parsed.value;
  const resources: string[] = [];
  const set: Record<string, string> = {};
  const remove: string[] = [];
  for (const a of p.args) {
    if (a.includes("=")) {
      const i = a.indexOf("=");
      const k = a.slice(0, i);
      const v = a.slice(i + 1);
      if (!KEY.test(k)) return kubectlError(env, `invalid label spec: ${a}`);
      if (!VALUE.test(v) || v.length > 63) return kubectlError(env, `invalid label value: "${a}": a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')`);
      set[k] = v;
    } else if (a.endsWith("-") && resources.length > 0) remove.push(a.slice(0, -1));
    else resources.push(a);
  }
  if (Object.keys(set).length === 0 && remove.length === 0) return usage("at least one label update is required");
  if (resources.length === 0) return usage("one or more resources must be specified as <resource> <name> or <resource>/<name>");
  const targets: KubeObject[] = [];
  let code = done;
  const add = (typeText: string, name: string | null): CommandResult | null => {
    const type = resourceType(typeText);
    if (type === undefined) return usage(`the server doesn't have a resource type "${typeText}"`);
    const ns = type.namespaced ? namespaceOf(env, p) : undefined;
    if (name !== null) {
      const obj = env.cluster.store.get(type.kind, ns, name);
      if (obj === undefined) code = serverError(env, "NotFound", `${type.plural} "${name}" not found`);
      else targets.push(obj);
      return null;
    }
    const selText = flagString(p, "selector");
    if (selText === undefined && !flagBool(p, "all")) return usage("resource(s) were provided, but no name was specified");
    const sel = selText === undefined ? null : parseSelectorText(selText);
    if (sel !== null && !sel.ok) return kubectlError(env, sel.error);
    const compiled = sel === null ? null : compileSelector(sel.value);
    targets.push(
      ...env.cluster.store.list(type.kind, {
        ...(ns === undefined ? {} : { namespace: ns }),
        ...(compiled === null ? {} : { labels: (l: Readonly<Record<string, string>>) => compiled.matches(l) }),
      }),
    );
    return null;
  };
  if (resources[0]!.includes("/")) {
    for (const r of resources) {
      const [t, n] = r.split("/");
      const bad = add(t!, n ?? "");
      if (bad !== null) return bad;
    }
  } else {
    const [t, ...names] = resources;
    if (names.length === 0) {
      const bad = add(t!, null);
      if (bad !== null) return bad;
    }
    for (const n of names) {
      const bad = add(t!, n);
      if (bad !== null) return bad;
    }
  }
  const overwrite = flagBool(p, "overwrite");
  for (const obj of targets) {
    const labels = obj.metadata.labels ?? {};
    if (!overwrite) {
      const clashes = Object.entries(set).filter(([k, v]) => labels[k] !== undefined && labels[k] !== v);
      if (clashes.length > 0) {
        const msgs = clashes.map(([k]) => `'${k}' already has a value (${labels[k]}), and --overwrite is false`);
        return kubectlError(env, msgs.length === 1 ? msgs[0]! : `[${msgs.join(", ")}]`);
      }
    }
    for (const k of remove) if (labels[k] === undefined) env.io.out(`label "${k}" not found.`);
    const next: Record<string, string> = { ...labels, ...set };
    for (const k of remove) delete next[k];
    const changed = JSON.stringify(Object.entries(next).sort()) !== JSON.stringify(Object.entries(labels).sort());
    const shrank = JSON.stringify(next).length < JSON.stringify(labels).length;
    const verdict = !changed ? "not labeled" : !overwrite && shrank ? "unlabeled" : "labeled";
    if (changed && flagString(p, "dry-run") === undefined) {
      env.cluster.store.modify(obj.kind, obj.metadata.namespace, obj.metadata.name, (d) => {
        d.metadata.labels = next;
      });
    }
    env.io.out(`${resourceType(obj.kind)!.singular}/${obj.metadata.name} ${verdict}`);
  }
  return code.exit === 0 ? done : failed;
}

// kubectl get TYPE[,TYPE] [NAME...] [-o wide|yaml|json|name] [--show-labels] [-L key] [-l selector]
// [-n ns | -A] [--no-headers]: the server-side tables, as kubectl prints them.
import type { KubeObject } from "../../k8s/index.js";
import { compileSelector } from "../../k8s/selector.js";
import { ageOf, done, failed, kubectlError, namespaceOf, serverError, usage, type CommandResult, type KubectlEnv } from "./env.js";
import { flagBool, flagList, flagString, parseFlags, type FlagSpecs } from "./flags.js";
import { formatMap } from "./format.js";
import { asList, toJson, toYaml } from "./output.js";
import { tablePrinter } from "./printers.js";
import { resourceType, type ResourceType } from "./resources.js";
import { parseSelectorText } from "./selector-text.js";
import { formatTable } from "./tabwriter.js";

const FLAGS: FlagSpecs = {
  output: { kind: "string", short: "o" },
  "show-labels": { kind: "bool" },
  "label-columns": { kind: "list", short: "L" },
  selector: { kind: "string", short: "l" },
  "all-namespaces": { kind: "bool", short: "A" },
  "no-headers": { kind: "bool" },
  watch: { kind: "bool", short: "w" },
};

interface Listing {
  readonly type: ResourceType;
  readonly objects: KubeObject[];
}

export function get(env: KubectlEnv, words: readonly string[]): CommandResult {
  const parsed = parseFlags(words, FLAGS);
  if (!parsed.ok) return usage(parsed.error);
  const p = parsed.value;
  if (flagBool(p, "watch")) return usage("kubectl get --watch never ends; a lab script cannot use it");
  const output = flagString(p, "output") ?? "";
  if (!["", "wide", "yaml", "json", "name"].includes(output)) return usage(`unable to match a printer suitable for the output format "${output}", allowed formats are: json,name,wide,yaml`);
  const [first, ...rest] = p.args;
  if (first === undefined) return usage("You must specify the type of resource to get.");
  const allNs = flagBool(p, "all-namespaces");
  const ns = namespaceOf(env, p);
  let selector: ((l: Readonly<Record<string, string>>) => boolean) | undefined;
  const selText = flagString(p, "selector");
  if (selText !== undefined) {
    const sel = parseSelectorText(selText);
    if (!sel.ok) return kubectlError(env, sel.error);
    const compiled = compileSelector(sel.value);
    selector = (l) => compiled.matches(l);
  }
  // TYPE/NAME arguments, or TYPE[,TYPE] [NAME...].
  const requests: { type: ResourceType; names: string[] }[] = [];
  if (first.includes("/")) {
    for (const arg of [first, ...rest]) {
      const [t, n] = arg.split("/");
      const type = resourceType(t ?? "");
      if (type === undefined || n === undefined || n === "") return usage(`the server doesn't have a resource type "${t}"`);
      requests.push({ type, names: [n] });
    }
  } else {
    for (const t of first.split(",")) {
      const type = resourceType(t);
      if (type === undefined) return usage(`the server doesn't have a resource type "${t}"`);
      requests.push({ type, names: rest });
    }
  }
  const listings: Listing[] = [];
  let code = done;
  for (const { type, names } of requests) {
    const scope = type.namespaced && !allNs ? ns : undefined;
    if (names.length > 0) {
      const objects: KubeObject[] = [];
      for (const name of names) {
        const obj = env.cluster.store.get(type.kind, scope, name);
        if (obj === undefined) code = serverError(env, "NotFound", `${type.plural} "${name}" not found`);
        else objects.push(obj);
      }
      listings.push({ type, objects });
    } else {
      const objects = env.cluster.store.list(type.kind, {
        ...(scope === undefined ? {} : { namespace: scope }),
        ...(selector === undefined ? {} : { labels: selector }),
      });
      listings.push({ type, objects });
    }
  }
  const all = listings.flatMap((l) => l.objects);
  if (all.length === 0) {
    if (code.exit === 0) {
      const nsScoped = listings.every((l) => l.type.namespaced) && !allNs;
      env.io.err(nsScoped ? `No resources found in ${ns} namespace.` : "No resources found");
    }
    return code;
  }
  if (output === "yaml" || output === "json") {
    const value = all.length === 1 && requests.every((r) => r.names.length > 0) ? all[0] : asList(all);
    for (const line of output === "yaml" ? toYaml(value) : toJson(value)) env.io.out(line);
    return code;
  }
  const multi = listings.filter((l) => l.objects.length > 0).length > 1;
  if (output === "name") {
    for (const l of listings) for (const o of l.objects) env.io.out(`${l.type.singular}/${o.metadata.name}`);
    return code;
  }
  let firstTable = true;
  for (const l of listings) {
    if (l.objects.length === 0) continue;
    const printer = tablePrinter(l.type.kind);
    if (printer === undefined) return kubectlError(env, `cnisim cannot print ${l.type.plural} as a table yet; use -o yaml`);
    const wide = output === "wide";
    const labelCols = flagList(p, "label-columns");
    const showLabels = flagBool(p, "show-labels");
    const withNs = allNs && l.type.namespaced;
    const header = [
      ...(withNs ? ["NAMESPACE"] : []),
      ...printer.header,
      ...(wide ? printer.wideHeader : []),
      ...labelCols.map((k) => (k.split("/").pop() ?? k).toUpperCase()),
      ...(showLabels ? ["LABELS"] : []),
    ];
    const ctx = { age: (ts: string | undefined) => ageOf(env, ts) };
    const rows = l.objects.map((o) => {
      const cells = printer.row(o, ctx, wide);
      if (multi) cells[0] = `${l.type.singular}/${cells[0]}`;
      return [
        ...(withNs ? [o.metadata.namespace ?? ""] : []),
        ...cells,
        ...labelCols.map((k) => o.metadata.labels?.[k] ?? ""),
        ...(showLabels ? [formatMap(o.metadata.labels)] : []),
      ];
    });
    if (!firstTable) env.io.out("");
    firstTable = false;
    for (const line of formatTable(flagBool(p, "no-headers") ? null : header, rows)) env.io.out(line);
  }
  return code.exit === 0 ? done : failed;
}

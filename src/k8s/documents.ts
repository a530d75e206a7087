// Turns one YAML/JSON text into validated, defaulted objects: parses every document with
// positions (YAML 1.1 scalars, as kubectl's sigs.k8s.io/yaml reads them), expands v1 Lists,
// checks each object's fields and rules, and records accepted objects in the LoadState.
import { isMap, isScalar, isSeq, LineCounter, parseAllDocuments, type Document, type Tags } from "yaml";
import { Severity } from "./diagnostics.js";
import type { CheckContext } from "./checks/context.js";
import { checkMeta } from "./checks/meta.js";
import { apiGroupOf, isBuiltinGroup, kindInfo } from "./kinds.js";
import { nearestPos, type LoadState } from "./load-state.js";
import { objectLabel } from "./types.js";
import { mapEntries, posOf, walk, type MapEntry, type Pos, type WalkContext } from "./walk.js";

/** YAML 1.1 as go-yaml v2 reads it (yes/no/on/off booleans, 0777 octal), minus sexagesimal numbers and timestamps. */
function kubectlTags(tags: Tags): Tags {
  return tags.filter((t) => {
    const tag = t as { tag?: string; format?: string };
    return tag.format !== "TIME" && tag.tag !== "tag:yaml.org,2002:timestamp";
  });
}

const repeatKey = (kind: string, path: string): string => `${kind}\u0000${path.replace(/\[\d+\]/g, "[*]")}`;

function scalarString(entries: readonly MapEntry[], key: string): string | undefined {
  const e = entries.find((x) => x.key === key);
  if (e === undefined) return undefined;
  const v = isScalar(e.value) ? e.value.value : undefined;
  return typeof v === "string" ? v : undefined;
}

function metaString(entries: readonly MapEntry[], key: string, ctx: WalkContext): string | undefined {
  const meta = entries.find((x) => x.key === "metadata")?.value;
  return isMap(meta) ? scalarString(mapEntries(meta, ctx), key) : undefined;
}

export function parseText(text: string, file: string, state: LoadState): void {
  state.files.push(file);
  const lineCounter = new LineCounter();
  const parsed = parseAllDocuments(text, { lineCounter, version: "1.1", customTags: kubectlTags, prettyErrors: false });
  const docs: Document[] = Array.isArray(parsed) ? parsed : [];
  docs.forEach((doc, i) => {
    const label = `document ${i + 1}`;
    const at = (offset: number): Pos => lineCounter.linePos(offset);
    for (const w of doc.warnings) state.report(Severity.WARNING, file, at(w.pos[0]), label, "", `yaml: ${firstLine(w.message)}`);
    if (doc.errors.length > 0) {
      for (const e of doc.errors) state.report(Severity.ERROR, file, at(e.pos[0]), label, "", `yaml: ${firstLine(e.message)}`);
      return;
    }
    const root = doc.contents;
    if (root === null || (isScalar(root) && root.value === null)) return; // empty document
    processObject(root, i + 1, { doc, lineCounter, file, state, label });
  });
}

function firstLine(message: string): string {
  return message.split("\n")[0]!.replace(/ at line \d+, column \d+:?$/, "");
}

interface DocEnv {
  readonly doc: Document;
  readonly lineCounter: LineCounter;
  readonly file: string;
  readonly state: LoadState;
  /** "document N" or "document N, items[i]" */
  readonly label: string;
}

function processObject(node: unknown, docNo: number, env: DocEnv): void {
  const { file, state } = env;
  const positions = new Map<string, Pos>();
  let objLabel = env.label;
  let kind = "";
  /** Paths with errors so far, so that checks can skip rules that would only repeat them. */
  const errorPaths: string[] = [];
  const ctx: WalkContext = {
    doc: env.doc,
    lineCounter: env.lineCounter,
    positions,
    sink: {
      error: (path, pos, message) => {
        errorPaths.push(path);
        state.report(Severity.ERROR, file, pos, objLabel, path, message);
      },
      unknownField: (path, pos) => {
        const name = path.slice(path.lastIndexOf(".") + 1);
        state.warnOnce(repeatKey(kind, path), file, pos, objLabel, path, `unknown field ${JSON.stringify(name)} (ignored, as the API server does)`);
      },
      unsupportedField: (path, pos, note) => state.warnOnce(repeatKey(kind, path), file, pos, objLabel, path, `not supported by cnisim: ${note}; ignored`),
    },
  };
  const rootPos = posOf(node, ctx);
  if (!isMap(node)) {
    const what = isSeq(node) ? "a list" : "a scalar";
    state.report(Severity.ERROR, file, rootPos, objLabel, "", `must be a map (a Kubernetes object), not ${what}`);
    return;
  }
  const entries = mapEntries(node, ctx);
  const apiVersion = scalarString(entries, "apiVersion");
  const kindText = scalarString(entries, "kind");
  const fieldPos = (key: string): Pos => {
    const e = entries.find((x) => x.key === key);
    return e === undefined ? rootPos : posOf(e.value ?? e.keyNode, ctx);
  };
  if (kindText === undefined || kindText === "") {
    state.report(Severity.ERROR, file, fieldPos("kind"), objLabel, "kind", "required value");
    if (apiVersion === undefined) state.report(Severity.ERROR, file, fieldPos("apiVersion"), objLabel, "apiVersion", "required value");
    return;
  }
  if (apiVersion === undefined || apiVersion === "") {
    state.report(Severity.ERROR, file, fieldPos("apiVersion"), `${kindText} in ${objLabel}`, "apiVersion", "required value");
    return;
  }
  if (kindText === "List" && apiVersion === "v1") {
    const items = entries.find((e) => e.key === "items")?.value;
    if (isSeq(items)) items.items.forEach((item, i) => processObject(item, docNo, { ...env, label: `${env.label}, items[${i}]` }));
    else if (items !== undefined && !(isScalar(items) && items.value === null)) {
      state.report(Severity.ERROR, file, fieldPos("items"), "List in " + objLabel, "items", "must be a list");
    }
    return;
  }
  kind = kindText;
  const info = kindInfo(kindText);
  const name = metaString(entries, "name", ctx);
  const givenNs = metaString(entries, "namespace", ctx);
  const namespaced = info?.namespaced ?? true;
  const namespace = namespaced ? (givenNs || state.defaultNamespace) : undefined;
  objLabel = name === undefined || name === "" ? `${kindText} in ${env.label}` : objectLabel(kindText, namespace, name);
  if (info === undefined || info.apiVersion !== apiVersion) {
    if (info !== undefined && isBuiltinGroup(apiVersion)) {
      state.report(
        Severity.ERROR,
        file,
        fieldPos("apiVersion"),
        objLabel,
        "apiVersion",
        `no matches for kind ${JSON.stringify(kindText)} in version ${JSON.stringify(apiVersion)} (cnisim serves ${kindText} as ${info.apiVersion})`,
      );
    } else {
      const group = apiGroupOf(apiVersion);
      state.warnOnce(`kind\u0000${apiVersion}\u0000${kindText}`, file, rootPos, objLabel, "", `kind ${kindText} (${apiVersion}${group === "" ? ", core" : ""}) is not supported by cnisim; ignored`);
    }
    return;
  }
  const value = walk(node, info.shape, "", ctx) as Record<string, unknown> | undefined;
  if (value === undefined) return;
  const check: CheckContext = {
    error: (path, message) => ctx.sink.error(path, nearestPos(positions, path, rootPos), message),
    warn: (path, message) => state.report(Severity.WARNING, file, nearestPos(positions, path, rootPos), objLabel, path, message),
    hasErrorsUnder: (path) => errorPaths.some((e) => e === path || e.startsWith(path + ".") || e.startsWith(path + "[")),
  };
  checkMeta(kindText, value["metadata"] as never, check);
  info.check?.(value as never, check);
  if (errorPaths.length > 0) return;
  const meta = (value["metadata"] ??= {}) as Record<string, unknown>;
  if (namespace !== undefined) meta["namespace"] = namespace;
  else delete meta["namespace"];
  const w = info.defaults?.(value as never);
  if (w) check.warn(w.path, w.message);
  state.records.push({
    kind: kindText,
    object: value,
    label: objLabel,
    source: { file, line: rootPos.line, col: rootPos.col, document: docNo },
    positions,
  });
}

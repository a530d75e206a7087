// labelSelector and fieldSelector query parameters: parsed as the API server parses them (bad
// input is a 400 with upstream's wording), and the field labels each kind supports.
import { checkLabelValue, checkQualifiedName } from "../k8s/names.js";
import { compileSelectorChecked } from "../k8s/selector.js";
import type { KindName, KubeObject } from "../k8s/index.js";
import { parseSelectorText } from "../lab/kubectl/selector-text.js";
import { err, ok, type Result } from "../util/result.js";

export type LabelMatcher = (labels: Readonly<Record<string, string>>) => boolean;

export function parseLabelSelector(text: string | null): Result<LabelMatcher, string> {
  if (text === null || text.trim() === "") return ok(() => true);
  const parsed = parseSelectorText(text);
  if (!parsed.ok) return err(parsed.error);
  for (const e of parsed.value.matchExpressions ?? []) {
    const problem = checkQualifiedName(e.key) ?? (e.values ?? []).map(checkLabelValue).find((m) => m !== null) ?? null;
    if (problem !== null) return err(`unable to parse requirement: ${problem}`);
  }
  const compiled = compileSelectorChecked(parsed.value);
  if (!compiled.ok) return err(`unable to parse requirement: ${compiled.error.reason}`);
  return ok((labels) => compiled.value.matches(labels));
}

interface FieldTerm {
  readonly field: string;
  readonly value: string;
  readonly negate: boolean;
}

/** Splits on unescaped commas and reads `f=v`, `f==v`, `f!=v` (backslash escapes as in fields.ParseSelector). */
export function parseFieldSelector(text: string | null): Result<readonly FieldTerm[], string> {
  if (text === null || text.trim() === "") return ok([]);
  const terms: FieldTerm[] = [];
  const parts: string[] = [];
  let cur = "";
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (c === "\\" && i + 1 < text.length) {
      cur += c + text[++i]!;
    } else if (c === ",") {
      parts.push(cur);
      cur = "";
    } else cur += c;
  }
  parts.push(cur);
  for (const part of parts) {
    const m = /^(.*?)(!=|==|=)(.*)$/s.exec(part);
    if (m === null || m[1]!.trim() === "") return err(`invalid selector: '${text}'; can't understand '${part}'`);
    terms.push({ field: m[1]!.trim(), value: m[3]!.replace(/\\(.)/g, "$1"), negate: m[2] === "!=" });
  }
  return ok(terms);
}

type FieldGetter = (obj: KubeObject) => string | undefined;

const META: Readonly<Record<string, FieldGetter>> = {
  "metadata.name": (o) => o.metadata.name,
  "metadata.namespace": (o) => o.metadata.namespace ?? "",
};

const pod = (f: (p: KubeObject<"Pod">) => string | boolean | undefined): FieldGetter => (o) => {
  const v = f(o as KubeObject<"Pod">);
  return v === undefined ? "" : String(v);
};
const event = (f: (e: KubeObject<"Event">) => string | undefined): FieldGetter => (o) => f(o as KubeObject<"Event">) ?? "";

/** The field labels the API server supports per kind, besides metadata.name and metadata.namespace. */
const FIELDS: Partial<Record<KindName, Readonly<Record<string, FieldGetter>>>> = {
  Pod: {
    "spec.nodeName": pod((p) => p.spec?.nodeName),
    "spec.restartPolicy": pod((p) => p.spec?.restartPolicy),
    "spec.schedulerName": pod((p) => p.spec?.schedulerName),
    "spec.serviceAccountName": pod((p) => p.spec?.serviceAccountName),
    "spec.hostNetwork": pod((p) => p.spec?.hostNetwork ?? false),
    "status.phase": pod((p) => p.status?.phase),
    "status.podIP": pod((p) => p.status?.podIP),
    "status.nominatedNodeName": pod((p) => p.status?.nominatedNodeName),
  },
  Node: { "spec.unschedulable": (o) => String((o as KubeObject<"Node">).spec?.unschedulable ?? false) },
  Namespace: { "status.phase": (o) => (o as KubeObject<"Namespace">).status?.phase ?? "" },
  Event: {
    "involvedObject.kind": event((e) => e.involvedObject.kind),
    "involvedObject.namespace": event((e) => e.involvedObject.namespace),
    "involvedObject.name": event((e) => e.involvedObject.name),
    "involvedObject.uid": event((e) => e.involvedObject.uid),
    "involvedObject.apiVersion": event((e) => e.involvedObject.apiVersion),
    "involvedObject.resourceVersion": event((e) => e.involvedObject.resourceVersion),
    "involvedObject.fieldPath": event((e) => e.involvedObject.fieldPath),
    reason: event((e) => e.reason),
    reportingComponent: event((e) => e.reportingComponent),
    source: event((e) => e.source?.component),
    type: event((e) => e.type),
  },
  ReplicaSet: { "status.replicas": (o) => String((o as KubeObject<"ReplicaSet">).status?.replicas ?? 0) },
};

export type ObjectMatcher = (obj: KubeObject) => boolean;

/** A predicate for the field selector on objects of `kind`; 400 text for unsupported fields. */
export function fieldMatcher(kind: KindName | null, terms: readonly FieldTerm[]): Result<ObjectMatcher, string> {
  const getters: FieldGetter[] = [];
  for (const t of terms) {
    const g = META[t.field] ?? (kind === null ? undefined : FIELDS[kind]?.[t.field]);
    if (g === undefined) return err(`field label not supported: ${t.field}`);
    getters.push(g);
  }
  return ok((obj) => terms.every((t, i) => (getters[i]!(obj) === t.value) !== t.negate));
}

// Kubernetes label selectors (metav1.LabelSelector): compile once, then match label sets and say in
// words why a label set does not match. Semantics follow apimachinery labels.Requirement.Matches:
// NotIn and DoesNotExist match when the key is absent; an empty selector matches everything.
import type { LabelSelector } from "kubernetes-types/meta/v1.js";
import { err, ok, type Result } from "../util/result.js";

export type Labels = Readonly<Record<string, string>>;

export const SelectorOperator = { In: "In", NotIn: "NotIn", Exists: "Exists", DoesNotExist: "DoesNotExist" } as const;
export type SelectorOperator = (typeof SelectorOperator)[keyof typeof SelectorOperator];

/** A selector that could not be compiled: `path` names the offending field relative to the selector. */
export type SelectorError = { readonly path: string; readonly reason: string };

type Requirement =
  | { readonly op: "Equals"; readonly key: string; readonly value: string }
  | { readonly op: "In" | "NotIn"; readonly key: string; readonly values: readonly string[] }
  | { readonly op: "Exists" | "DoesNotExist"; readonly key: string };

export interface CompiledSelector {
  /** Canonical text in kubectl's selector syntax ("" for the empty selector); equal selectors have equal keys. */
  readonly key: string;
  /** True when the selector has no requirements and therefore matches every label set. */
  readonly isEmpty: boolean;
  /** Set when the selector was invalid; an invalid selector matches nothing. */
  readonly error: SelectorError | null;
  matches(labels: Labels): boolean;
  /** One phrase per unmet requirement, e.g. "lacks label project=myproject"; empty when it matches. */
  describeMismatch(labels: Labels): string[];
  /** Human text of the selector, e.g. "{run=web1}" or "{} (everything)". */
  describe(): string;
}

const has = (labels: Labels, key: string): boolean => Object.prototype.hasOwnProperty.call(labels, key);

function requirementMatches(r: Requirement, labels: Labels): boolean {
  switch (r.op) {
    case "Equals":
      return has(labels, r.key) && labels[r.key] === r.value;
    case "In":
      return has(labels, r.key) && r.values.includes(labels[r.key]!);
    case "NotIn":
      return !has(labels, r.key) || !r.values.includes(labels[r.key]!);
    case "Exists":
      return has(labels, r.key);
    case "DoesNotExist":
      return !has(labels, r.key);
  }
}

function requirementText(r: Requirement): string {
  switch (r.op) {
    case "Equals":
      return `${r.key}=${r.value}`;
    case "In":
      return `${r.key} in (${r.values.join(",")})`;
    case "NotIn":
      return `${r.key} notin (${r.values.join(",")})`;
    case "Exists":
      return r.key;
    case "DoesNotExist":
      return `!${r.key}`;
  }
}

function mismatchText(r: Requirement, labels: Labels): string {
  const present = has(labels, r.key);
  const actual = present ? `${r.key}=${labels[r.key]}` : "";
  switch (r.op) {
    case "Equals":
      return present ? `has label ${actual}, not ${r.key}=${r.value}` : `lacks label ${r.key}=${r.value}`;
    case "In":
      return present
        ? `has label ${actual}, not one of ${r.key} in (${r.values.join(",")})`
        : `lacks label ${r.key} (needs ${r.key} in (${r.values.join(",")}))`;
    case "NotIn":
      return `has label ${actual}, which ${r.key} notin (${r.values.join(",")}) excludes`;
    case "Exists":
      return `lacks label ${r.key}`;
    case "DoesNotExist":
      return `has label ${actual}, but the selector requires !${r.key}`;
  }
}

class Selector implements CompiledSelector {
  readonly key: string;
  readonly isEmpty: boolean;

  constructor(
    private readonly requirements: readonly Requirement[],
    readonly error: SelectorError | null,
  ) {
    this.key = error ? `<invalid: ${error.path}: ${error.reason}>` : requirements.map(requirementText).join(",");
    this.isEmpty = error === null && requirements.length === 0;
  }

  matches(labels: Labels): boolean {
    if (this.error) return false;
    for (const r of this.requirements) if (!requirementMatches(r, labels)) return false;
    return true;
  }

  describeMismatch(labels: Labels): string[] {
    if (this.error) return [`selector is invalid (${this.error.path}: ${this.error.reason})`];
    const out: string[] = [];
    for (const r of this.requirements) if (!requirementMatches(r, labels)) out.push(mismatchText(r, labels));
    return out;
  }

  describe(): string {
    if (this.error) return `{invalid: ${this.error.reason}}`;
    return this.isEmpty ? "{} (everything)" : `{${this.key}}`;
  }
}

const compareText = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);
const OPERATOR_ORDER: Record<Requirement["op"], number> = { Equals: 0, In: 1, NotIn: 2, Exists: 3, DoesNotExist: 4 };

/** Compiles a selector, reporting the first invalid field. */
export function compileSelectorChecked(sel: LabelSelector): Result<CompiledSelector, SelectorError> {
  const reqs: Requirement[] = [];
  const matchLabels = sel.matchLabels ?? {};
  if (typeof matchLabels !== "object" || matchLabels === null) {
    return err({ path: "matchLabels", reason: "must be a map of strings" });
  }
  for (const [key, value] of Object.entries(matchLabels)) {
    if (key === "") return err({ path: "matchLabels", reason: "empty label key" });
    if (typeof value !== "string") {
      return err({ path: `matchLabels.${key}`, reason: "value must be a string" });
    }
    reqs.push({ op: "Equals", key, value });
  }
  const exprs = sel.matchExpressions ?? [];
  if (!Array.isArray(exprs)) return err({ path: "matchExpressions", reason: "must be a list" });
  for (const [i, e] of exprs.entries()) {
    const path = `matchExpressions[${i}]`;
    if (typeof e?.key !== "string" || e.key === "") return err({ path: `${path}.key`, reason: "missing label key" });
    const values = e.values ?? [];
    if (!Array.isArray(values) || values.some((v) => typeof v !== "string")) {
      return err({ path: `${path}.values`, reason: "must be a list of strings" });
    }
    switch (e.operator) {
      case SelectorOperator.In:
      case SelectorOperator.NotIn:
        if (values.length === 0) {
          return err({ path: `${path}.values`, reason: `operator ${e.operator} needs at least one value` });
        }
        reqs.push({ op: e.operator, key: e.key, values: [...new Set(values)].sort(compareText) });
        break;
      case SelectorOperator.Exists:
      case SelectorOperator.DoesNotExist:
        if (values.length !== 0) {
          return err({ path: `${path}.values`, reason: `operator ${e.operator} takes no values` });
        }
        reqs.push({ op: e.operator, key: e.key });
        break;
      default:
        return err({ path: `${path}.operator`, reason: `unknown operator ${JSON.stringify(e.operator)}` });
    }
  }
  reqs.sort((a, b) => compareText(a.key, b.key) || OPERATOR_ORDER[a.op] - OPERATOR_ORDER[b.op] || compareText(requirementText(a), requirementText(b)));
  const unique = reqs.filter((r, i) => i === 0 || requirementText(r) !== requirementText(reqs[i - 1]!));
  return ok(new Selector(unique, null));
}

/** Compiles a selector; an invalid one is returned with `error` set and matches nothing. */
export function compileSelector(sel: LabelSelector): CompiledSelector {
  const r = compileSelectorChecked(sel);
  return r.ok ? r.value : new Selector([], r.error);
}

/** Formats a label set as kubectl does in --show-labels: "a=1,b=2" sorted by key; "<none>" when empty. */
export function formatLabels(labels: Labels): string {
  const keys = Object.keys(labels).sort(compareText);
  return keys.length === 0 ? "<none>" : keys.map((k) => `${k}=${labels[k]}`).join(",");
}

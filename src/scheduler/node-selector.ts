// Node selection by labels and fields (component-helpers scheduling/corev1/nodeaffinity): the pod's
// required node selector + required node affinity, and the weight of its preferred terms on a node.
// Terms are ORed, requirements inside a term ANDed; a term that fails to parse or is empty matches nothing.
import type { NodeSelectorRequirement, NodeSelectorTerm, Pod, PreferredSchedulingTerm } from "kubernetes-types/core/v1.js";
import { checkLabelValue, checkQualifiedName } from "../k8s/names.js";
import type { Labels } from "../k8s/selector.js";

export interface NodeFacts {
  readonly name: string;
  readonly labels: Labels;
}

type Matcher = (node: NodeFacts) => boolean;

const INT64 = /^[+-]?\d+$/;
const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;

/** strconv.ParseInt(s, 10, 64); null when it fails. */
function parseInt64(s: string): bigint | null {
  if (!INT64.test(s)) return null;
  const v = BigInt(s);
  return v < INT64_MIN || v > INT64_MAX ? null : v;
}

const has = (labels: Labels, key: string): boolean => Object.prototype.hasOwnProperty.call(labels, key);

/** labels.NewRequirement: the key must be a qualified name and In/NotIn values valid label values. */
function labelRequirement(r: NodeSelectorRequirement): Matcher | null {
  const key = r.key;
  const values = r.values ?? [];
  if (checkQualifiedName(key) !== null) return null;
  if ((r.operator === "In" || r.operator === "NotIn") && values.some((v) => checkLabelValue(v) !== null)) return null;
  switch (r.operator) {
    case "In":
    case "NotIn": {
      if (values.length === 0) return null;
      const set = new Set(values);
      return r.operator === "In"
        ? (n) => has(n.labels, key) && set.has(n.labels[key]!)
        : (n) => !has(n.labels, key) || !set.has(n.labels[key]!);
    }
    case "Exists":
      return values.length === 0 ? (n) => has(n.labels, key) : null;
    case "DoesNotExist":
      return values.length === 0 ? (n) => !has(n.labels, key) : null;
    case "Gt":
    case "Lt": {
      const bound = values.length === 1 ? parseInt64(values[0]!) : null;
      if (bound === null) return null;
      const greater = r.operator === "Gt";
      return (n) => {
        if (!has(n.labels, key)) return false;
        const v = parseInt64(n.labels[key]!);
        if (v === null) return false;
        return greater ? v > bound : v < bound;
      };
    }
    default:
      return null;
  }
}

/** Field requirements: only In and NotIn with exactly one value; the only field a node has is metadata.name. */
function fieldRequirement(r: NodeSelectorRequirement): Matcher | null {
  const values = r.values ?? [];
  if ((r.operator !== "In" && r.operator !== "NotIn") || values.length !== 1) return null;
  const want = values[0]!;
  const field = (n: NodeFacts): string => (r.key === "metadata.name" ? n.name : "");
  return r.operator === "In" ? (n) => field(n) === want : (n) => field(n) !== want;
}

const isEmptyTerm = (t: NodeSelectorTerm | undefined): boolean =>
  t === undefined || ((t.matchExpressions ?? []).length === 0 && (t.matchFields ?? []).length === 0);

/** A compiled term, or null when it is empty or does not parse. */
function compileTerm(t: NodeSelectorTerm): Matcher | null {
  if (isEmptyTerm(t)) return null;
  const parts: Matcher[] = [];
  for (const r of t.matchExpressions ?? []) {
    const m = labelRequirement(r);
    if (m === null) return null;
    parts.push(m);
  }
  for (const r of t.matchFields ?? []) {
    const m = fieldRequirement(r);
    if (m === null) return null;
    parts.push(m);
  }
  return (n) => parts.every((p) => p(n));
}

/** A node selector (terms ORed). */
export function compileNodeSelectorTerms(terms: readonly NodeSelectorTerm[]): Matcher {
  const compiled = terms.map(compileTerm).filter((m): m is Matcher => m !== null);
  return (n) => compiled.some((m) => m(n));
}

/** The pod's nodeSelector and required node affinity (nodeaffinity.GetRequiredNodeAffinity). */
export interface RequiredNodeAffinity {
  /** False when the pod states neither. */
  readonly present: boolean;
  match(node: NodeFacts): boolean;
}

export function requiredNodeAffinity(pod: Pod): RequiredNodeAffinity {
  const selector = Object.entries(pod.spec?.nodeSelector ?? {});
  const required = pod.spec?.affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution;
  const terms = required === undefined ? null : compileNodeSelectorTerms(required.nodeSelectorTerms ?? []);
  return {
    present: selector.length > 0 || terms !== null,
    match: (n) => {
      for (const [k, v] of selector) if (!has(n.labels, k) || n.labels[k] !== v) return false;
      return terms === null || terms(n);
    },
  };
}

/** Preferred terms: the sum of the weights of the terms a node matches (nodeaffinity.PreferredSchedulingTerms). */
export interface PreferredTerms {
  score(node: NodeFacts): number;
}

export function preferredTerms(terms: readonly PreferredSchedulingTerm[]): PreferredTerms {
  const compiled: { weight: number; match: Matcher }[] = [];
  for (const t of terms) {
    if (t.weight === 0 || isEmptyTerm(t.preference)) continue;
    const m = compileTerm(t.preference);
    if (m !== null) compiled.push({ weight: t.weight, match: m });
  }
  return {
    score: (n) => {
      let sum = 0;
      for (const t of compiled) if (t.match(n)) sum += t.weight;
      return sum;
    },
  };
}

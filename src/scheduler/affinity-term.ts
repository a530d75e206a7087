// Pod (anti-)affinity terms compiled once per pod (framework.AffinityTerm): the label selector, the
// namespaces the term covers and its namespace selector, and the topology key.
import type { PodAffinityTerm, WeightedPodAffinityTerm } from "kubernetes-types/core/v1.js";
import type { LabelSelector } from "kubernetes-types/meta/v1.js";
import { compileSelector, type CompiledSelector, type Labels } from "../k8s/selector.js";

/** metav1.LabelSelectorAsSelector: nil selects nothing, {} selects everything. */
export interface TermSelector {
  matches(labels: Labels): boolean;
  /** True for {} (labels.Everything): Selector.Empty() in Go. */
  readonly everything: boolean;
  readonly nothing: boolean;
}

export const NOTHING: TermSelector = { matches: () => false, everything: false, nothing: true };

export function termSelector(sel: LabelSelector | undefined): TermSelector {
  if (sel === undefined || sel === null) return NOTHING;
  const c: CompiledSelector = compileSelector(sel);
  if (c.error !== null) return NOTHING;
  return { matches: (l) => c.matches(l), everything: c.isEmpty, nothing: false };
}

export interface AffinityTerm {
  readonly selector: TermSelector;
  readonly namespaces: ReadonlySet<string>;
  readonly namespaceSelector: TermSelector;
  readonly topologyKey: string;
}

export interface WeightedAffinityTerm extends AffinityTerm {
  readonly weight: number;
}

export function affinityTerm(podNamespace: string, t: PodAffinityTerm): AffinityTerm {
  const own = (t.namespaces === undefined || t.namespaces.length === 0) && t.namespaceSelector === undefined;
  return {
    selector: termSelector(t.labelSelector),
    namespaces: new Set(own ? [podNamespace] : (t.namespaces ?? [])),
    namespaceSelector: termSelector(t.namespaceSelector),
    topologyKey: t.topologyKey,
  };
}

export function weightedAffinityTerm(podNamespace: string, t: WeightedPodAffinityTerm): WeightedAffinityTerm {
  return { ...affinityTerm(podNamespace, t.podAffinityTerm), weight: t.weight };
}

/** AffinityTerm.Matches: the pod is in one of the term's namespaces and carries matching labels. */
export function termMatches(term: AffinityTerm, namespace: string, labels: Labels, namespaceLabels: Labels | null): boolean {
  if (term.namespaces.has(namespace) || term.namespaceSelector.matches(namespaceLabels ?? {})) return term.selector.matches(labels);
  return false;
}

/** podMatchesAllAffinityTerms: false for an empty list. */
export function matchesAllTerms(terms: readonly AffinityTerm[], namespace: string, labels: Labels): boolean {
  if (terms.length === 0) return false;
  for (const t of terms) if (!termMatches(t, namespace, labels, null)) return false;
  return true;
}

/**
 * The incoming pod's terms with their namespace selector resolved into namespace names
 * (InterPodAffinity.mergeAffinityTermNamespacesIfNotEmpty); {} and nil selectors are kept as they are.
 */
export function mergeNamespaces<T extends AffinityTerm>(term: T, namespaces: ReadonlyMap<string, Labels>): T {
  const sel = term.namespaceSelector;
  if (sel.everything || sel.nothing) return term;
  const names = new Set(term.namespaces);
  for (const [name, labels] of namespaces) if (sel.matches(labels)) names.add(name);
  return { ...term, namespaces: names, namespaceSelector: NOTHING };
}

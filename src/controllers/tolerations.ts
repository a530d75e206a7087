// Taint/toleration matching (core/v1 helper ToleratesTaint) and node affinity matching for the
// controllers that decide where pods may run (DaemonSet) or must leave (NoExecute eviction).
import type { NodeSelectorRequirement, NodeSelectorTerm, Taint, Toleration } from "kubernetes-types/core/v1.js";
import type { KubeObject } from "../k8s/index.js";
import type { Pod } from "./objects.js";

export function toleratesTaint(t: Toleration, taint: Taint): boolean {
  if ((t.effect ?? "") !== "" && t.effect !== taint.effect) return false;
  if ((t.key ?? "") !== "" && t.key !== taint.key) return false;
  switch (t.operator ?? "Equal") {
    case "Equal":
      return (t.value ?? "") === (taint.value ?? "");
    case "Exists":
      return true;
    default:
      return false;
  }
}

/** The first taint (passing `filter`) that no toleration tolerates. */
export function firstUntolerated(taints: readonly Taint[], tolerations: readonly Toleration[], filter: (t: Taint) => boolean): Taint | undefined {
  return taints.find((taint) => filter(taint) && !tolerations.some((t) => toleratesTaint(t, taint)));
}

function requirementMatches(r: NodeSelectorRequirement, value: string | undefined): boolean {
  const values = r.values ?? [];
  switch (r.operator) {
    case "In":
      return value !== undefined && values.includes(value);
    case "NotIn":
      return value === undefined || !values.includes(value);
    case "Exists":
      return value !== undefined;
    case "DoesNotExist":
      return value === undefined;
    case "Gt":
    case "Lt": {
      const have = Number.parseInt(value ?? "", 10);
      const want = Number.parseInt(values[0] ?? "", 10);
      if (!Number.isInteger(have) || !Number.isInteger(want)) return false;
      return r.operator === "Gt" ? have > want : have < want;
    }
    default:
      return false;
  }
}

function termMatches(term: NodeSelectorTerm, node: KubeObject<"Node">): boolean {
  const exprs = term.matchExpressions ?? [];
  const fields = term.matchFields ?? [];
  if (exprs.length === 0 && fields.length === 0) return false;
  const labels = node.metadata.labels ?? {};
  return (
    exprs.every((r) => requirementMatches(r, Object.prototype.hasOwnProperty.call(labels, r.key) ? labels[r.key] : undefined)) &&
    fields.every((r) => r.key === "metadata.name" && requirementMatches(r, node.metadata.name))
  );
}

/** nodeSelector and required node affinity (terms ORed, requirements ANDed), as GetRequiredNodeAffinity matches. */
export function podFitsNodeAffinity(pod: Pod, node: KubeObject<"Node">): boolean {
  const labels = node.metadata.labels ?? {};
  for (const [k, v] of Object.entries(pod.spec?.nodeSelector ?? {})) if (labels[k] !== v) return false;
  const required = pod.spec?.affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution;
  if (required === undefined) return true;
  return required.nodeSelectorTerms.some((t) => termMatches(t, node));
}

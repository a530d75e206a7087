// Rules for label selectors (matchExpressions operators and their values), node selector
// requirements (adds Gt/Lt and matchFields). Matching itself is ../selector.ts (policy helper's).
import type { LabelSelector } from "kubernetes-types/meta/v1.js";
import type { NodeSelectorRequirement, NodeSelectorTerm } from "kubernetes-types/core/v1.js";
import { checkLabelValue, checkQualifiedName } from "../names.js";
import { p, type CheckContext } from "./context.js";

export function checkLabelSelector(sel: LabelSelector | undefined, path: string, ctx: CheckContext): void {
  (sel?.matchExpressions ?? []).forEach((req, i) => {
    const rp = p.index(p.field(path, "matchExpressions"), i);
    const values = req.values ?? [];
    if (req.operator === "In" || req.operator === "NotIn") {
      if (values.length === 0) ctx.error(p.field(rp, "values"), "must be specified when `operator` is 'In' or 'NotIn'");
    } else if (req.operator === "Exists" || req.operator === "DoesNotExist") {
      if (values.length > 0) ctx.error(p.field(rp, "values"), "may not be specified when `operator` is 'Exists' or 'DoesNotExist'");
    }
    values.forEach((v, j) => {
      const m = checkLabelValue(v);
      if (m !== null) ctx.error(p.index(p.field(rp, "values"), j), m);
    });
  });
}

function checkNodeSelectorRequirement(req: NodeSelectorRequirement, path: string, fields: boolean, ctx: CheckContext): void {
  const values = req.values ?? [];
  const vp = p.field(path, "values");
  if (fields) {
    if (req.key !== "metadata.name") ctx.error(p.field(path, "key"), "must be one of metadata.name");
    if (req.operator !== "In" && req.operator !== "NotIn") ctx.error(p.field(path, "operator"), "must be one of In, NotIn");
    else if (values.length !== 1) ctx.error(vp, "must be only one value when `operator` is 'In' or 'NotIn' for node field selector");
    return;
  }
  const keyMsg = req.key === undefined ? null : checkQualifiedName(req.key);
  if (keyMsg !== null) ctx.error(p.field(path, "key"), keyMsg);
  switch (req.operator) {
    case "In":
    case "NotIn":
      if (values.length === 0) ctx.error(vp, "must be specified when `operator` is 'In' or 'NotIn'");
      break;
    case "Exists":
    case "DoesNotExist":
      if (values.length > 0) ctx.error(vp, "may not be specified when `operator` is 'Exists' or 'DoesNotExist'");
      break;
    case "Gt":
    case "Lt":
      if (values.length !== 1) ctx.error(vp, "must be specified single value when `operator` is 'Lt' or 'Gt'");
      else if (!/^-?\d+$/.test(values[0]!)) ctx.error(p.index(vp, 0), `invalid value ${JSON.stringify(values[0])}: must be an integer`);
      break;
  }
}

export function checkNodeSelectorTerm(term: NodeSelectorTerm, path: string, ctx: CheckContext): void {
  (term.matchExpressions ?? []).forEach((r, i) => checkNodeSelectorRequirement(r, p.index(p.field(path, "matchExpressions"), i), false, ctx));
  (term.matchFields ?? []).forEach((r, i) => checkNodeSelectorRequirement(r, p.index(p.field(path, "matchFields"), i), true, ctx));
}

export function isEmptySelector(sel: LabelSelector | undefined): boolean {
  return Object.keys(sel?.matchLabels ?? {}).length === 0 && (sel?.matchExpressions ?? []).length === 0;
}

// Semantic rules of a PodSpec beyond field types, after upstream's ValidatePodSpec:
// containers, ports, resource requests vs limits, tolerations, affinity and spread constraints.
import type { Container, PodAffinityTerm, PodSpec, Toleration } from "kubernetes-types/core/v1.js";
import { checkDns1123Label, checkQualifiedName } from "../names.js";
import { compareQuantities, isNegativeQuantity, parseQuantity, type Quantity } from "../quantity.js";
import { checkDuplicates, p, type CheckContext } from "./context.js";
import { checkLabelSelector, checkNodeSelectorTerm } from "./selectors.js";
import { checkVolumeMounts, checkVolumes } from "./volumes.js";

export interface PodSpecOptions {
  /** Pod templates (Deployment, ...) may leave image empty for config tools to fill in. */
  readonly template: boolean;
}

export function checkPodSpec(spec: PodSpec | undefined, path: string, ctx: CheckContext, opts: PodSpecOptions): void {
  if (spec === undefined) return;
  if (spec.containers !== undefined && spec.containers.length === 0) ctx.error(p.field(path, "containers"), "required value");
  const all: { c: Container; path: string }[] = [
    ...(spec.initContainers ?? []).map((c, i) => ({ c, path: p.index(p.field(path, "initContainers"), i) })),
    ...(spec.containers ?? []).map((c, i) => ({ c, path: p.index(p.field(path, "containers"), i) })),
  ];
  checkDuplicates(all, (x) => x.c.name, (i) => p.field(all[i]!.path, "name"), ctx);
  for (const { c, path: cp } of all) checkContainer(c, cp, ctx, opts);
  checkVolumes(spec, path, ctx);
  for (const { c, path: cp } of all) checkVolumeMounts(c, cp, spec, ctx);
  (spec.tolerations ?? []).forEach((t, i) => checkToleration(t, p.index(p.field(path, "tolerations"), i), ctx));
  checkAffinity(spec, p.field(path, "affinity"), ctx);
  const tsc = p.field(path, "topologySpreadConstraints");
  (spec.topologySpreadConstraints ?? []).forEach((c, i) => {
    const cp = p.index(tsc, i);
    if (c.minDomains !== undefined && c.whenUnsatisfiable !== "DoNotSchedule") {
      ctx.error(p.field(cp, "minDomains"), "can only use minDomains if whenUnsatisfiable=DoNotSchedule");
    }
    checkLabelSelector(c.labelSelector, p.field(cp, "labelSelector"), ctx);
  });
  checkDuplicates(spec.topologySpreadConstraints, (c) => `{${c.topologyKey}, ${c.whenUnsatisfiable}}`, (i) => p.index(tsc, i), ctx);
}

function checkContainer(c: Container, path: string, ctx: CheckContext, opts: PodSpecOptions): void {
  if (!opts.template && (c.image === undefined || c.image === "")) ctx.error(p.field(path, "image"), "required value");
  checkDuplicates(c.ports?.filter((x) => x.name !== undefined), (x) => x.name, (i) => p.field(p.index(p.field(path, "ports"), i), "name"), ctx);
  const rp = p.field(path, "resources");
  const parsed = (list: Record<string, string> | undefined, field: string): Map<string, Quantity> => {
    const out = new Map<string, Quantity>();
    for (const [name, text] of Object.entries(list ?? {})) {
      const q = parseQuantity(text);
      if (!q.ok) continue;
      if (isNegativeQuantity(q.value)) ctx.error(p.key(p.field(rp, field), name), `invalid value ${JSON.stringify(text)}: must be greater than or equal to 0`);
      else out.set(name, q.value);
    }
    return out;
  };
  const requests = parsed(c.resources?.requests, "requests");
  const limits = parsed(c.resources?.limits, "limits");
  for (const [name, req] of requests) {
    const lim = limits.get(name);
    if (lim !== undefined && compareQuantities(req, lim) > 0) {
      ctx.error(p.key(p.field(rp, "requests"), name), `invalid value ${JSON.stringify(req.text)}: must be less than or equal to ${name} limit of ${lim.text}`);
    }
  }
}

function checkToleration(t: Toleration, path: string, ctx: CheckContext): void {
  const key = t.key ?? "";
  const operator = t.operator ?? "";
  if (key === "" && operator !== "Exists") {
    ctx.error(p.field(path, "operator"), 'must be Exists when `key` is empty, which means "match all values and all keys"');
  }
  if (operator === "Exists" && (t.value ?? "") !== "") ctx.error(p.field(path, "operator"), "value must be empty when `operator` is 'Exists'");
  if (t.tolerationSeconds !== undefined && t.effect !== "NoExecute") {
    ctx.error(p.field(path, "effect"), "effect must be 'NoExecute' when `tolerationSeconds` is set");
  }
}

function checkPodAffinityTerm(term: PodAffinityTerm, path: string, ctx: CheckContext): void {
  if (term.topologyKey === "") ctx.error(p.field(path, "topologyKey"), "can not be empty");
  else if (term.topologyKey !== undefined) {
    const m = checkQualifiedName(term.topologyKey);
    if (m !== null) ctx.error(p.field(path, "topologyKey"), m);
  }
  checkLabelSelector(term.labelSelector, p.field(path, "labelSelector"), ctx);
  checkLabelSelector(term.namespaceSelector, p.field(path, "namespaceSelector"), ctx);
  (term.namespaces ?? []).forEach((ns, i) => {
    const m = checkDns1123Label(ns);
    if (m !== null) ctx.error(p.index(p.field(path, "namespaces"), i), m);
  });
}

function checkAffinity(spec: PodSpec, path: string, ctx: CheckContext): void {
  const na = spec.affinity?.nodeAffinity;
  const req = na?.requiredDuringSchedulingIgnoredDuringExecution;
  if (req !== undefined) {
    const tp = p.field(p.field(p.field(path, "nodeAffinity"), "requiredDuringSchedulingIgnoredDuringExecution"), "nodeSelectorTerms");
    if (req.nodeSelectorTerms !== undefined && req.nodeSelectorTerms.length === 0) ctx.error(tp, "must have at least one node selector term");
    (req.nodeSelectorTerms ?? []).forEach((t, i) => checkNodeSelectorTerm(t, p.index(tp, i), ctx));
  }
  const prefPath = p.field(p.field(path, "nodeAffinity"), "preferredDuringSchedulingIgnoredDuringExecution");
  (na?.preferredDuringSchedulingIgnoredDuringExecution ?? []).forEach((t, i) => {
    if (t.preference !== undefined) checkNodeSelectorTerm(t.preference, p.field(p.index(prefPath, i), "preference"), ctx);
  });
  for (const kind of ["podAffinity", "podAntiAffinity"] as const) {
    const rules = spec.affinity?.[kind];
    const kp = p.field(path, kind);
    (rules?.requiredDuringSchedulingIgnoredDuringExecution ?? []).forEach((t, i) =>
      checkPodAffinityTerm(t, p.index(p.field(kp, "requiredDuringSchedulingIgnoredDuringExecution"), i), ctx),
    );
    (rules?.preferredDuringSchedulingIgnoredDuringExecution ?? []).forEach((w, i) => {
      if (w.podAffinityTerm !== undefined) {
        checkPodAffinityTerm(w.podAffinityTerm, p.field(p.index(p.field(kp, "preferredDuringSchedulingIgnoredDuringExecution"), i), "podAffinityTerm"), ctx);
      }
    });
  }
}

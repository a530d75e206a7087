// helper.DefaultSelector: the label selector of the group a pod belongs to, used by the default
// spreading constraints: the selectors of the Services that select the pod, ANDed with the selector of
// its controlling ReplicaSet. Empty when the pod belongs to neither.
import type { LabelSelector, LabelSelectorRequirement } from "kubernetes-types/meta/v1.js";
import type { ObjectStore } from "../../../k8s/index.js";
import { compileSelector } from "../../../k8s/selector.js";
import type { TermSelector } from "../../affinity-term.js";
import type { PodInfo } from "../../pod-info.js";

export function defaultSelector(pod: PodInfo, store: ObjectStore): TermSelector | null {
  const exprs: LabelSelectorRequirement[] = [];
  for (const svc of store.list("Service", { namespace: pod.namespace })) {
    const sel = svc.spec?.selector;
    if (sel === undefined) continue;
    const entries = Object.entries(sel);
    if (!entries.every(([k, v]) => pod.labels[k] === v)) continue;
    for (const [k, v] of entries) exprs.push({ key: k, operator: "In", values: [v] });
  }
  const owner = (pod.pod.metadata?.ownerReferences ?? []).find((o) => o.controller === true);
  if (owner !== undefined && owner.kind === "ReplicaSet" && owner.apiVersion === "apps/v1") {
    const rs = store.get("ReplicaSet", pod.namespace, owner.name);
    const sel: LabelSelector | undefined = rs?.spec?.selector;
    if (sel !== undefined) {
      for (const [k, v] of Object.entries(sel.matchLabels ?? {})) exprs.push({ key: k, operator: "In", values: [v] });
      exprs.push(...(sel.matchExpressions ?? []));
    }
  }
  if (exprs.length === 0) return null;
  const c = compileSelector({ matchExpressions: exprs });
  if (c.error !== null || c.isEmpty) return null;
  return { matches: (l) => c.matches(l), everything: false, nothing: false };
}

// Rules of metadata common to all kinds: a valid name (the syntax depends on the kind),
// a valid namespace, and no namespace on cluster-scoped kinds.
import type { ObjectMeta } from "kubernetes-types/meta/v1.js";
import { checkDns1035Label, checkDns1123Label, checkDns1123Subdomain } from "../names.js";
import { CLUSTER_SCOPED } from "../types.js";
import type { CheckContext } from "./context.js";

/** Namespaces use DNS-1123 labels, Services DNS-1035 labels, the rest DNS-1123 subdomains. */
export function nameCheckFor(kind: string): (v: string) => string | null {
  if (kind === "Namespace") return checkDns1123Label;
  if (kind === "Service") return checkDns1035Label;
  return checkDns1123Subdomain;
}

export function checkMeta(kind: string, meta: ObjectMeta | undefined, ctx: CheckContext): void {
  const name = meta?.name;
  if (name === undefined || name === "") {
    if (!ctx.hasErrorsUnder("metadata.name")) ctx.error("metadata.name", "required value");
  } else {
    const m = nameCheckFor(kind)(name);
    if (m !== null) ctx.error("metadata.name", m);
  }
  const ns = meta?.namespace;
  if (ns === undefined || ns === "") return;
  if (CLUSTER_SCOPED.has(kind)) ctx.warn("metadata.namespace", `ignored: ${kind} is cluster-scoped`);
  else {
    const m = checkDns1123Label(ns);
    if (m !== null) ctx.error("metadata.namespace", m);
  }
}

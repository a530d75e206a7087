// Rules of Pod, Node, PodDisruptionBudget and the requested pod address annotations.
import type { Node, Pod } from "kubernetes-types/core/v1.js";
import type { PodDisruptionBudget } from "kubernetes-types/policy/v1.js";
import { isCidr, isIp } from "../addresses.js";
import { isNegativeQuantity, parseQuantity } from "../quantity.js";
import { checkDuplicates, p, type CheckContext } from "./context.js";
import { checkPodSpec } from "./podspec.js";
import { checkLabelSelector } from "./selectors.js";

/** Calico's annotation for a requested pod address: a JSON list of IPs. */
export const CALICO_IP_ANNOTATION = "cni.projectcalico.org/ipAddrs";

export function checkPod(pod: Pod, ctx: CheckContext): void {
  checkPodSpec(pod.spec, "spec", ctx, { template: false });
  const ann = pod.metadata?.annotations?.[CALICO_IP_ANNOTATION];
  if (ann !== undefined && requestedAddresses(ann) === null) {
    ctx.error(p.key("metadata.annotations", CALICO_IP_ANNOTATION), `invalid value ${JSON.stringify(ann)}: must be a JSON list of IP addresses, e.g. ["10.224.1.5"]`);
  }
}

/** The addresses of a cni.projectcalico.org/ipAddrs annotation, or null when malformed. */
export function requestedAddresses(annotation: string): string[] | null {
  let parsed: unknown;
  try {
    parsed = JSON.parse(annotation);
  } catch {
    return null;
  }
  return Array.isArray(parsed) && parsed.every((x) => typeof x === "string" && isIp(x)) ? (parsed as string[]) : null;
}

export function checkNode(node: Node, ctx: CheckContext): void {
  checkDuplicates(
    node.spec?.taints,
    (t) => `${t.key}:${t.effect}`,
    (i) => p.index("spec.taints", i),
    ctx,
    (k) => `duplicate value ${JSON.stringify(k)}: taints must be unique by key and effect pair`,
  );
  const cidr = node.spec?.podCIDR;
  if (cidr !== undefined && !isCidr(cidr)) ctx.error("spec.podCIDR", `invalid value ${JSON.stringify(cidr)}: must be a valid CIDR`);
  for (const field of ["capacity", "allocatable"] as const) {
    for (const [name, text] of Object.entries(node.status?.[field] ?? {})) {
      const q = parseQuantity(text);
      if (q.ok && isNegativeQuantity(q.value)) {
        ctx.error(p.key(p.field("status", field), name), `invalid value ${JSON.stringify(text)}: must be greater than or equal to 0`);
      }
    }
  }
}

export function checkPodDisruptionBudget(pdb: PodDisruptionBudget, ctx: CheckContext): void {
  const spec = pdb.spec;
  if (spec?.minAvailable !== undefined && spec.maxUnavailable !== undefined) {
    ctx.error("spec", "minAvailable and maxUnavailable cannot be both set");
  }
  for (const field of ["minAvailable", "maxUnavailable"] as const) {
    const v = spec?.[field];
    if (typeof v === "string" && Number(v.slice(0, -1)) > 100) ctx.error(p.field("spec", field), "must not be greater than 100%");
  }
  checkLabelSelector(spec?.selector, "spec.selector", ctx);
}

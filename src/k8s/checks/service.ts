// Rules of a Service (after upstream's ValidateService): ports per type, port names when
// several, nodePort only on NodePort/LoadBalancer, traffic policies, session affinity.
import type { Service } from "kubernetes-types/core/v1.js";
import { checkDns1123Subdomain } from "../names.js";
import { checkDuplicates, p, type CheckContext } from "./context.js";

export function checkService(svc: Service, ctx: CheckContext): void {
  const spec = svc.spec ?? {};
  const type = spec.type ?? "ClusterIP";
  const ports = spec.ports ?? [];
  if (type === "ExternalName") {
    const name = spec.externalName ?? "";
    if (name === "") ctx.error("spec.externalName", "required value");
    else {
      const m = checkDns1123Subdomain(name.replace(/\.$/, ""));
      if (m !== null) ctx.error("spec.externalName", m);
    }
  } else if (ports.length === 0 && spec.clusterIP !== "None" && !ctx.hasErrorsUnder("spec.ports")) {
    ctx.error("spec.ports", "required value");
  }
  if (ports.length > 1) {
    ports.forEach((port, i) => {
      if ((port.name ?? "") === "") ctx.error(p.field(p.index("spec.ports", i), "name"), "required value");
    });
  }
  checkDuplicates(ports, (x) => x.name || undefined, (i) => p.field(p.index("spec.ports", i), "name"), ctx);
  checkDuplicates(
    ports,
    (x) => `${x.port}/${x.protocol ?? "TCP"}`,
    (i) => p.index("spec.ports", i),
    ctx,
    (k) => `duplicate value: port ${k}`,
  );
  const nodePortAllowed = type === "NodePort" || type === "LoadBalancer";
  ports.forEach((port, i) => {
    if (port.nodePort !== undefined && !nodePortAllowed) {
      ctx.error(p.field(p.index("spec.ports", i), "nodePort"), `may not be used when \`type\` is '${type}'`);
    }
  });
  if (spec.externalTrafficPolicy !== undefined && !nodePortAllowed) {
    ctx.error("spec.externalTrafficPolicy", "may only be set when `type` is 'NodePort' or 'LoadBalancer'");
  }
  if (spec.clusterIP === "None" && nodePortAllowed) ctx.error("spec.clusterIP", `may not be set to 'None' for ${type} services`);
  if (spec.sessionAffinityConfig !== undefined && (spec.sessionAffinity ?? "None") === "None") {
    ctx.error("spec.sessionAffinityConfig", "must not be set when `sessionAffinity` is None");
  }
  if (type === "LoadBalancer") {
    ctx.warn("spec.type", "LoadBalancer services behave as NodePort services in cnisim (there is no load balancer)");
  }
}

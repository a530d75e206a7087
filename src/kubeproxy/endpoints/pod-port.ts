// podutil.FindPort: the pod port a service port's targetPort means. A number is used as is; a name
// is looked up among the pod's containers' (and restartable init containers') ports with the same
// protocol, so different pods of one service may serve a named port on different numbers.
import type { ServicePort } from "kubernetes-types/core/v1.js";
import { err, ok, type Result } from "../../util/result.js";
import type { Pod } from "./pod-state.js";

export function findPodPort(pod: Pod, port: ServicePort): Result<number, string> {
  const target = port.targetPort ?? port.port;
  if (typeof target === "number") return ok(target === 0 ? port.port : target);
  const protocol = port.protocol ?? "TCP";
  const spec = pod.spec;
  const containers = [...(spec?.containers ?? []), ...(spec?.initContainers ?? []).filter((c) => c.restartPolicy === "Always")];
  for (const c of containers) {
    for (const p of c.ports ?? []) {
      if (p.name === target && (p.protocol ?? "TCP") === protocol) return ok(p.containerPort);
    }
  }
  return err(`Pod ${pod.metadata.namespace ?? "default"}/${pod.metadata.name}: no ${protocol} container port named ${JSON.stringify(target)} for service port ${JSON.stringify(port.name ?? "")}`);
}

// SCTP listeners for probes: every non-hostNetwork pod answers association setup on its declared SCTP
// containerPorts. Ports the runtime's containers already serve (an SctpEndpoint bound there) are left
// alone, so this only fills in while the pod containers do not serve SCTP themselves.
import type { ClusterRuntime } from "../runtime.js";
import { servedPorts } from "../containers/ports.js";
import { SctpEndpoint } from "../workloads/sctp-endpoint.js";

/** Opens the missing SCTP endpoints; returns a function that closes the ones it opened. */
export function openSctpListeners(rt: ClusterRuntime): () => void {
  const opened: SctpEndpoint[] = [];
  for (const pod of rt.pods()) {
    if (pod.hostNetwork) continue;
    for (const p of servedPorts(rt.store.get("Pod", pod.namespace, pod.name))) {
      if (p.protocol !== "SCTP") continue;
      const endpoint = new SctpEndpoint(pod.ns, p.port);
      if (endpoint.start().ok) opened.push(endpoint);
    }
  }
  return () => {
    for (const e of opened) e.stop();
  };
}

// Server listeners for probes: a pod listens on the TCP ports it declares (containerPort) and on 80
// when one of its containers runs nginx; every other port refuses, as a real pod would.
import type { ClusterRuntime } from "../runtime.js";
import { TcpStack } from "../../net/tcp/stack.js";
import type { TcpListener } from "../../net/tcp/listener.js";

/** The TCP ports pod `ns/name` serves according to its spec. */
export function servedTcpPorts(rt: ClusterRuntime, namespace: string, name: string): number[] {
  const pod = rt.store.get("Pod", namespace, name);
  const ports = new Set<number>();
  for (const c of pod?.spec?.containers ?? []) {
    for (const p of c.ports ?? []) if ((p.protocol ?? "TCP") === "TCP") ports.add(p.containerPort);
    if (/(^|\/)nginx(:|@|$)/.test(c.image ?? "")) ports.add(80);
  }
  return [...ports].sort((a, b) => a - b);
}

/** Opens the listeners of every non-hostNetwork pod; returns a function that closes them again. */
export function openServerListeners(rt: ClusterRuntime): () => void {
  const listeners: TcpListener[] = [];
  for (const pod of rt.pods()) {
    if (pod.hostNetwork) continue;
    for (const port of servedTcpPorts(rt, pod.namespace, pod.name)) {
      const l = TcpStack.of(pod.ns).listen(port, (sock) => sock.abort());
      if (l.ok) listeners.push(l.value);
    }
  }
  return () => {
    for (const l of listeners) l.close();
  };
}

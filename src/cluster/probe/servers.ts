// Server listeners for probes: a pod listens on the TCP ports it declares (containerPort) and on 80
// when one of its containers runs nginx, and echoes datagrams on its declared UDP ports; every other
// port refuses, as a real pod would.
import type { ClusterRuntime } from "../runtime.js";
import { TcpStack } from "../../net/tcp/stack.js";
import type { TcpListener } from "../../net/tcp/listener.js";
import { UdpEcho } from "../workloads/udp-echo.js";

/** The TCP ports pod `ns/name` serves according to its spec. */
export function servedTcpPorts(rt: ClusterRuntime, namespace: string, name: string): number[] {
  return servedPorts(rt, namespace, name, "TCP");
}

/** The UDP ports pod `ns/name` declares (answered with an echo of each datagram). */
export function servedUdpPorts(rt: ClusterRuntime, namespace: string, name: string): number[] {
  return servedPorts(rt, namespace, name, "UDP");
}

function servedPorts(rt: ClusterRuntime, namespace: string, name: string, protocol: "TCP" | "UDP"): number[] {
  const pod = rt.store.get("Pod", namespace, name);
  const ports = new Set<number>();
  for (const c of pod?.spec?.containers ?? []) {
    for (const p of c.ports ?? []) if ((p.protocol ?? "TCP") === protocol) ports.add(p.containerPort);
    if (protocol === "TCP" && /(^|\/)nginx(:|@|$)/.test(c.image ?? "")) ports.add(80);
  }
  return [...ports].sort((a, b) => a - b);
}

/** Opens the TCP listeners and UDP echoes of every non-hostNetwork pod; returns a function that closes them. */
export function openServerListeners(rt: ClusterRuntime): () => void {
  const listeners: TcpListener[] = [];
  const echoes: UdpEcho[] = [];
  for (const pod of rt.pods()) {
    if (pod.hostNetwork) continue;
    for (const port of servedTcpPorts(rt, pod.namespace, pod.name)) {
      const l = TcpStack.of(pod.ns).listen(port, (sock) => sock.abort());
      if (l.ok) listeners.push(l.value);
    }
    for (const port of servedUdpPorts(rt, pod.namespace, pod.name)) {
      const echo = new UdpEcho(pod.ns, port);
      if (echo.start().ok) echoes.push(echo);
    }
  }
  return () => {
    for (const l of listeners) l.close();
    for (const e of echoes) e.stop();
  };
}

// Server listeners for probes. The runtime's pod containers (ClusterRuntime.workloads) already serve
// every declared port and the ports well-known images listen on; openServerListeners only opens what
// they do not serve yet (a pod whose containers failed to start a port): TCP accept-then-reset and
// UDP echo. Every other port refuses, as a real pod would.
import type { ClusterRuntime } from "../runtime.js";
import { TcpStack } from "../../net/tcp/stack.js";
import type { TcpListener } from "../../net/tcp/listener.js";
import { UdpEcho } from "../workloads/udp-echo.js";
import { servedPorts } from "../containers/ports.js";

/** The TCP ports pod `ns/name` serves according to its spec. */
export function servedTcpPorts(rt: ClusterRuntime, namespace: string, name: string): number[] {
  return servedPortsOf(rt, namespace, name, "TCP");
}

/** The UDP ports pod `ns/name` declares (answered with an echo of each datagram). */
export function servedUdpPorts(rt: ClusterRuntime, namespace: string, name: string): number[] {
  return servedPortsOf(rt, namespace, name, "UDP");
}

function servedPortsOf(rt: ClusterRuntime, namespace: string, name: string, protocol: "TCP" | "UDP"): number[] {
  return servedPorts(rt.store.get("Pod", namespace, name)).filter((p) => p.protocol === protocol).map((p) => p.port);
}

/** Opens the listeners the pods' containers do not already serve; returns a function that closes them. */
export function openServerListeners(rt: ClusterRuntime): () => void {
  const listeners: TcpListener[] = [];
  const echoes: UdpEcho[] = [];
  for (const pod of rt.pods()) {
    if (pod.hostNetwork) continue;
    for (const port of servedTcpPorts(rt, pod.namespace, pod.name)) {
      if (rt.workloads.serves(pod.key, "TCP", port)) continue;
      const l = TcpStack.of(pod.ns).listen(port, (sock) => sock.abort());
      if (l.ok) listeners.push(l.value);
    }
    for (const port of servedUdpPorts(rt, pod.namespace, pod.name)) {
      if (rt.workloads.serves(pod.key, "UDP", port)) continue;
      const echo = new UdpEcho(pod.ns, port);
      if (echo.start().ok) echoes.push(echo);
    }
  }
  return () => {
    for (const l of listeners) l.close();
    for (const e of echoes) e.stop();
  };
}

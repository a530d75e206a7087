// Extra TCP listeners started inside a running pod, as `kubectl exec POD -- nc -lk -p PORT` would: an
// experiment that probes ports the pod's image does not serve (e.g. a NetworkPolicy port range) needs
// something listening there, or every attempt is refused before policy could matter.
import type { ClusterRuntime } from "../runtime.js";
import { TcpStack } from "../../net/tcp/stack.js";
import type { TcpListener } from "../../net/tcp/listener.js";
import { err, ok, type Result } from "../../util/result.js";

/** Listens on every port in pod `ns/name` (accepted connections are closed at once); returns the closer. */
export function listenInPod(rt: ClusterRuntime, podKey: string, ports: readonly number[]): Result<() => void, string> {
  const pod = rt.pod(podKey);
  if (pod === undefined) return err(`no pod named "${podKey}"`);
  const listeners: TcpListener[] = [];
  const close = (): void => {
    for (const l of listeners) l.close();
  };
  for (const port of ports) {
    const l = TcpStack.of(pod.ns).listen(port, (sock) => sock.abort());
    if (!l.ok) {
      close();
      return err(`${podKey}: ${l.error.detail}`);
    }
    listeners.push(l.value);
  }
  return ok(close);
}

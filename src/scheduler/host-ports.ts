// Host ports in use on a node (framework.HostPortInfo): (hostIP, protocol, port) triples, where
// 0.0.0.0 (or an empty hostIP) binds every address and so conflicts with any IP.
import type { Pod } from "kubernetes-types/core/v1.js";

export interface HostPort {
  readonly ip: string;
  readonly protocol: string;
  readonly port: number;
}

export const BIND_ALL = "0.0.0.0";

/** The ports of the pod's containers that ask for a host port (NodePorts' getContainerPorts). */
export function podHostPorts(pod: Pod): HostPort[] {
  const out: HostPort[] = [];
  for (const c of pod.spec?.containers ?? []) {
    for (const p of c.ports ?? []) {
      if ((p.hostPort ?? 0) <= 0) continue;
      out.push({ ip: p.hostIP === undefined || p.hostIP === "" ? BIND_ALL : p.hostIP, protocol: p.protocol ?? "TCP", port: p.hostPort! });
    }
  }
  return out;
}

export class HostPortInfo {
  /** "ip|proto|port" and "proto|port" -> number of pods holding it. */
  private readonly exact = new Map<string, number>();
  private readonly anyIp = new Map<string, number>();

  get size(): number {
    return this.exact.size;
  }

  add(p: HostPort, delta = 1): void {
    bump(this.exact, `${p.ip}|${p.protocol}|${p.port}`, delta);
    bump(this.anyIp, `${p.protocol}|${p.port}`, delta);
  }

  /** HostPortInfo.CheckConflict. */
  conflicts(p: HostPort): boolean {
    if (p.port <= 0) return false;
    if (p.ip === BIND_ALL) return this.anyIp.has(`${p.protocol}|${p.port}`);
    return this.exact.has(`${BIND_ALL}|${p.protocol}|${p.port}`) || this.exact.has(`${p.ip}|${p.protocol}|${p.port}`);
  }

  clone(): HostPortInfo {
    const c = new HostPortInfo();
    for (const [k, v] of this.exact) c.exact.set(k, v);
    for (const [k, v] of this.anyIp) c.anyIp.set(k, v);
    return c;
  }
}

function bump(m: Map<string, number>, key: string, delta: number): void {
  const v = (m.get(key) ?? 0) + delta;
  if (v <= 0) m.delete(key);
  else m.set(key, v);
}

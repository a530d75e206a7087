// The datapath's policy decision over compiled maps, as the programs make it: the peer address goes
// through the endpoint node's ipcache to an identity, and the endpoint's policy map gives the
// verdict. Used by tests, benches and explanations; programs inline the two lookups.
import { Direction as MapDirection, PolicyVerdict } from "../../datapath/maps/policy.js";
import type { PolicyCompiler } from "./compiler.js";

export type CompiledDecision = {
  readonly endpoint: string;
  readonly node: string;
  readonly direction: number;
  readonly peerIp: number;
  readonly identity: number;
  /** PolicyVerdict: ALLOW or MISS (a miss is a drop: no entry allows it). */
  readonly verdict: number;
  readonly ruleRef: number;
};

/** The decision at `podKey` for traffic with a peer address; null when the pod has no endpoint. */
export function decideAt(compiler: PolicyCompiler, podKey: string, direction: number, peerIp: number, proto: number, port: number): CompiledDecision | null {
  const ep = compiler.endpoint(podKey);
  if (!ep) return null;
  const ipcache = compiler.ipcacheOf(ep.pod.node)!;
  const identity = ipcache.lookupV4(peerIp >>> 0);
  const verdict = ep.map.lookup(direction, identity, proto, port);
  return { endpoint: podKey, node: ep.pod.node, direction, peerIp: peerIp >>> 0, identity, verdict, ruleRef: ep.map.lastRuleRef };
}

export type CompiledConnection = {
  readonly allowed: boolean;
  /** null when the source is not a pod (no egress policy applies). */
  readonly egress: CompiledDecision | null;
  /** null when the destination is not a pod (no ingress policy applies). */
  readonly ingress: CompiledDecision | null;
};

/** Egress at the source pod (if any) and ingress at the destination pod (if any) must both allow. */
export function decideConnection(compiler: PolicyCompiler, srcIp: number, dstIp: number, proto: number, port: number): CompiledConnection {
  const src = compiler.endpointByIp(srcIp >>> 0);
  const dst = compiler.endpointByIp(dstIp >>> 0);
  const egress = src ? decideAt(compiler, src.key, MapDirection.EGRESS, dstIp, proto, port) : null;
  const ingress = dst ? decideAt(compiler, dst.key, MapDirection.INGRESS, srcIp, proto, port) : null;
  const ok = (d: CompiledDecision | null) => d === null || d.verdict === PolicyVerdict.ALLOW;
  return { allowed: ok(egress) && ok(ingress), egress, ingress };
}

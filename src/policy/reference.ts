// Reference evaluator: a direct reading of the NetworkPolicy specification over the raw policy
// objects, with no identities, caches or compiled maps. It is the oracle the compiled datapath is
// tested against, and it explains every verdict. Slow on purpose: clarity over speed.
import type { NetworkPolicy, NetworkPolicyPeer, NetworkPolicyPort } from "kubernetes-types/networking/v1.js";
import { compileSelector } from "../k8s/selector.js";
import { formatIPv4, parseIPv4 } from "../util/ip.js";
import { err, ok, type Result } from "../util/result.js";
import { formatPrefix, parsePrefix, prefixContainsAddr } from "./prefix.js";
import { IpProto, protoName, type IpProtoName, type PodInfo, type PolicyOptions } from "./types.js";
import {
  Direction,
  DirectionReason,
  type ClauseFinding,
  type ConnectionVerdict,
  type DirectionName,
  type DirectionVerdict,
  type PolicyFinding,
  type RuleFinding,
} from "./verdict.js";
import type { PolicyWorld, WorldError } from "./world.js";

export type ConnectionEnd = { readonly pod: string } | { readonly ip: string | number };
export type ConnectionQuery = {
  readonly src: ConnectionEnd;
  readonly dst: ConnectionEnd;
  /** IP protocol number or name (TCP, UDP, SCTP, ICMP). */
  readonly protocol: number | IpProtoName;
  /** Destination port; 0 for protocols without ports. */
  readonly port: number;
};

/** What the evaluator knows about an address. */
export type AddressOwner =
  | { readonly kind: "pod"; readonly ip: number; readonly pod: PodInfo }
  | { readonly kind: "node"; readonly ip: number; readonly node: string }
  | { readonly kind: "external"; readonly ip: number };

export function addressOwner(world: PolicyWorld, ip: number): AddressOwner {
  const pod = world.podByIp(ip);
  if (pod) return { kind: "pod", ip, pod };
  const node = world.nodeByIp(ip);
  if (node) return { kind: "node", ip, node: node.name };
  return { kind: "external", ip };
}

export function describeOwner(o: AddressOwner): string {
  const ip = formatIPv4(o.ip);
  switch (o.kind) {
    case "pod":
      return `pod ${o.pod.key} (${ip})`;
    case "node":
      return `node ${o.node} (${ip})`;
    case "external":
      return `${ip} (outside the cluster)`;
  }
}

function resolveEnd(world: PolicyWorld, end: ConnectionEnd, field: string): Result<AddressOwner, WorldError> {
  if ("pod" in end) {
    const pod = world.pod(end.pod);
    if (!pod) return err({ object: `connection ${field}`, path: `${field}.pod`, reason: `no pod ${end.pod}` });
    return ok({ kind: "pod", ip: pod.ip, pod });
  }
  const ip = typeof end.ip === "number" ? end.ip >>> 0 : parseIPv4(end.ip);
  if (ip === null) return err({ object: `connection ${field}`, path: `${field}.ip`, reason: `not an IPv4 address: ${JSON.stringify(end.ip)}` });
  return ok(addressOwner(world, ip));
}

/** Evaluates one connection: egress must be allowed at the source and ingress at the destination. */
export function evaluateConnection(world: PolicyWorld, q: ConnectionQuery, options: PolicyOptions): Result<ConnectionVerdict, WorldError> {
  const src = resolveEnd(world, q.src, "src");
  if (!src.ok) return src;
  const dst = resolveEnd(world, q.dst, "dst");
  if (!dst.ok) return dst;
  const protocol = typeof q.protocol === "number" ? q.protocol : IpProto[q.protocol];
  if (protocol === undefined) return err({ object: "connection", path: "protocol", reason: `unknown protocol ${String(q.protocol)}` });
  const egress = evaluateDirection(world, Direction.EGRESS, src.value, dst.value, protocol, q.port, options);
  const ingress = evaluateDirection(world, Direction.INGRESS, dst.value, src.value, protocol, q.port, options);
  return ok({
    allowed: egress.allowed && ingress.allowed,
    src: describeOwner(src.value),
    dst: describeOwner(dst.value),
    protocol,
    port: q.port,
    egress,
    ingress,
  });
}

/** policyTypes as the spec defaults them: Ingress always; Egress when the policy has egress rules. */
export function effectivePolicyTypes(np: NetworkPolicy): string[] {
  const given = np.spec?.policyTypes ?? [];
  if (given.length > 0) return given;
  return (np.spec?.egress?.length ?? 0) > 0 ? ["Ingress", "Egress"] : ["Ingress"];
}

function policyNamespace(np: NetworkPolicy): string {
  return np.metadata?.namespace ?? "default";
}

/** A policy applies to a pod in a direction when it lives in the pod's namespace, its podSelector
 *  matches the pod and its policyTypes include the direction. */
function policyIsolates(np: NetworkPolicy, pod: PodInfo, direction: DirectionName): boolean {
  if (policyNamespace(np) !== pod.namespace) return false;
  if (!compileSelector(np.spec?.podSelector ?? {}).matches(pod.labels)) return false;
  return effectivePolicyTypes(np).includes(direction === Direction.INGRESS ? "Ingress" : "Egress");
}

/**
 * Evaluates one direction at `endpoint` (the destination for ingress, the source for egress) for
 * traffic whose other side is `peer`.
 */
export function evaluateDirection(
  world: PolicyWorld,
  direction: DirectionName,
  endpoint: AddressOwner,
  peer: AddressOwner,
  protocol: number,
  port: number,
  options: PolicyOptions,
): DirectionVerdict {
  const peerText = describeOwner(peer);
  if (endpoint.kind !== "pod") {
    return { direction, endpoint: null, peer: peerText, allowed: true, reason: DirectionReason.NOT_A_POD, policies: [] };
  }
  const pod = endpoint.pod;
  const base = { direction, endpoint: pod.key, peer: peerText };
  const isolating = [...world.allPolicies()].map((p) => p.raw).filter((np) => policyIsolates(np, pod, direction));
  // "the only connections allowed into a pod are those from the pod's node and those allowed by ingress policies"
  const fromOwnNode = direction === Direction.INGRESS && peer.kind === "node" && peer.node === pod.node;
  if (isolating.length === 0) {
    return { ...base, allowed: true, reason: DirectionReason.NOT_ISOLATED, policies: [] };
  }
  // For ingress the named ports belong to the endpoint; for egress to the destination, i.e. the peer.
  const portOwner = direction === Direction.INGRESS ? pod : peer.kind === "pod" ? peer.pod : null;
  const policies: PolicyFinding[] = isolating.map((np) => {
    const rules =
      direction === Direction.INGRESS
        ? (np.spec?.ingress ?? []).map((r) => ({ peers: r.from, ports: r.ports }))
        : (np.spec?.egress ?? []).map((r) => ({ peers: r.to, ports: r.ports }));
    const findings: RuleFinding[] = rules.map((rule, index) => {
      const peers = matchPeers(world, rule.peers, policyNamespace(np), peer, options);
      const ports = matchPorts(rule.ports, protocol, port, portOwner);
      return { index, allows: peers.matched && ports.matched, peers, ports };
    });
    return { policy: `${policyNamespace(np)}/${np.metadata?.name ?? ""}`, allows: findings.some((f) => f.allows), rules: findings };
  });
  if (fromOwnNode) return { ...base, allowed: true, reason: DirectionReason.OWN_NODE, policies };
  const allowed = policies.some((p) => p.allows);
  return { ...base, allowed, reason: allowed ? DirectionReason.RULE_ALLOWS : DirectionReason.NO_RULE_ALLOWS, policies };
}

/** An empty or missing peer list matches every peer; otherwise any one peer must match. */
function matchPeers(
  world: PolicyWorld,
  peers: readonly NetworkPolicyPeer[] | undefined,
  policyNs: string,
  target: AddressOwner,
  options: PolicyOptions,
): ClauseFinding {
  if (peers === undefined || peers.length === 0) return { matched: true, reasons: ["every peer (no from/to list)"] };
  const reasons: string[] = [];
  for (const p of peers) {
    const r = matchPeer(world, p, policyNs, target, options);
    if (r.matched) return { matched: true, reasons: [r.reason] };
    reasons.push(r.reason);
  }
  return { matched: false, reasons };
}

function matchPeer(
  world: PolicyWorld,
  peer: NetworkPolicyPeer,
  policyNs: string,
  target: AddressOwner,
  options: PolicyOptions,
): { matched: boolean; reason: string } {
  const ipText = formatIPv4(target.ip);
  if (peer.ipBlock) {
    const cidr = parsePrefix(peer.ipBlock.cidr);
    if (cidr === null) return { matched: false, reason: `ipBlock ${peer.ipBlock.cidr} is IPv6 and ${ipText} is IPv4` };
    const block = `ipBlock ${formatPrefix(cidr)}`;
    if (target.kind !== "external" && !options.ipBlockSelectsClusterAddresses) {
      return { matched: false, reason: `${block} does not select ${describeOwner(target)}: cluster addresses are matched by identity, never by ipBlock` };
    }
    if (!prefixContainsAddr(cidr, target.ip)) return { matched: false, reason: `${block} does not contain ${ipText}` };
    for (const text of peer.ipBlock.except ?? []) {
      const ex = parsePrefix(text)!;
      if (prefixContainsAddr(ex, target.ip)) return { matched: false, reason: `${block} excepts ${formatPrefix(ex)}, which contains ${ipText}` };
    }
    return { matched: true, reason: `${block} contains ${ipText}` };
  }
  if (target.kind !== "pod") {
    return { matched: false, reason: `pod/namespace selectors select pods only; ${describeOwner(target)} is not a pod` };
  }
  const pod = target.pod;
  const why: string[] = [];
  if (peer.namespaceSelector) {
    const ns = world.namespace(pod.namespace);
    const miss = compileSelector(peer.namespaceSelector).describeMismatch(ns.labels);
    for (const m of miss) why.push(`namespace ${pod.namespace} ${m}`);
  } else if (pod.namespace !== policyNs) {
    why.push(`pod ${pod.key} is not in namespace ${policyNs} (a podSelector alone selects the policy's namespace)`);
  }
  if (peer.podSelector) {
    for (const m of compileSelector(peer.podSelector).describeMismatch(pod.labels)) why.push(`pod ${pod.key} ${m}`);
  }
  if (why.length > 0) return { matched: false, reason: why.join("; ") };
  const what = [
    peer.namespaceSelector ? `namespaceSelector ${compileSelector(peer.namespaceSelector).describe()}` : `namespace ${policyNs}`,
    peer.podSelector ? `podSelector ${compileSelector(peer.podSelector).describe()}` : "every pod",
  ];
  return { matched: true, reason: `pod ${pod.key} matches ${what.join(" and ")}` };
}

function portLabel(p: NetworkPolicyPort): string {
  const proto = p.protocol ?? "TCP";
  if (p.port === undefined) return `*/${proto}`;
  if (p.endPort !== undefined && typeof p.port === "number") return `${p.port}-${p.endPort}/${proto}`;
  return `${p.port}/${proto}`;
}

/** An empty or missing port list matches every port and protocol; otherwise any one entry must match. */
function matchPorts(ports: readonly NetworkPolicyPort[] | undefined, protocol: number, port: number, portOwner: PodInfo | null): ClauseFinding {
  if (ports === undefined || ports.length === 0) return { matched: true, reasons: ["every port (no ports list)"] };
  const asked = `${port}/${protoName(protocol)}`;
  const details: string[] = [];
  for (const p of ports) {
    const proto = (p.protocol ?? "TCP") as IpProtoName;
    if (IpProto[proto] !== protocol) continue;
    if (p.port === undefined) return { matched: true, reasons: [`${asked} matches ${portLabel(p)}`] };
    if (typeof p.port === "number") {
      const hi = p.endPort ?? p.port;
      if (port >= p.port && port <= hi) return { matched: true, reasons: [`${asked} matches ${portLabel(p)}`] };
      continue;
    }
    // Named port: resolved against the destination pod's container ports of the same protocol.
    if (portOwner === null) {
      details.push(`named port ${p.port} cannot be resolved: the destination is not a pod`);
      continue;
    }
    const cp = portOwner.ports.find((c) => c.name === p.port && c.protocol === proto);
    if (!cp) details.push(`pod ${portOwner.key} has no ${proto} container port named ${p.port}`);
    else if (cp.port === port) return { matched: true, reasons: [`${asked} matches ${portLabel(p)} (container port ${cp.port} of pod ${portOwner.key})`] };
    else details.push(`named port ${p.port} is ${cp.port}/${proto} on pod ${portOwner.key}`);
  }
  return { matched: false, reasons: [`port ${asked} not in ports [${ports.map(portLabel).join(", ")}]`, ...details] };
}

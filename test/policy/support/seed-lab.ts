// The seed lab's cluster (../shared/scenarios/seed-lab.md) at the policy level: three nodes with
// underlay and Calico tunl0 addresses, namespaces web and cyh, pods web1/web2/test and cyh/test
// with the labels `kubectl run` gives them (run=<name>) and the addresses the lab printed.
import assert from "node:assert/strict";
import type { NetworkPolicy, NetworkPolicyIngressRule } from "kubernetes-types/networking/v1.js";
import { PolicyCompiler } from "../../../src/policy/compiler.js";
import { decideConnection } from "../../../src/policy/decide.js";
import { formatConnection } from "../../../src/policy/explain.js";
import { evaluateConnection, type ConnectionEnd } from "../../../src/policy/reference.js";
import { IpProto, type IpProtoName, type PolicyOptions } from "../../../src/policy/types.js";
import { PolicyWorld } from "../../../src/policy/world.js";
import { parseIPv4 } from "../../../src/util/ip.js";
import { unwrap } from "../../../src/util/result.js";

// tunl0 holds the first address of each node's /26 block (worker31 10.224.41.128/26 and
// worker32 10.224.193.64/26 as the lab's pod IPs show; master30's block is not printed, assumed).
export const LAB_NODES = [
  { name: "master30.cyh.cloud", ips: ["10.1.8.30", "10.224.120.0"] },
  { name: "worker31.cyh.cloud", ips: ["10.1.8.31", "10.224.41.128"] },
  { name: "worker32.cyh.cloud", ips: ["10.1.8.32", "10.224.193.64"] },
] as const;
export const CLIENT = "10.1.8.100";

export function buildLab(): PolicyWorld {
  const w = new PolicyWorld();
  for (const n of LAB_NODES) unwrap(w.setNode({ name: n.name, ips: [...n.ips] }));
  unwrap(w.setNamespace({ name: "web" }));
  unwrap(w.setNamespace({ name: "cyh" }));
  const pod = (namespace: string, name: string, ip: string, node: string) =>
    unwrap(w.setPod({ namespace, name, labels: { run: name }, ip, node }));
  pod("web", "web1", "10.224.193.67", "worker32.cyh.cloud");
  pod("web", "web2", "10.224.41.132", "worker31.cyh.cloud");
  pod("web", "test", "10.224.193.70", "worker32.cyh.cloud");
  pod("cyh", "test", "10.224.41.133", "worker31.cyh.cloud");
  return w;
}

/** The lab's policy shape: podSelector run=web1, policyTypes [Ingress], one ingress rule. */
export function web1Policy(rule: NetworkPolicyIngressRule, name = "my-network-policy"): NetworkPolicy {
  return {
    apiVersion: "networking.k8s.io/v1",
    kind: "NetworkPolicy",
    metadata: { name, namespace: "web" },
    spec: { podSelector: { matchLabels: { run: "web1" } }, policyTypes: ["Ingress"], ingress: [rule] },
  };
}

export type Lab = { world: PolicyWorld; compiler: PolicyCompiler; options: PolicyOptions };

export function newLab(options: PolicyOptions): Lab {
  const world = buildLab();
  return { world, compiler: new PolicyCompiler(world, options), options };
}

const end = (s: string): ConnectionEnd => (s.includes("/") ? { pod: s } : { ip: s });
const ipOf = (lab: Lab, s: string): number => (s.includes("/") ? lab.world.pod(s)!.ip : parseIPv4(s)!);

/** Reference verdict (with its explanation text), asserting the compiled maps agree. */
export function connect(lab: Lab, src: string, dst: string, protocol: IpProtoName, port: number): { allowed: boolean; text: string } {
  const ref = unwrap(evaluateConnection(lab.world, { src: end(src), dst: end(dst), protocol, port }, lab.options));
  const compiled = decideConnection(lab.compiler, ipOf(lab, src), ipOf(lab, dst), IpProto[protocol], port);
  assert.equal(compiled.allowed, ref.allowed, `compiled maps disagree with the reference for ${src} -> ${dst} ${port}/${protocol}`);
  return { allowed: ref.allowed, text: formatConnection(ref) };
}

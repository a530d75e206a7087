// The upstream Kubernetes network-policy e2e model (test/e2e/network/netpol/model.go and
// reachability.go): namespaces x, y, z labelled ns=<name>; pods named a, b, c labelled pod=<name>;
// one container per port x protocol with a named port serve-<port>-<proto>; truth tables that
// default to true and are edited with Expect / ExpectPeer / ExpectAllIngress / ExpectAllEgress.
import type { NetworkPolicy, NetworkPolicyEgressRule, NetworkPolicyIngressRule } from "kubernetes-types/networking/v1.js";
import type { LabelSelector } from "kubernetes-types/meta/v1.js";
import { PolicyWorld } from "../../../src/policy/world.js";
import { unwrap } from "../../../src/util/result.js";

export const NAMESPACES = ["x", "y", "z"] as const;
export const POD_NAMES = ["a", "b", "c"] as const;
const ALL_PODS = NAMESPACES.flatMap((ns) => POD_NAMES.map((p) => `${ns}/${p}`));

/** Deterministic placement: pods alternate between two nodes, addresses from each node's pod CIDR. */
export function podAddress(pod: string): string {
  const i = ALL_PODS.indexOf(pod);
  return `10.244.${1 + (i % 2)}.${10 + i}`;
}

export const NODES = [
  { name: "node-1", ips: ["172.18.0.2", "10.244.1.1"] },
  { name: "node-2", ips: ["172.18.0.3", "10.244.2.1"] },
] as const;

/** Builds the model world with the given pods ("x/a", ...); the three namespaces always exist. */
export function buildModel(pods: readonly string[]): PolicyWorld {
  const w = new PolicyWorld();
  for (const n of NODES) unwrap(w.setNode({ name: n.name, ips: [...n.ips] }));
  for (const ns of NAMESPACES) unwrap(w.setNamespace({ name: ns, labels: { ns } }));
  for (const pod of pods) {
    const [ns, name] = pod.split("/") as [string, string];
    const i = ALL_PODS.indexOf(pod);
    unwrap(
      w.setPod({
        namespace: ns,
        name,
        labels: { pod: name },
        ip: podAddress(pod),
        node: NODES[i % 2]!.name,
        ports: [80, 81].flatMap((port) =>
          ["TCP", "UDP", "SCTP"].map((protocol) => ({ name: `serve-${port}-${protocol.toLowerCase()}`, containerPort: port, protocol })),
        ),
      }),
    );
  }
  return w;
}

type Peer = { ns?: string; pod?: string };
const matches = (p: Peer, pod: string) => {
  const [ns, name] = pod.split("/");
  return (p.ns === undefined || p.ns === ns) && (p.pod === undefined || p.pod === name);
};

/** Expected connectivity, like upstream's Reachability with its default-true truth table. */
export class Reachability {
  private readonly table = new Map<string, boolean>();
  constructor(readonly pods: readonly string[]) {
    for (const f of pods) for (const t of pods) this.table.set(`${f}>${t}`, true);
  }
  expect(from: string, to: string, v: boolean): this {
    this.table.set(`${from}>${to}`, v);
    return this;
  }
  expectAllIngress(to: string, v: boolean): this {
    for (const f of this.pods) this.table.set(`${f}>${to}`, v);
    return this;
  }
  expectAllEgress(from: string, v: boolean): this {
    for (const t of this.pods) this.table.set(`${from}>${t}`, v);
    return this;
  }
  expectPeer(from: Peer, to: Peer, v: boolean): this {
    for (const f of this.pods) if (matches(from, f)) for (const t of this.pods) if (matches(to, t)) this.table.set(`${f}>${t}`, v);
    return this;
  }
  get(from: string, to: string): boolean {
    return this.table.get(`${from}>${to}`)!;
  }
}

/** GenNetworkPolicyWithNameAndPodSelector + SetSpecIngressRules / SetSpecEgressRules: each given
 *  rule list also appends its type to policyTypes, in the order given. */
export function genPolicy(
  name: string,
  namespace: string,
  podSelector: LabelSelector,
  rules: { ingress?: NetworkPolicyIngressRule[]; egress?: NetworkPolicyEgressRule[]; policyTypes?: string[] },
): NetworkPolicy {
  const policyTypes: string[] = [];
  const spec: NonNullable<NetworkPolicy["spec"]> = { podSelector, policyTypes };
  if (rules.ingress) {
    spec.ingress = rules.ingress;
    policyTypes.push("Ingress");
  }
  if (rules.egress) {
    spec.egress = rules.egress;
    policyTypes.push("Egress");
  }
  if (rules.policyTypes) spec.policyTypes = rules.policyTypes;
  return { apiVersion: "networking.k8s.io/v1", kind: "NetworkPolicy", metadata: { name, namespace }, spec };
}

/** GenNetworkPolicyWithNameAndPodMatchLabel */
export const genPolicyForLabels = (
  name: string,
  namespace: string,
  matchLabels: Record<string, string>,
  rules: Parameters<typeof genPolicy>[3],
): NetworkPolicy => genPolicy(name, namespace, { matchLabels }, rules);

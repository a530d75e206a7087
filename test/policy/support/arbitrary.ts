// fast-check generators of small clusters for property tests: namespaces with labels, pods with
// labels, addresses and named ports on two nodes, and NetworkPolicies using every feature the
// compiler handles (selectors with matchExpressions, ipBlocks with excepts, named ports, endPort,
// policyTypes defaulting), plus connections and incremental changes over them.
import fc from "fast-check";
import type { LabelSelector } from "kubernetes-types/meta/v1.js";
import type { NetworkPolicy, NetworkPolicyPeer, NetworkPolicyPort } from "kubernetes-types/networking/v1.js";
import { parsePrefix, prefixWithin } from "../../../src/policy/prefix.js";
import type { ConnectionQuery } from "../../../src/policy/reference.js";
import type { IpProtoName } from "../../../src/policy/types.js";
import type { ContainerPortInput, NamespaceInput, NodeInput, PodInput } from "../../../src/policy/world.js";

export const GEN_NAMESPACES = ["ns0", "ns1", "ns2"] as const;
export const GEN_NODES: readonly NodeInput[] = [
  { name: "n1", ips: ["192.168.0.1", "10.0.0.1"] },
  { name: "n2", ips: ["192.168.0.2", "10.0.1.1"] },
];
/** Pod addresses: two /24s of the pod range, some inside the /30 and /28 the ipBlocks use. */
const POD_IPS = ["10.0.0.4", "10.0.0.5", "10.0.0.6", "10.0.0.9", "10.0.0.20", "10.0.1.4", "10.0.1.5", "10.0.1.17", "10.0.1.30"];
/** Addresses outside the cluster that connections may come from or go to. */
export const EXTERNAL_IPS = ["203.0.113.5", "203.0.113.200", "10.0.0.200", "10.9.9.9", "192.168.0.77", "8.8.8.8"];
const PREFIXES = ["0.0.0.0/0", "10.0.0.0/8", "10.0.0.0/16", "10.0.0.0/24", "10.0.1.0/24", "10.0.0.4/30", "10.0.1.16/28", "10.0.0.5/32", "192.168.0.0/24", "192.168.0.1/32", "203.0.113.0/24", "203.0.113.0/25"];
const PORT_NUMBERS = [53, 80, 81, 443, 8080, 9090];
const PORT_NAMES = ["http", "dns", "metrics", "nope"];

const labelKey = fc.constantFrom("app", "tier", "role");
const labelValue = fc.constantFrom("x", "y", "z");
const labels = fc.dictionary(labelKey, labelValue, { maxKeys: 3 });
const nsLabels = fc.dictionary(fc.constantFrom("team", "env"), fc.constantFrom("a", "b"), { maxKeys: 2 });

export const namespaceArb: fc.Arbitrary<NamespaceInput> = fc.record({ name: fc.constantFrom(...GEN_NAMESPACES), labels: nsLabels });

const containerPorts: fc.Arbitrary<ContainerPortInput[]> = fc.uniqueArray(
  fc.record({
    name: fc.constantFrom("http", "dns", "metrics"),
    containerPort: fc.constantFrom(...PORT_NUMBERS),
    protocol: fc.constantFrom("TCP", "TCP", "TCP", "UDP", "SCTP"),
  }),
  { maxLength: 3, selector: (p) => p.name },
);

export function podArb(name: string, ip: string): fc.Arbitrary<PodInput> {
  return fc.record({
    namespace: fc.constantFrom(...GEN_NAMESPACES),
    name: fc.constant(name),
    labels,
    ip: fc.constant(ip),
    node: fc.constantFrom("n1", "n2"),
    ports: containerPorts,
  });
}

export const podsArb: fc.Arbitrary<PodInput[]> = fc
  .shuffledSubarray(POD_IPS, { minLength: 1, maxLength: 6 })
  .chain((ips) => fc.tuple(...ips.map((ip, i) => podArb(`p${i}`, ip))));

const selectorArb: fc.Arbitrary<LabelSelector> = fc.oneof(
  fc.constant({}),
  fc.record({ matchLabels: fc.dictionary(labelKey, labelValue, { minKeys: 1, maxKeys: 2 }) }),
  fc.record({
    matchExpressions: fc.array(
      fc.oneof(
        fc.record({ key: labelKey, operator: fc.constantFrom("In", "NotIn"), values: fc.uniqueArray(labelValue, { minLength: 1, maxLength: 2 }) }),
        fc.record({ key: labelKey, operator: fc.constantFrom("Exists", "DoesNotExist") }),
      ),
      { minLength: 1, maxLength: 2 },
    ),
  }),
);
const nsSelectorArb: fc.Arbitrary<LabelSelector> = fc.oneof(
  fc.constant({}),
  fc.record({ matchLabels: fc.dictionary(fc.constantFrom("team", "env"), fc.constantFrom("a", "b"), { minKeys: 1, maxKeys: 1 }) }),
  fc.record({
    matchExpressions: fc.constant([{ key: "kubernetes.io/metadata.name", operator: "In", values: ["ns1"] }]),
  }),
  fc.record({ matchExpressions: fc.constant([{ key: "team", operator: "NotIn", values: ["a"] }]) }),
) as fc.Arbitrary<LabelSelector>;

const ipBlockArb: fc.Arbitrary<NetworkPolicyPeer> = fc.constantFrom(...PREFIXES).chain((cidr) => {
  const outer = parsePrefix(cidr)!;
  const inner = PREFIXES.filter((p) => {
    const x = parsePrefix(p)!;
    return prefixWithin(x, outer) && x.len > outer.len;
  });
  return fc.uniqueArray(fc.constantFrom(...(inner.length > 0 ? inner : [""])), { maxLength: inner.length > 0 ? 2 : 0 }).map((except) =>
    except.length > 0 ? { ipBlock: { cidr, except } } : { ipBlock: { cidr } },
  );
});

const peerArb: fc.Arbitrary<NetworkPolicyPeer> = fc.oneof(
  selectorArb.map((podSelector) => ({ podSelector })),
  nsSelectorArb.map((namespaceSelector) => ({ namespaceSelector })),
  fc.tuple(nsSelectorArb, selectorArb).map(([namespaceSelector, podSelector]) => ({ namespaceSelector, podSelector })),
  ipBlockArb,
  fc.constant<NetworkPolicyPeer>({ ipBlock: { cidr: "2001:db8::/64", except: ["2001:db8::/96"] } }),
);

const portArb: fc.Arbitrary<NetworkPolicyPort> = fc.oneof(
  fc.record({ protocol: fc.constantFrom("TCP", "UDP", "SCTP") }),
  fc.record({ protocol: fc.constantFrom("TCP", "UDP", "SCTP"), port: fc.constantFrom(...PORT_NUMBERS) }, { requiredKeys: ["port"] }),
  fc.record({ port: fc.constantFrom(...PORT_NUMBERS), endPort: fc.constantFrom(81, 443, 9090) }).filter((p) => p.endPort >= p.port),
  {
    arbitrary: fc.record({ protocol: fc.constantFrom("TCP", "UDP", "SCTP"), port: fc.constantFrom(...PORT_NAMES) }, { requiredKeys: ["port"] }),
    weight: 3,
  },
);

const ruleParts = fc.record({
  peers: fc.option(fc.array(peerArb, { maxLength: 2 }), { nil: undefined }),
  ports: fc.option(fc.array(portArb, { maxLength: 2 }), { nil: undefined }),
});

export function policyArb(name: string): fc.Arbitrary<NetworkPolicy> {
  return fc
    .record({
      namespace: fc.constantFrom(...GEN_NAMESPACES),
      podSelector: selectorArb,
      policyTypes: fc.constantFrom<string[] | undefined>(undefined, ["Ingress"], ["Egress"], ["Ingress", "Egress"]),
      ingress: fc.option(fc.array(ruleParts, { maxLength: 2 }), { nil: undefined }),
      egress: fc.option(fc.array(ruleParts, { maxLength: 2 }), { nil: undefined }),
    })
    .map((g) => {
      const spec: NonNullable<NetworkPolicy["spec"]> = { podSelector: g.podSelector };
      if (g.policyTypes) spec.policyTypes = g.policyTypes;
      if (g.ingress) spec.ingress = g.ingress.map((r) => ({ ...(r.peers ? { from: r.peers } : {}), ...(r.ports ? { ports: r.ports } : {}) }));
      if (g.egress) spec.egress = g.egress.map((r) => ({ ...(r.peers ? { to: r.peers } : {}), ...(r.ports ? { ports: r.ports } : {}) }));
      return { apiVersion: "networking.k8s.io/v1", kind: "NetworkPolicy", metadata: { name, namespace: g.namespace }, spec };
    });
}

export const policiesArb: fc.Arbitrary<NetworkPolicy[]> = fc.integer({ min: 0, max: 5 }).chain((n) => fc.tuple(...Array.from({ length: n }, (_, i) => policyArb(`np${i}`))));

export type GenCluster = { namespaces: NamespaceInput[]; pods: PodInput[]; policies: NetworkPolicy[] };
export const clusterArb: fc.Arbitrary<GenCluster> = fc.record({
  namespaces: fc.uniqueArray(namespaceArb, { maxLength: 3, selector: (n) => n.name }),
  pods: podsArb,
  policies: policiesArb,
});

/** A connection, mostly between pods and often to a port the destination pod names, so that
 *  selectors, named ports and ipBlocks over pod addresses are exercised; sometimes via nodes or
 *  outside addresses. */
export function connectionArb(c: GenCluster): fc.Arbitrary<ConnectionQuery> {
  const podIps = c.pods.map((p) => p.ip);
  const others = [...GEN_NODES.flatMap((n) => n.ips), ...EXTERNAL_IPS];
  const address = fc.oneof({ arbitrary: fc.constantFrom(...podIps), weight: 3 }, { arbitrary: fc.constantFrom(...others), weight: 1 });
  const anyPort = fc.record({
    protocol: fc.constantFrom<IpProtoName>("TCP", "UDP", "SCTP", "ICMP"),
    port: fc.constantFrom(0, ...PORT_NUMBERS, 100, 8000),
  });
  return fc.tuple(address, address).chain(([src, dst]) => {
    const named = c.pods.find((p) => p.ip === dst)?.ports ?? [];
    const portArb =
      named.length === 0
        ? anyPort
        : fc.oneof(anyPort, fc.constantFrom(...named).map((p) => ({ protocol: (p.protocol ?? "TCP") as IpProtoName, port: p.containerPort })));
    return portArb.map(({ protocol, port }) => ({ src: { ip: src }, dst: { ip: dst }, protocol, port }));
  });
}

/** One change to apply to a world. */
export type Change =
  | { kind: "setPod"; pod: PodInput }
  | { kind: "removePod"; index: number }
  | { kind: "relabelPod"; index: number; labels: Record<string, string> }
  | { kind: "setNamespace"; ns: NamespaceInput }
  | { kind: "setPolicy"; policy: NetworkPolicy }
  | { kind: "removePolicy"; index: number }
  | { kind: "setNode"; node: NodeInput };

export const changeArb: fc.Arbitrary<Change> = fc.oneof(
  fc.tuple(fc.constantFrom(...POD_IPS), fc.integer({ min: 0, max: 7 })).chain(([ip, i]) => podArb(`p${i}`, ip).map((pod) => ({ kind: "setPod" as const, pod }))),
  fc.nat(7).map((index) => ({ kind: "removePod" as const, index })),
  fc.tuple(fc.nat(7), labels).map(([index, l]) => ({ kind: "relabelPod" as const, index, labels: l })),
  namespaceArb.map((ns) => ({ kind: "setNamespace" as const, ns })),
  fc.integer({ min: 0, max: 5 }).chain((i) => policyArb(`np${i}`).map((policy) => ({ kind: "setPolicy" as const, policy }))),
  fc.nat(5).map((index) => ({ kind: "removePolicy" as const, index })),
  fc.constantFrom<NodeInput>(
    { name: "n1", ips: ["192.168.0.1", "10.0.0.1"] },
    { name: "n1", ips: ["192.168.0.1", "10.0.0.2", "203.0.113.9"] },
    { name: "n2", ips: ["192.168.0.2"] },
    { name: "n2", ips: ["192.168.0.2", "10.0.1.1"] },
  ).map((node) => ({ kind: "setNode" as const, node })),
);

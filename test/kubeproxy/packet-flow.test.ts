// Upstream's packet-flow tests (kubernetes/kubernetes pkg/proxy/iptables/proxier_test.go, test names
// cited) run through the real netfilter model: the generated rules are loaded with iptables-restore
// and connection attempts go through the hooks. Expected outputs and masquerade flags are
// upstream's; upstream lists every endpoint a flow can reach, the harness collects them over many
// attempts. Upstream's NewFakeProxier settings are used, without the nfacct matches (not modelled).
import { test } from "node:test";
import assert from "node:assert/strict";
import { FlowHarness, sortedOutput, type Flow } from "./flow-harness.js";
import { makeService, makeSlice, setIngress, TEST_NODE, tcpPort, type Service } from "./fixtures.js";
import type { EndpointSlice } from "kubernetes-types/discovery/v1.js";
import type { ProxierConfigInput } from "../../src/kubeproxy/index.js";

const NODE_IP = "192.168.0.2";
const NODE_IP_ALT = "192.168.1.2";
const EXTERNAL_CLIENT = "203.0.113.2";

function run(services: Service[], slices: EndpointSlice[], flows: readonly Flow[], config: Partial<ProxierConfigInput> = {}): void {
  const h = new FlowHarness();
  h.load(services, slices, config);
  for (const f of flows) {
    const got = h.trace(f);
    assert.equal(got.output, sortedOutput(f.output), `${f.name}: output`);
    if (f.output !== "" && f.output !== "DROP" && f.output !== "REJECT") assert.equal(got.masq, f.masq ?? false, `${f.name}: masquerade`);
  }
}

test("TestNoEndpointsReject: ClusterIP, external IP, NodePort and LB IP of a service without endpoints are rejected", () => {
  const svc = makeService("ns1", "svc1", (s) => {
    s.spec = { type: "LoadBalancer", clusterIP: "172.30.0.41", externalIPs: ["192.168.99.11"], ports: [{ ...tcpPort("p80", 80), nodePort: 3001 }] };
    setIngress(s, ["1.2.3.4"]);
  });
  run(
    [svc],
    [],
    [
      { name: "pod to cluster IP with no endpoints", sourceIP: "10.0.0.2", destIP: "172.30.0.41", destPort: 80, output: "REJECT" },
      { name: "external to external IP with no endpoints", sourceIP: EXTERNAL_CLIENT, destIP: "192.168.99.11", destPort: 80, output: "REJECT" },
      { name: "pod to NodePort with no endpoints", sourceIP: "10.0.0.2", destIP: NODE_IP, destPort: 3001, output: "REJECT" },
      { name: "external to NodePort with no endpoints", sourceIP: EXTERNAL_CLIENT, destIP: NODE_IP, destPort: 3001, output: "REJECT" },
      { name: "pod to LoadBalancer IP with no endpoints", sourceIP: "10.0.0.2", destIP: "1.2.3.4", destPort: 80, output: "REJECT" },
      { name: "external to LoadBalancer IP with no endpoints", sourceIP: EXTERNAL_CLIENT, destIP: "1.2.3.4", destPort: 80, output: "REJECT" },
    ],
  );
});

test("TestClusterIPGeneral: hairpin, multiple endpoints, targetPort, TCP and UDP on one port", () => {
  const services = [
    makeService("ns1", "svc1", (s) => (s.spec = { clusterIP: "172.30.0.41", ports: [tcpPort("http", 80)] })),
    makeService("ns2", "svc2", (s) => {
      s.spec = {
        clusterIP: "172.30.0.42",
        ports: [tcpPort("http", 80), { ...tcpPort("https", 443), targetPort: 8443 }, { name: "dns-udp", port: 53, protocol: "UDP" }, { ...tcpPort("dns-tcp", 53), targetPort: 5353 }],
      };
    }),
  ];
  const slices = [
    makeSlice("ns1", "svc1", 1, (e) => ((e.endpoints = [{ addresses: ["10.180.0.1"], nodeName: TEST_NODE }]), (e.ports = [tcpPort("http", 80)]))),
    makeSlice("ns2", "svc2", 1, (e) => {
      e.endpoints = [
        { addresses: ["10.180.0.1"], nodeName: TEST_NODE },
        { addresses: ["10.180.2.1"], nodeName: "node2" },
      ];
      e.ports = [tcpPort("http", 80), tcpPort("https", 8443), { name: "dns-udp", port: 53, protocol: "UDP" }, tcpPort("dns-tcp", 5353)];
    }),
  ];
  run(services, slices, [
    { name: "simple clusterIP", sourceIP: "10.180.0.2", destIP: "172.30.0.41", destPort: 80, output: "10.180.0.1:80", masq: false },
    { name: "hairpin to cluster IP", sourceIP: "10.180.0.1", destIP: "172.30.0.41", destPort: 80, output: "10.180.0.1:80", masq: true },
    { name: "clusterIP with multiple endpoints", sourceIP: "10.180.0.2", destIP: "172.30.0.42", destPort: 80, output: "10.180.0.1:80, 10.180.2.1:80", masq: false },
    { name: "clusterIP with TargetPort", sourceIP: "10.180.0.2", destIP: "172.30.0.42", destPort: 443, output: "10.180.0.1:8443, 10.180.2.1:8443", masq: false },
    { name: "clusterIP with TCP and UDP on same port (TCP)", sourceIP: "10.180.0.2", protocol: "tcp", destIP: "172.30.0.42", destPort: 53, output: "10.180.0.1:5353, 10.180.2.1:5353", masq: false },
    { name: "clusterIP with TCP and UDP on same port (UDP)", sourceIP: "10.180.0.2", protocol: "udp", destIP: "172.30.0.42", destPort: 53, output: "10.180.0.1:53, 10.180.2.1:53", masq: false },
    { name: "TCP-only port does not match UDP traffic", sourceIP: "10.180.0.2", protocol: "udp", destIP: "172.30.0.42", destPort: 80, output: "" },
    { name: "svc1 does not accept svc2's ports", sourceIP: "10.180.0.2", destIP: "172.30.0.41", destPort: 443, output: "" },
  ]);
});

function lbService(etp: "Local" | "Cluster"): Service {
  return makeService("ns1", "svc1", (s) => {
    s.spec = {
      type: "LoadBalancer",
      externalTrafficPolicy: etp,
      clusterIP: "172.30.0.41",
      externalIPs: ["192.168.99.11"],
      ports: [{ ...tcpPort("p80", 80), nodePort: 3001, targetPort: 80 }],
      ...(etp === "Local" ? { healthCheckNodePort: 30000 } : {}),
    };
    setIngress(s, ["1.2.3.4"]);
  });
}

const twoEndpoints = makeSlice("ns1", "svc1", 1, (e) => {
  e.endpoints = [{ addresses: ["10.180.0.1"] }, { addresses: ["10.180.2.1"], nodeName: TEST_NODE }];
  e.ports = [tcpPort("p80", 80)];
});

test("TestExternalTrafficPolicyLocal: external sources reach only the local endpoint, unmasqueraded", () => {
  const both = "10.180.0.1:80, 10.180.2.1:80";
  run(
    [lbService("Local")],
    [twoEndpoints],
    [
      { name: "pod to cluster IP hits both endpoints, unmasqueraded", sourceIP: "10.0.0.2", destIP: "172.30.0.41", destPort: 80, output: both, masq: false },
      { name: "pod to external IP hits both endpoints, unmasqueraded", sourceIP: "10.0.0.2", destIP: "192.168.99.11", destPort: 80, output: both, masq: false },
      { name: "external to external IP hits only local endpoint, unmasqueraded", sourceIP: EXTERNAL_CLIENT, destIP: "192.168.99.11", destPort: 80, output: "10.180.2.1:80", masq: false },
      { name: "pod to LB IP hits only both endpoints, unmasqueraded", sourceIP: "10.0.0.2", destIP: "1.2.3.4", destPort: 80, output: both, masq: false },
      { name: "external to LB IP hits only local endpoint, unmasqueraded", sourceIP: EXTERNAL_CLIENT, destIP: "1.2.3.4", destPort: 80, output: "10.180.2.1:80", masq: false },
      { name: "pod to NodePort hits both endpoints, unmasqueraded", sourceIP: "10.0.0.2", destIP: NODE_IP, destPort: 3001, output: both, masq: false },
      { name: "external to NodePort hits only local endpoint, unmasqueraded", sourceIP: EXTERNAL_CLIENT, destIP: NODE_IP, destPort: 3001, output: "10.180.2.1:80", masq: false },
    ],
  );
});

test("TestExternalTrafficPolicyCluster: everything but pod-to-ClusterIP is masqueraded and may use any endpoint", () => {
  const both = "10.180.0.1:80, 10.180.2.1:80";
  run(
    [lbService("Cluster")],
    [twoEndpoints],
    [
      { name: "pod to cluster IP hits both endpoints, unmasqueraded", sourceIP: "10.0.0.2", destIP: "172.30.0.41", destPort: 80, output: both, masq: false },
      { name: "pod to external IP hits both endpoints, masqueraded", sourceIP: "10.0.0.2", destIP: "192.168.99.11", destPort: 80, output: both, masq: true },
      { name: "external to external IP hits both endpoints, masqueraded", sourceIP: EXTERNAL_CLIENT, destIP: "192.168.99.11", destPort: 80, output: both, masq: true },
      { name: "pod to LB IP hits both endpoints, masqueraded", sourceIP: "10.0.0.2", destIP: "1.2.3.4", destPort: 80, output: both, masq: true },
      { name: "external to LB IP hits both endpoints, masqueraded", sourceIP: EXTERNAL_CLIENT, destIP: "1.2.3.4", destPort: 80, output: both, masq: true },
      { name: "pod to NodePort hits both endpoints, masqueraded", sourceIP: "10.0.0.2", destIP: NODE_IP, destPort: 3001, output: both, masq: true },
      { name: "external to NodePort hits both endpoints, masqueraded", sourceIP: EXTERNAL_CLIENT, destIP: NODE_IP, destPort: 3001, output: both, masq: true },
    ],
  );
});

test("TestNodePorts (IPv4): localhost NodePorts and --nodeport-addresses", () => {
  const svc = makeService("ns1", "svc1", (s) => (s.spec = { type: "NodePort", clusterIP: "172.30.0.41", ports: [{ ...tcpPort("p80", 80), nodePort: 3001 }] }));
  const slice = makeSlice("ns1", "svc1", 1, (e) => {
    e.endpoints = [{ addresses: ["10.180.0.1"] }, { addresses: ["10.180.2.1"], nodeName: TEST_NODE }];
    e.ports = [tcpPort("p80", 80)];
  });
  const output = "10.180.0.1:80, 10.180.2.1:80";
  const cases = [
    { name: "localhost-nodeports enabled", localhost: true, addresses: undefined, alt: true },
    { name: "localhost-nodeports disabled", localhost: false, addresses: undefined, alt: true },
    { name: "localhost in nodeport-addresses but disabled", localhost: false, addresses: ["192.168.0.0/24", "127.0.0.1/32"], alt: false },
    { name: "multiple nodeport-addresses", localhost: false, addresses: ["192.168.0.0/24", "192.168.1.0/24", "2001:db8::/64"], alt: true },
  ];
  for (const c of cases) {
    const h = new FlowHarness();
    const nodeAddresses = [NODE_IP, NODE_IP_ALT, "192.168.99.11", "127.0.0.1"];
    h.load([svc], [slice], { localhostNodePorts: c.localhost, ...(c.addresses !== undefined ? { nodePortAddresses: c.addresses } : {}) }, nodeAddresses);
    const check = (f: Flow): void => {
      const got = h.trace(f);
      assert.equal(got.output, sortedOutput(f.output), `${c.name} / ${f.name}`);
      if (f.output !== "") assert.equal(got.masq, f.masq, `${c.name} / ${f.name}: masquerade`);
    };
    check({ name: "pod to cluster IP", sourceIP: "10.0.0.2", destIP: "172.30.0.41", destPort: 80, output, masq: false });
    check({ name: "external to nodePort", sourceIP: EXTERNAL_CLIENT, destIP: NODE_IP, destPort: 3001, output, masq: true });
    check({ name: "node to nodePort", sourceIP: NODE_IP, destIP: NODE_IP, destPort: 3001, output, masq: true });
    check(
      c.localhost
        ? { name: "localhost to nodePort gets masqueraded", sourceIP: "127.0.0.1", destIP: "127.0.0.1", destPort: 3001, output, masq: true }
        : { name: "localhost to nodePort is ignored", sourceIP: "127.0.0.1", destIP: "127.0.0.1", destPort: 3001, output: "" },
    );
    check(
      c.alt
        ? { name: "external to nodePort on secondary IP", sourceIP: EXTERNAL_CLIENT, destIP: NODE_IP_ALT, destPort: 3001, output, masq: true }
        : { name: "secondary nodeIP ignores NodePorts", sourceIP: EXTERNAL_CLIENT, destIP: NODE_IP_ALT, destPort: 3001, output: "" },
    );
  }
});

/** TestInternalExternalMasquerade's services: Cluster policies, eTP:Local, iTP:Local. */
function masqueradeSetup(): { services: Service[]; slices: EndpointSlice[] } {
  const mk = (n: number, extra: (s: Service) => void): Service =>
    makeService(`ns${n}`, `svc${n}`, (s) => {
      s.spec = { type: "LoadBalancer", clusterIP: `172.30.0.4${n}`, ports: [{ ...tcpPort("p80", 80), nodePort: 3000 + n }], healthCheckNodePort: 30000 + n };
      extra(s);
    });
  const services = [
    mk(1, (s) => setIngress(s, ["1.2.3.4"])),
    mk(2, (s) => {
      s.spec!.externalTrafficPolicy = "Local";
      setIngress(s, ["5.6.7.8"]);
    }),
    mk(3, (s) => {
      s.spec!.internalTrafficPolicy = "Local";
      setIngress(s, ["9.10.11.12"]);
    }),
  ];
  const slices = [1, 2, 3].map((n) =>
    makeSlice(`ns${n}`, `svc${n}`, 1, (e) => {
      e.endpoints = [
        { addresses: [`10.180.0.${n}`], nodeName: TEST_NODE },
        { addresses: [`10.180.1.${n}`], nodeName: "remote" },
      ];
      e.ports = [tcpPort("p80", 80)];
    }),
  );
  return { services, slices };
}

const MASQ_FLOWS: readonly Flow[] = [
  { name: "pod to ClusterIP", sourceIP: "10.0.0.2", destIP: "172.30.0.41", destPort: 80, output: "10.180.0.1:80, 10.180.1.1:80", masq: false },
  { name: "pod to NodePort", sourceIP: "10.0.0.2", destIP: NODE_IP, destPort: 3001, output: "10.180.0.1:80, 10.180.1.1:80", masq: true },
  { name: "pod to LB", sourceIP: "10.0.0.2", destIP: "1.2.3.4", destPort: 80, output: "10.180.0.1:80, 10.180.1.1:80", masq: true },
  { name: "node to ClusterIP", sourceIP: NODE_IP, destIP: "172.30.0.41", destPort: 80, output: "10.180.0.1:80, 10.180.1.1:80", masq: true },
  { name: "node to NodePort", sourceIP: NODE_IP, destIP: NODE_IP, destPort: 3001, output: "10.180.0.1:80, 10.180.1.1:80", masq: true },
  { name: "localhost to NodePort", sourceIP: "127.0.0.1", destIP: "127.0.0.1", destPort: 3001, output: "10.180.0.1:80, 10.180.1.1:80", masq: true },
  { name: "node to LB", sourceIP: NODE_IP, destIP: "1.2.3.4", destPort: 80, output: "10.180.0.1:80, 10.180.1.1:80", masq: true },
  { name: "external to ClusterIP", sourceIP: EXTERNAL_CLIENT, destIP: "172.30.0.41", destPort: 80, output: "10.180.0.1:80, 10.180.1.1:80", masq: true },
  { name: "external to NodePort", sourceIP: EXTERNAL_CLIENT, destIP: NODE_IP, destPort: 3001, output: "10.180.0.1:80, 10.180.1.1:80", masq: true },
  { name: "external to LB", sourceIP: EXTERNAL_CLIENT, destIP: "1.2.3.4", destPort: 80, output: "10.180.0.1:80, 10.180.1.1:80", masq: true },
  { name: "pod to ClusterIP with eTP:Local", sourceIP: "10.0.0.2", destIP: "172.30.0.42", destPort: 80, output: "10.180.0.2:80, 10.180.1.2:80", masq: false },
  { name: "pod to NodePort with eTP:Local", sourceIP: "10.0.0.2", destIP: NODE_IP, destPort: 3002, output: "10.180.0.2:80, 10.180.1.2:80", masq: false },
  { name: "pod to LB with eTP:Local", sourceIP: "10.0.0.2", destIP: "5.6.7.8", destPort: 80, output: "10.180.0.2:80, 10.180.1.2:80", masq: false },
  { name: "node to ClusterIP with eTP:Local", sourceIP: NODE_IP, destIP: "172.30.0.42", destPort: 80, output: "10.180.0.2:80, 10.180.1.2:80", masq: true },
  { name: "node to NodePort with eTP:Local", sourceIP: NODE_IP, destIP: NODE_IP, destPort: 3001, output: "10.180.0.1:80, 10.180.1.1:80", masq: true },
  { name: "localhost to NodePort with eTP:Local", sourceIP: "127.0.0.1", destIP: "127.0.0.1", destPort: 3002, output: "10.180.0.2:80, 10.180.1.2:80", masq: true },
  { name: "node to LB with eTP:Local", sourceIP: NODE_IP, destIP: "5.6.7.8", destPort: 80, output: "10.180.0.2:80, 10.180.1.2:80", masq: true },
  { name: "external to ClusterIP with eTP:Local", sourceIP: EXTERNAL_CLIENT, destIP: "172.30.0.42", destPort: 80, output: "10.180.0.2:80, 10.180.1.2:80", masq: true },
  { name: "external to NodePort with eTP:Local", sourceIP: EXTERNAL_CLIENT, destIP: NODE_IP, destPort: 3002, output: "10.180.0.2:80", masq: false },
  { name: "external to LB with eTP:Local", sourceIP: EXTERNAL_CLIENT, destIP: "5.6.7.8", destPort: 80, output: "10.180.0.2:80", masq: false },
  { name: "pod to ClusterIP with iTP:Local", sourceIP: "10.0.0.2", destIP: "172.30.0.43", destPort: 80, output: "10.180.0.3:80", masq: false },
  { name: "pod to NodePort with iTP:Local", sourceIP: "10.0.0.2", destIP: NODE_IP, destPort: 3003, output: "10.180.0.3:80, 10.180.1.3:80", masq: true },
  { name: "pod to LB with iTP:Local", sourceIP: "10.0.0.2", destIP: "9.10.11.12", destPort: 80, output: "10.180.0.3:80, 10.180.1.3:80", masq: true },
  { name: "node to ClusterIP with iTP:Local", sourceIP: NODE_IP, destIP: "172.30.0.43", destPort: 80, output: "10.180.0.3:80", masq: true },
  { name: "node to NodePort with iTP:Local", sourceIP: NODE_IP, destIP: NODE_IP, destPort: 3003, output: "10.180.0.3:80, 10.180.1.3:80", masq: true },
  { name: "localhost to NodePort with iTP:Local", sourceIP: "127.0.0.1", destIP: "127.0.0.1", destPort: 3003, output: "10.180.0.3:80, 10.180.1.3:80", masq: true },
  { name: "node to LB with iTP:Local", sourceIP: NODE_IP, destIP: "9.10.11.12", destPort: 80, output: "10.180.0.3:80, 10.180.1.3:80", masq: true },
  { name: "external to ClusterIP with iTP:Local", sourceIP: EXTERNAL_CLIENT, destIP: "172.30.0.43", destPort: 80, output: "10.180.0.3:80", masq: true },
  { name: "external to NodePort with iTP:Local", sourceIP: EXTERNAL_CLIENT, destIP: NODE_IP, destPort: 3003, output: "10.180.0.3:80, 10.180.1.3:80", masq: true },
  { name: "external to LB with iTP:Local", sourceIP: EXTERNAL_CLIENT, destIP: "9.10.11.12", destPort: 80, output: "10.180.0.3:80, 10.180.1.3:80", masq: true },
];

const MASQ_VARIANTS: readonly { name: string; config: Partial<ProxierConfigInput>; overrides: Record<string, Partial<Flow>> }[] = [
  { name: "base", config: {}, overrides: {} },
  {
    name: "no LocalTrafficDetector",
    config: { clusterCIDR: "" },
    overrides: {
      "node to ClusterIP": { masq: false },
      "node to ClusterIP with eTP:Local": { masq: false },
      "node to ClusterIP with iTP:Local": { masq: false },
      "external to ClusterIP": { masq: false },
      "external to ClusterIP with eTP:Local": { masq: false },
      "external to ClusterIP with iTP:Local": { masq: false },
      "pod to NodePort with eTP:Local": { output: "10.180.0.2:80" },
      "pod to LB with eTP:Local": { output: "10.180.0.2:80" },
    },
  },
  {
    name: "masqueradeAll",
    config: { masqueradeAll: true },
    overrides: { "pod to ClusterIP": { masq: true }, "pod to ClusterIP with eTP:Local": { masq: true }, "pod to ClusterIP with iTP:Local": { masq: true } },
  },
  {
    name: "masqueradeAll, no LocalTrafficDetector",
    config: { masqueradeAll: true, clusterCIDR: "" },
    overrides: {
      "pod to ClusterIP": { masq: true },
      "pod to ClusterIP with eTP:Local": { masq: true },
      "pod to ClusterIP with iTP:Local": { masq: true },
      "pod to NodePort with eTP:Local": { output: "10.180.0.2:80" },
      "pod to LB with eTP:Local": { output: "10.180.0.2:80" },
    },
  },
];

for (const v of MASQ_VARIANTS) {
  test(`TestInternalExternalMasquerade (${v.name})`, () => {
    const { services, slices } = masqueradeSetup();
    const flows = MASQ_FLOWS.map((f) => ({ ...f, ...(v.overrides[f.name] ?? {}) }));
    assert.equal(Object.keys(v.overrides).filter((n) => !MASQ_FLOWS.some((f) => f.name === n)).length, 0, "every override names a flow");
    run(services, slices, flows, v.config);
  });
}

test("TestLoadBalancer: loadBalancerSourceRanges filter LB IPs (KUBE-FW falls through, KUBE-PROXY-FIREWALL drops), not the NodePort", () => {
  const svc = makeService("ns1", "svc1", (s) => {
    s.spec = {
      type: "LoadBalancer",
      clusterIP: "172.30.0.41",
      ports: [{ ...tcpPort("p80", 80), nodePort: 3001 }],
      // Upstream's regression case: the excess whitespace is ignored.
      loadBalancerSourceRanges: ["192.168.0.0/24", " 203.0.113.0/25"],
    };
    setIngress(s, ["1.2.3.4", "5.6.7.8"]);
  });
  const slice = makeSlice("ns1", "svc1", 1, (e) => ((e.endpoints = [{ addresses: ["10.180.0.1"] }]), (e.ports = [tcpPort("p80", 80)])));
  const ep = "10.180.0.1:80";
  const blocked = "203.0.113.130";
  run(
    [svc],
    [slice],
    [
      { name: "pod to cluster IP", sourceIP: "10.0.0.2", destIP: "172.30.0.41", destPort: 80, output: ep, masq: false },
      { name: "external to nodePort", sourceIP: EXTERNAL_CLIENT, destIP: NODE_IP, destPort: 3001, output: ep, masq: true },
      { name: "nodePort bypasses LoadBalancerSourceRanges", sourceIP: blocked, destIP: NODE_IP, destPort: 3001, output: ep, masq: true },
      { name: "accepted external to LB1", sourceIP: EXTERNAL_CLIENT, destIP: "1.2.3.4", destPort: 80, output: ep, masq: true },
      { name: "accepted external to LB2", sourceIP: EXTERNAL_CLIENT, destIP: "5.6.7.8", destPort: 80, output: ep, masq: true },
      { name: "blocked external to LB1", sourceIP: blocked, destIP: "1.2.3.4", destPort: 80, output: "DROP" },
      { name: "blocked external to LB2", sourceIP: blocked, destIP: "5.6.7.8", destPort: 80, output: "DROP" },
      { name: "pod to LB1 (blocked by LoadBalancerSourceRanges)", sourceIP: "10.0.0.2", destIP: "1.2.3.4", destPort: 80, output: "DROP" },
      { name: "pod to LB2 (blocked by LoadBalancerSourceRanges)", sourceIP: "10.0.0.2", destIP: "5.6.7.8", destPort: 80, output: "DROP" },
      { name: "node to LB1 (allowed by LoadBalancerSourceRanges)", sourceIP: NODE_IP, destIP: "1.2.3.4", destPort: 80, output: ep, masq: true },
      { name: "node to LB2 (allowed by LoadBalancerSourceRanges)", sourceIP: NODE_IP, destIP: "5.6.7.8", destPort: 80, output: ep, masq: true },
      { name: "same node to LB1, SNATted to LB1 (implicitly allowed)", sourceIP: "1.2.3.4", destIP: "1.2.3.4", destPort: 80, output: ep, masq: true },
      { name: "same node to LB2, SNATted to LB2 (implicitly allowed)", sourceIP: "5.6.7.8", destIP: "5.6.7.8", destPort: 80, output: ep, masq: true },
    ],
  );
});

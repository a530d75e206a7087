// Golden tests: the ruleset generated for upstream's test scenarios equals the expected
// iptables-restore text in kubernetes/kubernetes pkg/proxy/iptables/proxier_test.go (the version
// with nfacct counters), after upstream's own normalisation (sortIPTablesRules). Test names cite
// the upstream test each case ports.
import { test } from "node:test";
import assert from "node:assert/strict";
import { computeProbability } from "../../src/kubeproxy/index.js";
import { generate, golden, makeService, makeSlice, setIngress, TEST_NODE, tcpPort } from "./fixtures.js";
import { chainRules, sortIptablesRules } from "./upstream-normalize.js";

test("TestOverallIPTablesRules: ClusterIP, LB+Local, NodePort, externalIP, LB+sourceRanges+affinity, no endpoints", () => {
  const services = [
    makeService("ns1", "svc1", (s) => {
      s.spec = { clusterIP: "172.30.0.41", ports: [tcpPort("p80", 80)] };
    }),
    makeService("ns2", "svc2", (s) => {
      s.spec = { type: "LoadBalancer", externalTrafficPolicy: "Local", clusterIP: "172.30.0.42", ports: [{ ...tcpPort("p80", 80), nodePort: 3001 }], externalIPs: ["192.168.99.22"], healthCheckNodePort: 30000 };
      setIngress(s, ["1.2.3.4"]);
    }),
    makeService("ns3", "svc3", (s) => {
      s.spec = { type: "NodePort", clusterIP: "172.30.0.43", ports: [{ ...tcpPort("p80", 80), nodePort: 3003 }] };
    }),
    makeService("ns4", "svc4", (s) => {
      s.spec = { type: "NodePort", clusterIP: "172.30.0.44", externalIPs: ["192.168.99.33"], ports: [{ ...tcpPort("p80", 80), targetPort: 80 }] };
    }),
    makeService("ns5", "svc5", (s) => {
      s.spec = {
        type: "LoadBalancer",
        externalTrafficPolicy: "Cluster",
        clusterIP: "172.30.0.45",
        ports: [{ ...tcpPort("p80", 80), nodePort: 3002 }],
        healthCheckNodePort: 30000,
        loadBalancerSourceRanges: [" 203.0.113.0/25"],
        sessionAffinity: "ClientIP",
        sessionAffinityConfig: { clientIP: { timeoutSeconds: 10800 } },
      };
      setIngress(s, ["5.6.7.8"]);
    }),
    makeService("ns6", "svc6", (s) => {
      s.spec = { type: "ClusterIP", clusterIP: "172.30.0.46", ports: [{ ...tcpPort("p80", 80), targetPort: 80 }] };
    }),
  ];
  const port = [tcpPort("p80", 80)];
  const slices = [
    makeSlice("ns1", "svc1", 1, (e) => ((e.endpoints = [{ addresses: ["10.180.0.1"] }]), (e.ports = port))),
    makeSlice("ns2", "svc2", 1, (e) => ((e.endpoints = [{ addresses: ["10.180.0.2"] }]), (e.ports = port))),
    makeSlice("ns3", "svc3", 1, (e) => ((e.endpoints = [{ addresses: ["10.180.0.3"] }]), (e.ports = port))),
    makeSlice("ns4", "svc4", 1, (e) => ((e.endpoints = [{ addresses: ["10.180.0.4"] }, { addresses: ["10.180.0.5"], nodeName: TEST_NODE }]), (e.ports = port))),
    makeSlice("ns5", "svc5", 1, (e) => ((e.endpoints = [{ addresses: ["10.180.0.3"] }]), (e.ports = port))),
  ];
  const r = generate(services, slices);
  assert.equal(sortIptablesRules(r.text), golden("overall-iptables-rules.txt"));
  assert.equal(r.noLocalEndpointsExternal, 1, "svc2 has external Local policy and no local endpoint");
});

test("TestSyncProxyRulesRepeated (initial full sync): two ClusterIP services", () => {
  const services = [
    makeService("ns1", "svc1", (s) => (s.spec = { type: "ClusterIP", clusterIP: "172.30.0.41", ports: [tcpPort("p80", 80)] })),
    makeService("ns2", "svc2", (s) => (s.spec = { type: "ClusterIP", clusterIP: "172.30.0.42", ports: [tcpPort("p8080", 8080)] })),
  ];
  const slices = [
    makeSlice("ns1", "svc1", 1, (e) => ((e.endpoints = [{ addresses: ["10.0.1.1"] }]), (e.ports = [tcpPort("p80", 80)]))),
    makeSlice("ns2", "svc2", 1, (e) => ((e.endpoints = [{ addresses: ["10.0.2.1"] }]), (e.ports = [tcpPort("p8080", 8080)]))),
  ];
  assert.equal(sortIptablesRules(generate(services, slices).text), golden("sync-proxy-rules-repeated-initial.txt"));
});

test("TestBadIPs: leading-zero addresses and CIDRs are written canonically", () => {
  const services = [
    makeService("ns1", "svc1", (s) => {
      s.spec = { type: "LoadBalancer", clusterIP: "172.30.0.041", ports: [{ ...tcpPort("p80", 80), nodePort: 3001 }], externalIPs: ["192.168.099.022"], loadBalancerSourceRanges: ["203.0.113.000/025"] };
      setIngress(s, ["1.2.3.004"]);
    }),
  ];
  const slices = [makeSlice("ns1", "svc1", 1, (e) => ((e.endpoints = [{ addresses: ["10.180.00.001"] }]), (e.ports = [tcpPort("p80", 80)])))];
  assert.equal(sortIptablesRules(generate(services, slices).text), golden("bad-ips.txt"));
});

test("TestSyncProxyRulesRepeated (deletions): stale service chains are flushed and deleted with -X", () => {
  // After svc2 is deleted upstream expects "-X KUBE-SEP-UHEGFW77JX3KXTOV" and "-X KUBE-SVC-2VJB64SDSIJUP5T6".
  const services = [makeService("ns1", "svc1", (s) => (s.spec = { clusterIP: "172.30.0.41", ports: [tcpPort("p80", 80)] }))];
  const slices = [makeSlice("ns1", "svc1", 1, (e) => ((e.endpoints = [{ addresses: ["10.0.1.1"] }]), (e.ports = [tcpPort("p80", 80)])))];
  const existing = new Set(["KUBE-SERVICES", "KUBE-SVC-XPGD46QRK7WJZT7O", "KUBE-SEP-SNQ3ZNILQDEJNDQO", "KUBE-SVC-2VJB64SDSIJUP5T6", "KUBE-SEP-UHEGFW77JX3KXTOV", "CALI-NAT"]);
  const r = generate(services, slices, {}, existing);
  const lines = r.text.split("\n");
  assert.deepEqual(lines.filter((l) => l.startsWith("-X")), ["-X KUBE-SEP-UHEGFW77JX3KXTOV", "-X KUBE-SVC-2VJB64SDSIJUP5T6"]);
  assert.ok(lines.includes(":KUBE-SVC-2VJB64SDSIJUP5T6 - [0:0]"), "a deleted chain is declared (flushed) first");
  assert.ok(!r.text.includes("CALI-NAT"), "chains that are not kube-proxy's are left alone");
  assert.equal(r.deletedChains, 2);
});

test("TestMasqueradeRule: KUBE-POSTROUTING with and without --random-fully", () => {
  for (const randomFully of [false, true]) {
    const text = generate([], [], { randomFully }).text;
    const expected =
      "-A KUBE-POSTROUTING -m mark ! --mark 0x4000/0x4000 -j RETURN\n" +
      "-A KUBE-POSTROUTING -j MARK --xor-mark 0x4000\n" +
      `-A KUBE-POSTROUTING -m comment --comment "kubernetes service traffic requiring SNAT" -j MASQUERADE${randomFully ? " --random-fully" : ""}\n`;
    assert.equal(chainRules(text, "nat", "KUBE-POSTROUTING"), expected);
  }
});

test("TestDropInvalidRule: the INVALID drop rule with and without nfacct, and none when tcp_be_liberal", () => {
  const tail =
    '-A KUBE-FORWARD -m comment --comment "kubernetes forwarding rules" -m mark --mark 0x4000/0x4000 -j ACCEPT\n' +
    '-A KUBE-FORWARD -m comment --comment "kubernetes forwarding conntrack rule" -m conntrack --ctstate RELATED,ESTABLISHED -j ACCEPT\n';
  const cases = [
    { nfacct: false, liberal: false, drop: "-A KUBE-FORWARD -m conntrack --ctstate INVALID -j DROP\n" },
    { nfacct: true, liberal: false, drop: "-A KUBE-FORWARD -m conntrack --ctstate INVALID -m nfacct --nfacct-name ct_state_invalid_dropped_pkts -j DROP\n" },
    { nfacct: false, liberal: true, drop: "" },
  ];
  for (const c of cases) {
    const text = generate([], [], { conntrackTCPLiberal: c.liberal, nfacct: { ctStateInvalid: c.nfacct } }).text;
    assert.equal(chainRules(text, "filter", "KUBE-FORWARD"), c.drop + tail, JSON.stringify(c));
  }
});

test("TestNodePorts: KUBE-FIREWALL holds the anti-martian rule only with localhost NodePorts", () => {
  const rule = '-A KUBE-FIREWALL -m comment --comment "block incoming localnet connections" -d 127.0.0.0/8 ! -s 127.0.0.0/8 -m conntrack ! --ctstate RELATED,ESTABLISHED,DNAT -j DROP\n';
  const cases = [
    { localhost: true, addresses: undefined, expect: rule },
    { localhost: false, addresses: undefined, expect: "" },
    { localhost: false, addresses: ["192.168.0.0/24", "127.0.0.1/32"], expect: "" },
    { localhost: true, addresses: ["192.168.0.0/24", "192.168.1.0/24", "2001:db8::/64"], expect: "" },
  ];
  for (const c of cases) {
    const cfg = { localhostNodePorts: c.localhost, ...(c.addresses !== undefined ? { nodePortAddresses: c.addresses } : {}) };
    assert.equal(chainRules(generate([], [], cfg).text, "filter", "KUBE-FIREWALL"), c.expect, JSON.stringify(c));
  }
});

test("TestNodePorts (localhost disabled): KUBE-SERVICES dispatches to KUBE-NODEPORTS except for 127.0.0.0/8", () => {
  const text = generate([], [], { localhostNodePorts: false }).text;
  assert.match(chainRules(text, "nat", "KUBE-SERVICES"), /--dst-type LOCAL ! -d 127\.0\.0\.0\/8 -j KUBE-NODEPORTS\n$/);
});

test("TestSyncProxyRulesLargeClusterMode: endpoint names and comment elision above 1000 endpoints", () => {
  const svc = (ns: string, name: string, ip: string, port: string, n: number) =>
    makeService(ns, name, (s) => (s.spec = { type: "ClusterIP", clusterIP: ip, ports: [tcpPort(port, n)] }));
  const many = (ns: string, name: string, prefix: string, port: string, n: number, count: number) =>
    makeSlice(ns, name, 1, (e) => {
      e.endpoints = Array.from({ length: count }, (_, i) => ({ addresses: [`${prefix}.${i % 256}.${Math.floor(i / 256)}`] }));
      e.ports = [tcpPort(port, n)];
    });
  const services = [svc("ns1", "svc1", "172.30.0.41", "p80", 80), svc("ns2", "svc2", "172.30.0.42", "p8080", 8080), svc("ns3", "svc3", "172.30.0.43", "p8081", 8081)];
  const half = 1000 / 2 - 1;
  const small = [many("ns1", "svc1", "10.0", "p80", 80, half), many("ns2", "svc2", "10.1", "p8080", 8080, half)];
  const dnat = (t: string) => t.split("\n").filter((l) => l.startsWith("-A KUBE-SEP-") && l.includes("-j DNAT"));
  const r1 = generate(services, small, { masqueradeAll: true });
  assert.equal(r1.largeClusterMode, false);
  assert.ok(dnat(r1.text).includes("-A KUBE-SEP-DKGQUZGBKLTPAR56 -m comment --comment ns1/svc1:p80 -m tcp -p tcp -j DNAT --to-destination 10.0.0.0:80"));
  assert.equal(dnat(r1.text).length, 2 * half);
  const svc3 = makeSlice("ns3", "svc3", 1, (e) => {
    e.endpoints = ["203.0.113.4", "203.0.113.8", "203.0.113.12"].map((a) => ({ addresses: [a] }));
    e.ports = [tcpPort("p8081", 8081)];
  });
  const r2 = generate(services, [...small, svc3], { masqueradeAll: true });
  assert.equal(r2.largeClusterMode, true);
  const lines = dnat(r2.text);
  assert.ok(lines.includes("-A KUBE-SEP-RUVVH7YV3PHQBDOS -m tcp -p tcp -j DNAT --to-destination 203.0.113.4:8081"));
  assert.ok(lines.includes("-A KUBE-SEP-DKGQUZGBKLTPAR56 -m tcp -p tcp -j DNAT --to-destination 10.0.0.0:80"));
  assert.ok(lines.every((l) => !l.includes("--comment")));
});

test("TestComputeProbability: 1/n with ten decimals, strictly decreasing", () => {
  const expected: Record<number, string> = { 1: "1.0000000000", 2: "0.5000000000", 10: "0.1000000000", 100: "0.0100000000", 1000: "0.0010000000", 10000: "0.0001000000", 100000: "0.0000100000", 100001: "0.0000099999" };
  for (const [n, p] of Object.entries(expected)) assert.equal(computeProbability(Number(n)), p);
  let prev = 0;
  for (let i = 100000; i > 1; i--) {
    const p = Number(computeProbability(i));
    assert.ok(p > prev, `probability for ${i}`);
    prev = p;
  }
  // Go rounds exact ties to even: 1/2048 = 0.00048828125 exactly.
  assert.equal(computeProbability(2048), "0.0004882812");
  assert.equal(computeProbability(3), "0.3333333333");
});

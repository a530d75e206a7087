// Service ports as kube-proxy reads them: skipped services, ignored bad fields with their paths,
// traffic-policy flags as apiservice computes them, LoadBalancer ipMode Proxy ingress ignored.
import { test } from "node:test";
import assert from "node:assert/strict";
import { servicePorts, usesClusterEndpoints, usesLocalEndpoints } from "../../src/kubeproxy/index.js";
import { makeService, setIngress, tcpPort } from "./fixtures.js";

test("headless, ExternalName and address-less services have no proxied ports", () => {
  assert.equal(servicePorts(makeService("ns", "h", (s) => (s.spec = { clusterIP: "None", ports: [tcpPort("p", 80)] }))).ports.length, 0);
  assert.equal(servicePorts(makeService("ns", "e", (s) => (s.spec = { type: "ExternalName", externalName: "x.example", clusterIP: "10.0.0.1", ports: [tcpPort("p", 80)] }))).ports.length, 0);
  assert.equal(servicePorts(makeService("ns", "n", (s) => (s.spec = { ports: [tcpPort("p", 80)] }))).ports.length, 0);
});

test("bad values are ignored with the object path; protocols and names as upstream spells them", () => {
  const r = servicePorts(
    makeService("ns1", "svc1", (s) => {
      s.spec = { clusterIP: "172.30.0.41", externalIPs: ["1.2.3.4", "nope"], loadBalancerSourceRanges: ["x/33"], ports: [{ name: "", port: 53, protocol: "UDP" }, { name: "s", port: 9, protocol: "SCTP" }] };
    }),
  );
  assert.deepEqual(r.warnings, [
    'Service ns1/svc1: spec.externalIPs[1]: "nope" is not an IPv4 address',
    'Service ns1/svc1: spec.loadBalancerSourceRanges[0]: "x/33" is not an IPv4 CIDR',
  ]);
  assert.deepEqual(
    r.ports.map((p) => [p.nameString, p.protocol, p.externalIPs]),
    [
      ["ns1/svc1", "udp", ["1.2.3.4"]],
      ["ns1/svc1:s", "sctp", ["1.2.3.4"]],
    ],
  );
});

test("traffic policies: eTP applies to NodePort/LoadBalancer and ClusterIP-with-external-IPs; iTP Local", () => {
  const port = (spec: Parameters<typeof makeService>[2]) => servicePorts(makeService("ns", "s", spec)).ports[0]!;
  const np = port((s) => (s.spec = { type: "NodePort", clusterIP: "10.0.0.1", externalTrafficPolicy: "Local", ports: [{ ...tcpPort("p", 80), nodePort: 30001 }] }));
  assert.deepEqual([np.externalPolicyLocal, usesClusterEndpoints(np), usesLocalEndpoints(np)], [true, true, true]);
  const itp = port((s) => (s.spec = { clusterIP: "10.0.0.1", internalTrafficPolicy: "Local", ports: [tcpPort("p", 80)] }));
  assert.deepEqual([itp.internalPolicyLocal, usesClusterEndpoints(itp), usesLocalEndpoints(itp)], [true, false, true]);
  const ext = port((s) => (s.spec = { type: "ClusterIP", clusterIP: "10.0.0.1", externalIPs: ["192.0.2.1"], externalTrafficPolicy: "Local", ports: [tcpPort("p", 80)] }));
  assert.equal(ext.externalPolicyLocal, true);
  const plain = port((s) => (s.spec = { clusterIP: "10.0.0.1", externalTrafficPolicy: "Local", ports: [tcpPort("p", 80)] }));
  assert.equal(plain.externalPolicyLocal, false, "a plain ClusterIP service is not externally accessible");
});

test("LoadBalancer: ingress with ipMode Proxy is not captured; healthCheckNodePort only with eTP Local", () => {
  const svc = makeService("ns", "lb", (s) => (s.spec = { type: "LoadBalancer", clusterIP: "10.0.0.1", externalTrafficPolicy: "Local", healthCheckNodePort: 30123, ports: [{ ...tcpPort("p", 80), nodePort: 30001 }] }));
  setIngress(svc, ["203.0.113.5", "203.0.113.6"]);
  (svc.status!.loadBalancer!.ingress![1] as { ipMode?: string }).ipMode = "Proxy";
  const p = servicePorts(svc).ports[0]!;
  assert.deepEqual(p.loadBalancerVIPs, ["203.0.113.5"]);
  assert.equal(p.healthCheckNodePort, 30123);
  assert.equal(p.chains.cluster.startsWith("KUBE-SVC-"), true);
});

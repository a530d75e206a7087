// NetworkPolicy validation and normalization: policyTypes defaulting as NetworkPolicySpec documents
// it, the endPort rules of upstream's API test (network_policy_api.go "should support creating
// NetworkPolicy API with endport field"), and typed errors naming the offending field.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import type { NetworkPolicy } from "kubernetes-types/networking/v1.js";
import { normalizePolicy } from "../../src/policy/normalize.js";
import { PolicyWorld } from "../../src/policy/world.js";

const policy = (spec: NonNullable<NetworkPolicy["spec"]>): NetworkPolicy => ({ metadata: { name: "p", namespace: "ns" }, spec });

describe("policyTypes defaulting", () => {
  it("Ingress always, Egress only when egress rules exist", () => {
    const ingressOnly = normalizePolicy(policy({ podSelector: {} }));
    assert.ok(ingressOnly.ok);
    assert.deepEqual(ingressOnly.value.ingress, []);
    assert.equal(ingressOnly.value.egress, null);
    const both = normalizePolicy(policy({ podSelector: {}, egress: [{}] }));
    assert.ok(both.ok);
    assert.deepEqual(both.value.ingress, []);
    assert.deepEqual(both.value.egress, [{ index: 0, peers: null, ports: null }]);
    const emptyEgress = normalizePolicy(policy({ podSelector: {}, egress: [] }));
    assert.ok(emptyEgress.ok);
    assert.equal(emptyEgress.value.egress, null, "an empty egress list is no egress rule");
  });

  it("explicit policyTypes win: ingress rules of an Egress-only policy are ignored", () => {
    const r = normalizePolicy(policy({ podSelector: {}, policyTypes: ["Egress"], ingress: [{}] }));
    assert.ok(r.ok);
    assert.equal(r.value.ingress, null);
    assert.deepEqual(r.value.egress, []);
  });

  it("empty from/ports lists mean all peers and all ports; protocol defaults to TCP", () => {
    const r = normalizePolicy(policy({ podSelector: {}, ingress: [{ from: [], ports: [] }, { ports: [{ port: 53 }, { port: "dns", protocol: "UDP" }] }] }));
    assert.ok(r.ok);
    assert.deepEqual(r.value.ingress![0], { index: 0, peers: null, ports: null });
    assert.deepEqual(
      r.value.ingress![1]!.ports!.map((p) => p.text),
      ["53/TCP", "dns/UDP"],
    );
  });
});

describe("IPv6 ipBlocks in this IPv4 model", () => {
  it("are accepted and match nothing, so a rule with only one allows nothing", () => {
    const r = normalizePolicy(policy({ podSelector: {}, ingress: [{ from: [{ ipBlock: { cidr: "2001:db8::/64", except: ["2001:db8::/96"] } }] }] }));
    assert.ok(r.ok);
    assert.equal(r.value.ingress![0]!.peers![0]!.kind, "ipv6Block");
    const bad = normalizePolicy(policy({ podSelector: {}, ingress: [{ from: [{ ipBlock: { cidr: "2001:db8::/64", except: ["10.0.0.0/8"] } }] }] }));
    assert.ok(!bad.ok);
    assert.equal(bad.error.path, "spec.ingress[0].from[0].ipBlock.except[0]");
  });
});

describe("validation errors name the field", () => {
  const error = (spec: NonNullable<NetworkPolicy["spec"]>) => {
    const r = normalizePolicy(policy(spec));
    assert.ok(!r.ok, "expected a validation error");
    return { path: r.error.path, reason: r.error.reason };
  };

  it("endPort needs a numeric port no greater than it (upstream API test)", () => {
    assert.equal(error({ podSelector: {}, egress: [{ ports: [{ endPort: 20000 }] }] }).path, "spec.egress[0].ports[0].endPort");
    assert.equal(error({ podSelector: {}, egress: [{ ports: [{ port: "serve-80", endPort: 20000 }] }] }).path, "spec.egress[0].ports[0].endPort");
    assert.equal(error({ podSelector: {}, egress: [{ ports: [{ port: 20000, endPort: 10000 }] }] }).path, "spec.egress[0].ports[0].endPort");
    assert.ok(normalizePolicy(policy({ podSelector: {}, egress: [{ ports: [{ port: 10000, endPort: 20000 }] }] })).ok);
  });

  it("peers, ipBlocks, protocols and types", () => {
    assert.deepEqual(error({ podSelector: {}, ingress: [{ from: [{ ipBlock: { cidr: "10.0.0.0/8" }, podSelector: {} }] }] }), {
      path: "spec.ingress[0].from[0]",
      reason: "ipBlock cannot be combined with podSelector or namespaceSelector",
    });
    assert.deepEqual(error({ podSelector: {}, ingress: [{ from: [{ ipBlock: { cidr: "10.0.0.0/8", except: ["11.0.0.0/16"] } }] }] }), {
      path: "spec.ingress[0].from[0].ipBlock.except[0]",
      reason: "11.0.0.0/16 must be a strict subset of 10.0.0.0/8",
    });
    assert.equal(error({ podSelector: {}, ingress: [{ from: [{ ipBlock: { cidr: "10.0.0.0/33" } }] }] }).path, "spec.ingress[0].from[0].ipBlock.cidr");
    assert.equal(error({ podSelector: {}, ingress: [{ from: [{}] }] }).reason, "a peer needs podSelector, namespaceSelector or ipBlock");
    assert.equal(error({ podSelector: {}, ingress: [{ ports: [{ protocol: "ICMP" }] }] }).path, "spec.ingress[0].ports[0].protocol");
    assert.equal(error({ podSelector: {}, ingress: [{ ports: [{ port: 0 }] }] }).path, "spec.ingress[0].ports[0].port");
    assert.equal(error({ podSelector: {}, ingress: [{ ports: [{ port: "Not_A_Name" }] }] }).path, "spec.ingress[0].ports[0].port");
    assert.equal(error({ podSelector: {}, policyTypes: ["Both"] }).path, "spec.policyTypes[0]");
    assert.equal(
      error({ podSelector: { matchExpressions: [{ key: "a", operator: "In" }] } }).path,
      "spec.podSelector.matchExpressions[0].values",
    );
  });

  it("the world refuses invalid objects with a WorldError and keeps its state", () => {
    const w = new PolicyWorld();
    const r = w.setPolicy(policy({ podSelector: {}, ingress: [{ ports: [{ port: 70000 }] }] }));
    assert.ok(!r.ok);
    assert.deepEqual(r.error, { object: "networkpolicy ns/p", path: "spec.ingress[0].ports[0].port", reason: "port 70000 out of range 1-65535" });
    assert.equal(w.policyCount, 0);
    const badPod = w.setPod({ namespace: "ns", name: "a", ip: "10.0.0.300", node: "n1" });
    assert.ok(!badPod.ok);
    assert.equal(badPod.error.path, "status.podIP");
    assert.ok(w.setPod({ namespace: "ns", name: "a", ip: "10.0.0.3", node: "n1" }).ok);
    const clash = w.setPod({ namespace: "ns", name: "b", ip: "10.0.0.3", node: "n1" });
    assert.ok(!clash.ok);
    assert.equal(clash.error.reason, "10.0.0.3 already belongs to pod ns/a");
    const nodeClash = w.setNode({ name: "n1", ips: ["10.0.0.3"] });
    assert.ok(!nodeClash.ok);
    assert.equal(nodeClash.error.path, "addresses[0]");
  });

  it("namespaces always carry kubernetes.io/metadata.name", () => {
    const w = new PolicyWorld();
    assert.deepEqual(w.namespace("never-created").labels, { "kubernetes.io/metadata.name": "never-created" });
    const ns = w.setNamespace({ name: "cyh", labels: { project: "myproject" } });
    assert.ok(ns.ok);
    assert.deepEqual(ns.value.labels, { project: "myproject", "kubernetes.io/metadata.name": "cyh" });
  });
});

// The compiler's datapath state in detail: identity numbering (Cilium's ranges), ipcache contents,
// ruleRefs, map-full handling, and that incremental updates touch only the endpoints they affect.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { isCidrIdentity, ReservedIdentity } from "../../datapath/identity.js";
import { Direction, PolicyVerdict } from "../../datapath/maps/policy.js";
import { PolicyCompiler } from "../../src/policy/compiler.js";
import { decideAt } from "../../src/policy/decide.js";
import { IpProto, Personality, policyOptionsFor } from "../../src/policy/types.js";
import { PolicyWorld } from "../../src/policy/world.js";
import { parseIPv4 } from "../../src/util/ip.js";
import { unwrap } from "../../src/util/result.js";
import { genPolicy } from "./support/netpol-model.js";

const EBPF = policyOptionsFor(Personality.EBPF);
const ip = (s: string) => parseIPv4(s)!;

/** Namespaces a (team=red) and b; pods a/web1 a/web2 (app=web), a/client (app=client), b/other. */
function cluster(): PolicyWorld {
  const w = new PolicyWorld();
  unwrap(w.setNode({ name: "n1", ips: ["192.168.1.1", "10.1.1.1"] }));
  unwrap(w.setNode({ name: "n2", ips: ["192.168.1.2", "10.1.2.1"] }));
  unwrap(w.setNamespace({ name: "a", labels: { team: "red" } }));
  unwrap(w.setNamespace({ name: "b" }));
  unwrap(w.setPod({ namespace: "a", name: "web1", labels: { app: "web" }, ip: "10.1.1.10", node: "n1" }));
  unwrap(w.setPod({ namespace: "a", name: "web2", labels: { app: "web" }, ip: "10.1.2.10", node: "n2" }));
  unwrap(w.setPod({ namespace: "a", name: "client", labels: { app: "client" }, ip: "10.1.1.11", node: "n1" }));
  unwrap(w.setPod({ namespace: "b", name: "other", labels: { app: "other" }, ip: "10.1.2.11", node: "n2" }));
  return w;
}

const webFromClients = genPolicy("web-from-clients", "a", { matchLabels: { app: "web" } }, {
  ingress: [{ from: [{ podSelector: { matchLabels: { app: "client" } } }], ports: [{ port: 80 }] }],
});

describe("identities", () => {
  it("numbers pods from 256, shares them by label set and namespace, CIDRs get bit 24", () => {
    const w = cluster();
    unwrap(w.setPolicy(genPolicy("ext", "b", {}, { egress: [{ to: [{ ipBlock: { cidr: "198.51.100.0/24" } }] }] })));
    const c = new PolicyCompiler(w, EBPF);
    const web1 = c.endpoint("a/web1")!.identity;
    assert.ok(web1 >= 256 && web1 <= 0xffff);
    assert.equal(c.endpoint("a/web2")!.identity, web1, "same labels and namespace: same identity");
    assert.notEqual(c.endpoint("a/client")!.identity, web1);
    const ipcache = c.ipcacheOf("n1")!;
    assert.ok(isCidrIdentity(ipcache.lookupV4(ip("198.51.100.7"))));
    assert.equal(ipcache.lookupV4(ip("8.8.8.8")), ReservedIdentity.WORLD);
  });

  it("ipcache: own node is host, other nodes remote-node, remote pods carry their node as tunnel endpoint", () => {
    const c = new PolicyCompiler(cluster(), EBPF);
    const n1 = c.ipcacheOf("n1")!;
    assert.equal(n1.lookupV4(ip("192.168.1.1")), ReservedIdentity.HOST);
    assert.equal(n1.lookupV4(ip("10.1.1.1")), ReservedIdentity.HOST);
    assert.equal(n1.lookupV4(ip("192.168.1.2")), ReservedIdentity.REMOTE_NODE);
    assert.equal(n1.lookupV4(ip("10.1.2.10")), c.endpoint("a/web2")!.identity);
    assert.equal(n1.lastTunnelEndpoint, ip("192.168.1.2"));
    n1.lookupV4(ip("10.1.1.10"));
    assert.equal(n1.lastTunnelEndpoint, 0, "local pod: no tunnel");
  });

  it("a /32 ipBlock equal to a pod address does not hide the pod's identity", () => {
    const w = cluster();
    unwrap(w.setPolicy(genPolicy("pin", "b", {}, { egress: [{ to: [{ ipBlock: { cidr: "10.1.1.10/32" } }] }] })));
    const c = new PolicyCompiler(w, EBPF);
    assert.equal(c.ipcacheOf("n2")!.lookupV4(ip("10.1.1.10")), c.endpoint("a/web1")!.identity);
    w.removePod("a/web1");
    assert.ok(isCidrIdentity(c.ipcacheOf("n2")!.lookupV4(ip("10.1.1.10"))), "the CIDR entry comes back");
  });
});

describe("ruleRefs name what allowed a packet", () => {
  it("policy rule, own node, default allow", () => {
    const w = cluster();
    unwrap(w.setPolicy(webFromClients));
    const c = new PolicyCompiler(w, EBPF);
    const byRule = decideAt(c, "a/web1", Direction.INGRESS, ip("10.1.1.11"), IpProto.TCP, 80)!;
    assert.equal(byRule.verdict, PolicyVerdict.ALLOW);
    assert.deepEqual(c.ruleTable.origin(byRule.ruleRef), {
      kind: "rule",
      policy: "a/web-from-clients",
      direction: "ingress",
      ruleIndex: 0,
      text: "ingress rule #0 of policy a/web-from-clients",
    });
    const fromNode = decideAt(c, "a/web1", Direction.INGRESS, ip("10.1.1.1"), IpProto.TCP, 22)!;
    assert.equal(c.ruleTable.origin(fromNode.ruleRef)?.kind, "own-node");
    const egress = decideAt(c, "a/web1", Direction.EGRESS, ip("8.8.8.8"), IpProto.UDP, 53)!;
    assert.equal(c.ruleTable.origin(egress.ruleRef)?.kind, "default-allow");
    const denied = decideAt(c, "a/web1", Direction.INGRESS, ip("10.1.2.11"), IpProto.TCP, 80)!;
    assert.equal(denied.verdict, PolicyVerdict.MISS);
    assert.deepEqual(c.isolatingPolicies("a/web1", Direction.INGRESS), ["a/web-from-clients"]);
  });
});

describe("incremental updates stay local", () => {
  it("relabelling an unrelated pod touches no policy map", () => {
    const w = cluster();
    unwrap(w.setPolicy(webFromClients));
    const c = new PolicyCompiler(w, EBPF);
    c.resetCounters();
    unwrap(w.setPodLabels("b/other", { app: "other2" }));
    assert.deepEqual([...c.counters.touchedEndpoints], []);
    assert.equal(c.counters.identitiesCreated, 1);
    assert.equal(c.counters.identitiesFreed, 1);
    assert.equal(c.counters.ipcacheWrites, 1, "one write to the cluster-wide ipcache");
    const other = c.endpoint("b/other")!.identity;
    for (const node of ["n1", "n2"]) assert.equal(c.ipcacheOf(node)!.lookupV4(ip("10.1.2.11")), other, `its new identity reaches ${node}'s view`);
  });

  it("a pod becoming a client touches exactly the endpoints whose policy selects clients", () => {
    const w = cluster();
    unwrap(w.setPolicy(webFromClients));
    const c = new PolicyCompiler(w, EBPF);
    const other = unwrap(w.setPod({ namespace: "a", name: "batch", labels: { app: "batch" }, ip: "10.1.2.12", node: "n2" }));
    c.resetCounters();
    unwrap(w.setPodLabels(other.key, { app: "client", v: "2" }));
    assert.deepEqual([...c.counters.touchedEndpoints].sort(), ["a/web1", "a/web2"]);
    assert.equal(decideAt(c, "a/web2", Direction.INGRESS, other.ip, IpProto.TCP, 80)!.verdict, PolicyVerdict.ALLOW);
  });

  it("a client relabelled as a web pod gains the policy; a new web pod touches only itself", () => {
    const w = cluster();
    unwrap(w.setPolicy(webFromClients));
    const c = new PolicyCompiler(w, EBPF);
    c.resetCounters();
    unwrap(w.setPodLabels("a/client", { app: "web" }));
    // a/client's old identity (app=client) disappears from the web pods' maps, and a/client is now a web pod.
    assert.deepEqual([...c.counters.touchedEndpoints].sort(), ["a/client", "a/web1", "a/web2"]);
    c.resetCounters();
    unwrap(w.setPod({ namespace: "a", name: "web3", labels: { app: "web" }, ip: "10.1.1.12", node: "n1" }));
    assert.deepEqual([...c.counters.touchedEndpoints], ["a/web3"]);
  });

  it("a namespace label change touches only endpoints whose policies select by namespace", () => {
    const w = cluster();
    unwrap(w.setPolicy(webFromClients));
    unwrap(
      w.setPolicy(genPolicy("other-from-red", "b", {}, { ingress: [{ from: [{ namespaceSelector: { matchLabels: { team: "red" } } }] }] })),
    );
    const c = new PolicyCompiler(w, EBPF);
    c.resetCounters();
    unwrap(w.setNamespace({ name: "a", labels: { team: "blue" } }));
    // Namespace a's pods get new identities: b/other's map drops them; a's web pods re-add the
    // client's new identity (same labels, new namespace labels).
    assert.deepEqual([...c.counters.touchedEndpoints].sort(), ["a/web1", "a/web2", "b/other"]);
    assert.equal(decideAt(c, "b/other", Direction.INGRESS, ip("10.1.1.11"), IpProto.TCP, 80)!.verdict, PolicyVerdict.MISS);
  });

  it("adding a policy touches only the pods it selects", () => {
    const c = new PolicyCompiler(cluster(), EBPF);
    c.resetCounters();
    unwrap(c.world.setPolicy(webFromClients));
    assert.deepEqual([...c.counters.touchedEndpoints].sort(), ["a/web1", "a/web2"]);
  });
});

describe("robustness", () => {
  it("a full policy map is counted, not thrown", () => {
    const w = cluster();
    unwrap(w.setPolicy(genPolicy("many-ports", "a", {}, { ingress: [{ ports: [80, 81, 82, 83, 84, 85].map((port) => ({ port })) }] })));
    const c = new PolicyCompiler(w, { ...EBPF, policyMapMaxEntries: 3 });
    assert.ok(c.counters.mapErrors > 0);
  });

  it("stops following the world after dispose", () => {
    const w = cluster();
    const c = new PolicyCompiler(w, EBPF);
    c.dispose();
    unwrap(w.setPolicy(webFromClients));
    assert.deepEqual(c.isolatingPolicies("a/web1", Direction.INGRESS), []);
  });
});

describe("IPv6 ipBlocks", () => {
  it("a rule whose only peer is an IPv6 ipBlock allows no IPv4 peer (reference and maps)", () => {
    const w = cluster();
    unwrap(w.setPolicy(genPolicy("v6-only", "a", { matchLabels: { app: "web" } }, { ingress: [{ from: [{ ipBlock: { cidr: "2001:db8::/64" } }] }] })));
    const c = new PolicyCompiler(w, EBPF);
    for (const src of ["10.1.1.11", "8.8.8.8"]) {
      assert.equal(decideAt(c, "a/web1", Direction.INGRESS, ip(src), IpProto.TCP, 80)!.verdict, PolicyVerdict.MISS, src);
    }
  });
});

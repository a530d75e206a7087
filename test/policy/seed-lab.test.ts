// The seed lab's NetworkPolicy experiments (../shared/scenarios/seed-lab.md, section "实施网络策略")
// at the policy level: pod/address -> pod verdicts after each policy, from the reference evaluator
// with the compiled maps checked against it, plus the explanation each outcome must carry.
// Service translation and masquerade are not modelled here: rows that go through a ClusterIP or a
// NodePort use the addresses policy sees after DNAT/SNAT, as the lab's notes explain them.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import type { NetworkPolicy } from "kubernetes-types/networking/v1.js";
import { Personality, policyOptionsFor } from "../../src/policy/types.js";
import { unwrap } from "../../src/util/result.js";
import { CLIENT, connect, newLab, web1Policy, type Lab } from "./support/seed-lab.js";

const PERSONALITIES = [Personality.IPTABLES, Personality.EBPF] as const;
const apply = (lab: Lab, p: NetworkPolicy) => unwrap(lab.world.setPolicy(p));
const allowed = (lab: Lab, src: string, dst: string, port = 80, proto: "TCP" | "UDP" | "ICMP" = "TCP") => connect(lab, src, dst, proto, port).allowed;

function defaultPolicy(name: string, namespace: string, spec: Omit<NonNullable<NetworkPolicy["spec"]>, "podSelector">): NetworkPolicy {
  return { apiVersion: "networking.k8s.io/v1", kind: "NetworkPolicy", metadata: { name, namespace }, spec: { podSelector: {}, ...spec } };
}

for (const personality of PERSONALITIES) {
  const options = policyOptionsFor(personality);
  describe(`seed lab policy experiments [${personality}]`, () => {
    it("1. no policy: every pod, node and the client reach every pod", () => {
      const lab = newLab(options);
      for (const src of ["web/test", "web/web2", "cyh/test", "10.1.8.30", "10.1.8.31", CLIENT]) {
        for (const dst of ["web/web1", "web/web2"]) if (src !== dst) assert.ok(allowed(lab, src, dst), `${src} -> ${dst}`);
      }
      assert.match(connect(lab, "cyh/test", "web/web1", "TCP", 80).text, /not isolated/);
    });

    it("2. ingress from podSelector run=test on TCP 80: same-namespace test only, until relabelled", () => {
      const lab = newLab(options);
      apply(lab, web1Policy({ from: [{ podSelector: { matchLabels: { run: "test" } } }], ports: [{ protocol: "TCP", port: 80 }] }));
      assert.ok(allowed(lab, "web/test", "web/web1"));
      assert.ok(!allowed(lab, "web/web2", "web/web1"));
      assert.ok(!allowed(lab, "web/test", "web/web1", 8080));
      const cyh = connect(lab, "cyh/test", "web/web1", "TCP", 80);
      assert.ok(!cyh.allowed, "podSelector alone means the policy's own namespace");
      assert.match(cyh.text, /pod cyh\/test is not in namespace web/);
      unwrap(lab.world.setPodLabels("web/test", { run: "web2" })); // kubectl label pod test run=web2 --overwrite
      const relabelled = connect(lab, "web/test", "web/web1", "TCP", 80);
      assert.ok(!relabelled.allowed);
      assert.match(relabelled.text, /pod web\/test has label run=web2, not run=test/);
    });

    it("3. ingress from podSelector {}: every pod of web, none of cyh", () => {
      const lab = newLab(options);
      apply(lab, web1Policy({ from: [{ podSelector: {} }], ports: [{ protocol: "TCP", port: 80 }] }));
      assert.ok(allowed(lab, "web/test", "web/web1"));
      assert.ok(allowed(lab, "web/web2", "web/web1"));
      assert.ok(!allowed(lab, "cyh/test", "web/web1"));
    });

    it("4. namespaceSelector project=myproject: nobody until namespace cyh gets the label", () => {
      const lab = newLab(options);
      apply(lab, web1Policy({ from: [{ namespaceSelector: { matchLabels: { project: "myproject" } } }], ports: [{ protocol: "TCP", port: 80 }] }));
      assert.ok(!allowed(lab, "web/test", "web/web1"));
      const before = connect(lab, "cyh/test", "web/web1", "TCP", 80);
      assert.ok(!before.allowed);
      assert.match(before.text, /namespace cyh lacks label project=myproject/);
      unwrap(lab.world.setNamespace({ name: "cyh", labels: { project: "myproject" } })); // kubectl label ns cyh project=myproject
      assert.ok(allowed(lab, "cyh/test", "web/web1"));
      assert.ok(!allowed(lab, "web/test", "web/web1"));
    });

    it("5. namespaceSelector {}: pods of every namespace", () => {
      const lab = newLab(options);
      apply(lab, web1Policy({ from: [{ namespaceSelector: {} }], ports: [{ protocol: "TCP", port: 80 }] }));
      for (const src of ["web/test", "web/web2", "cyh/test"]) assert.ok(allowed(lab, src, "web/web1"), src);
      assert.ok(!allowed(lab, CLIENT, "web/web1"), "an address outside the cluster is not a pod of any namespace");
    });

    it("6. ipBlock 10.1.8.0/24 except 10.1.8.128/26: pods denied, the client only as the hosting node sees it", () => {
      const lab = newLab(options);
      apply(lab, web1Policy({ from: [{ ipBlock: { cidr: "10.1.8.0/24", except: ["10.1.8.128/26"] } }], ports: [{ protocol: "TCP", port: 80 }] }));
      const pod = connect(lab, "web/test", "web/web1", "TCP", 80);
      assert.ok(!pod.allowed, "pod IPs are not in the block");
      assert.ok(!allowed(lab, "cyh/test", "web/web1"));
      // client -> NodePort on worker32 (the hosting node): policy runs before masquerade, sees 10.1.8.100.
      assert.ok(allowed(lab, CLIENT, "web/web1"));
      // client -> NodePort on worker31 / master30: masqueraded to that node's tunl0 address.
      const viaWorker31 = connect(lab, "10.224.41.128", "web/web1", "TCP", 80);
      assert.ok(!viaWorker31.allowed);
      if (personality === Personality.IPTABLES) assert.match(viaWorker31.text, /ipBlock 10\.1\.8\.0\/24 does not contain 10\.224\.41\.128/);
      assert.ok(!allowed(lab, "10.224.120.0", "web/web1"));
      assert.match(connect(lab, "10.1.8.130", "web/web1", "TCP", 80).text, /excepts 10\.1\.8\.128\/26, which contains 10\.1\.8\.130/);
      // worker31 host -> ClusterIP: the socket's source is worker31's underlay address 10.1.8.31.
      // Calico matches node addresses by CIDR (allowed, as in the lab); Cilium gives them the
      // remote-node identity, which ipBlock never selects by default.
      assert.equal(allowed(lab, "10.1.8.31", "web/web1"), personality === Personality.IPTABLES);
      assert.ok(allowed(lab, "10.1.8.32", "web/web1"), "traffic from the pod's own node is always allowed");
    });

    it("7. ingress from run=test without ports: ping to the pod works, other sources still denied", () => {
      const lab = newLab(options);
      apply(lab, web1Policy({ from: [{ podSelector: { matchLabels: { run: "test" } } }] }));
      assert.ok(allowed(lab, "web/test", "web/web1", 0, "ICMP"));
      assert.ok(allowed(lab, "web/test", "web/web1", 5353, "UDP"));
      assert.ok(!allowed(lab, "web/web2", "web/web1", 0, "ICMP"));
    });

    it("8. port 32000 with endPort 32768: a TCP port range", () => {
      const lab = newLab(options);
      apply(lab, web1Policy({ from: [{ podSelector: { matchLabels: { run: "test" } } }], ports: [{ protocol: "TCP", port: 32000, endPort: 32768 }] }));
      for (const port of [32000, 32500, 32768]) assert.ok(allowed(lab, "web/test", "web/web1", port), String(port));
      for (const port of [31999, 32769, 80]) assert.ok(!allowed(lab, "web/test", "web/web1", port), String(port));
      assert.ok(!allowed(lab, "web/test", "web/web1", 32000, "UDP"));
      assert.match(connect(lab, "web/test", "web/web1", "TCP", 80).text, /port 80\/TCP not in ports \[32000-32768\/TCP\]/);
    });

    it("multi-condition rule (ipBlock OR namespaceSelector OR podSelector): any one peer suffices", () => {
      const lab = newLab(options);
      apply(
        lab,
        web1Policy({
          from: [{ ipBlock: { cidr: "10.1.1.0/24" } }, { namespaceSelector: { matchLabels: { project: "myproject" } } }, { podSelector: { matchLabels: { run: "test" } } }],
          ports: [{ protocol: "TCP", port: 80 }],
        }),
      );
      assert.ok(allowed(lab, "web/test", "web/web1"));
      assert.ok(allowed(lab, "10.1.1.7", "web/web1"));
      assert.ok(!allowed(lab, "cyh/test", "web/web1"));
    });

    describe("9. default policies", () => {
      it("allow-all-ingress", () => {
        const lab = newLab(options);
        apply(lab, defaultPolicy("default-deny-ingress", "web", { policyTypes: ["Ingress"] }));
        apply(lab, defaultPolicy("allow-all-ingress", "web", { policyTypes: ["Ingress"], ingress: [{}] }));
        for (const src of ["cyh/test", "web/test", CLIENT]) assert.ok(allowed(lab, src, "web/web1"), src);
      });
      it("default-deny-ingress isolates ingress only", () => {
        const lab = newLab(options);
        apply(lab, defaultPolicy("default-deny-ingress", "web", { policyTypes: ["Ingress"] }));
        assert.ok(!allowed(lab, "cyh/test", "web/web1"));
        assert.ok(!allowed(lab, "web/test", "web/web1"));
        assert.ok(allowed(lab, "web/web1", "cyh/test"), "egress stays non-isolated");
        assert.ok(allowed(lab, "10.1.8.32", "web/web1"), "own node");
      });
      it("allow-all-egress", () => {
        const lab = newLab(options);
        apply(lab, defaultPolicy("default-deny-egress", "web", { policyTypes: ["Egress"] }));
        apply(lab, defaultPolicy("allow-all-egress", "web", { policyTypes: ["Egress"], egress: [{}] }));
        assert.ok(allowed(lab, "web/web1", "cyh/test"));
        assert.ok(allowed(lab, "web/test", "web/web1"));
      });
      it("default-deny-egress isolates egress only", () => {
        const lab = newLab(options);
        apply(lab, defaultPolicy("default-deny-egress", "web", { policyTypes: ["Egress"] }));
        assert.ok(!allowed(lab, "web/web1", "cyh/test"));
        assert.ok(!allowed(lab, "web/test", "web/web1"));
        assert.ok(allowed(lab, "cyh/test", "web/web1"), "ingress into web stays open");
      });
      it("default-deny-all", () => {
        const lab = newLab(options);
        apply(lab, defaultPolicy("default-deny-all", "web", { policyTypes: ["Ingress", "Egress"] }));
        assert.ok(!allowed(lab, "web/web1", "cyh/test"));
        assert.ok(!allowed(lab, "cyh/test", "web/web1"));
        assert.ok(!allowed(lab, "web/test", "web/web2"));
      });
      it("egress isolation: both sides must allow", () => {
        const lab = newLab(options);
        apply(lab, defaultPolicy("allow-all-ingress", "web", { policyTypes: ["Ingress"], ingress: [{}] }));
        apply(lab, defaultPolicy("default-deny-egress", "cyh", { policyTypes: ["Egress"] }));
        const denied = connect(lab, "cyh/test", "web/web1", "TCP", 80);
        assert.ok(!denied.allowed, "the destination allows it but the source's egress does not");
        assert.match(denied.text, /egress out of pod cyh\/test.*DENIED/);
        apply(lab, defaultPolicy("allow-all-egress", "cyh", { policyTypes: ["Egress"], egress: [{}] }));
        assert.ok(allowed(lab, "cyh/test", "web/web1"));
      });
    });
  });
}

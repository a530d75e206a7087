// Explanations: the structure (isolating policies, per-rule peer and port findings) and the text,
// for reference verdicts and for compiled datapath decisions (ipcache identity, ruleRef origin).
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { Direction } from "../../datapath/maps/policy.js";
import { explainAt, formatCompiled, formatConnection } from "../../src/policy/explain.js";
import { evaluateConnection } from "../../src/policy/reference.js";
import { IpProto, Personality, policyOptionsFor } from "../../src/policy/types.js";
import { parseIPv4 } from "../../src/util/ip.js";
import { unwrap } from "../../src/util/result.js";
import { newLab, web1Policy } from "./support/seed-lab.js";

const IPTABLES = policyOptionsFor(Personality.IPTABLES);
const ip = (s: string) => parseIPv4(s)!;

function labWithPolicy() {
  const lab = newLab(IPTABLES);
  unwrap(
    lab.world.setPolicy(
      web1Policy({
        from: [{ ipBlock: { cidr: "10.1.8.0/24", except: ["10.1.8.128/26"] } }, { namespaceSelector: { matchLabels: { project: "myproject" } } }],
        ports: [{ protocol: "TCP", port: 80 }],
      }),
    ),
  );
  return lab;
}

describe("reference explanations", () => {
  it("list every isolating policy and why each clause of each rule failed", () => {
    const lab = labWithPolicy();
    const v = unwrap(evaluateConnection(lab.world, { src: { pod: "cyh/test" }, dst: { pod: "web/web1" }, protocol: "TCP", port: 8080 }, IPTABLES));
    assert.equal(v.allowed, false);
    assert.equal(v.egress.reason, "not-isolated");
    assert.equal(v.ingress.reason, "no-rule-allows");
    assert.equal(v.ingress.policies.length, 1);
    const rule = v.ingress.policies[0]!.rules[0]!;
    assert.deepEqual(rule.peers, {
      matched: false,
      reasons: ["ipBlock 10.1.8.0/24 does not contain 10.224.41.133", "namespace cyh lacks label project=myproject"],
    });
    assert.deepEqual(rule.ports, { matched: false, reasons: ["port 8080/TCP not in ports [80/TCP]"] });
    const text = formatConnection(v);
    assert.match(text, /^pod cyh\/test \(10\.224\.41\.133\) -> pod web\/web1 \(10\.224\.193\.67\) 8080\/TCP: DENIED/);
    assert.match(text, /policy web\/my-network-policy:/);
    assert.match(text, /\[no\] namespace cyh lacks label project=myproject/);
  });
});

describe("compiled decision explanations", () => {
  it("a drop names the identity the ipcache gave and the policy reading behind it", () => {
    const lab = labWithPolicy();
    const e = explainAt(lab.compiler, "web/web1", Direction.INGRESS, ip("10.224.41.128"), IpProto.TCP, 80)!;
    assert.equal(e.datapath.verdict, "drop");
    assert.equal(e.datapath.identity, "6 (reserved:remote-node)");
    assert.equal(e.agrees, true);
    assert.equal(e.policy.peer, "node worker31.cyh.cloud (10.224.41.128)");
    const text = formatCompiled(e);
    assert.match(text, /^datapath on worker32\.cyh\.cloud: ipcache maps 10\.224\.41\.128 to identity 6 \(reserved:remote-node\); no policy map entry allows it/);
    assert.match(text, /ipBlock 10\.1\.8\.0\/24 does not contain 10\.224\.41\.128/);
  });

  it("an allow cites the rule through its ruleRef", () => {
    const lab = labWithPolicy();
    const e = explainAt(lab.compiler, "web/web1", Direction.INGRESS, ip("10.1.8.100"), IpProto.TCP, 80)!;
    assert.equal(e.datapath.verdict, "allow");
    assert.equal(e.datapath.origin?.text, "ingress rule #0 of policy web/my-network-policy");
    assert.match(e.datapath.identity, /cidr 10\.1\.8\.0\/24/);
    assert.match(formatCompiled(e), /allowed by ingress rule #0 of policy web\/my-network-policy/);
    const own = explainAt(lab.compiler, "web/web1", Direction.INGRESS, ip("10.1.8.32"), IpProto.TCP, 22)!;
    assert.equal(own.datapath.origin?.kind, "own-node");
    assert.equal(own.policy.reason, "own-node");
  });

  it("returns null for an address that is not a local endpoint", () => {
    const lab = labWithPolicy();
    assert.equal(explainAt(lab.compiler, "web/nope", Direction.INGRESS, ip("10.1.8.100"), IpProto.TCP, 80), null);
  });
});

// iptables-restore text: a kube-proxy style ruleset (ClusterIP with two endpoints, masquerade mark,
// a service without endpoints) loaded with --noflush semantics and exercised with packets; the save
// output parses back to the same ruleset; errors name the line.

import { test } from "node:test";
import assert from "node:assert/strict";
import { DropReason } from "../../../datapath/reasons.js";
import { NfVerdict } from "../../../src/net/netfilter/hooks.js";
import { parseRuleArgs, splitWords } from "../../../src/net/netfilter/table/iptables-text.js";
import { iptablesRestore } from "../../../src/net/netfilter/table/restore.js";
import { TCP, TestHost, forward, tcpSeg } from "./helpers.js";

const KUBE_PROXY = `
*filter
:KUBE-FORWARD - [0:0]
:KUBE-SERVICES - [0:0]
-A FORWARD -m comment --comment "kubernetes forwarding rules" -j KUBE-FORWARD
-A FORWARD -m conntrack --ctstate NEW -m comment --comment "kubernetes service portals" -j KUBE-SERVICES
-A KUBE-FORWARD -m conntrack --ctstate INVALID -j DROP
-A KUBE-FORWARD -m comment --comment "kubernetes forwarding rules" -m mark --mark 0x4000/0x4000 -j ACCEPT
-A KUBE-FORWARD -m comment --comment "kubernetes forwarding conntrack rule" -m conntrack --ctstate RELATED,ESTABLISHED -j ACCEPT
-A KUBE-SERVICES -d 10.96.0.20/32 -p tcp -m comment --comment "default/noep has no endpoints" -m tcp --dport 80 -j REJECT --reject-with icmp-port-unreachable
COMMIT
*nat
:KUBE-MARK-MASQ - [0:0]
:KUBE-POSTROUTING - [0:0]
:KUBE-SERVICES - [0:0]
:KUBE-SVC-WEB - [0:0]
:KUBE-SEP-A - [0:0]
:KUBE-SEP-B - [0:0]
-A PREROUTING -m comment --comment "kubernetes service portals" -j KUBE-SERVICES
-A OUTPUT -m comment --comment "kubernetes service portals" -j KUBE-SERVICES
-A POSTROUTING -m comment --comment "kubernetes postrouting rules" -j KUBE-POSTROUTING
-A KUBE-MARK-MASQ -j MARK --or-mark 0x4000
-A KUBE-POSTROUTING -m mark ! --mark 0x4000/0x4000 -j RETURN
-A KUBE-POSTROUTING -j MARK --xor-mark 0x4000
-A KUBE-POSTROUTING -m comment --comment "kubernetes service traffic requiring SNAT" -j MASQUERADE --random-fully
-A KUBE-SERVICES -d 10.96.0.10/32 -p tcp -m comment --comment "default/web cluster IP" -m tcp --dport 80 -j KUBE-SVC-WEB
-A KUBE-SVC-WEB ! -s 10.244.0.0/16 -d 10.96.0.10/32 -p tcp -m comment --comment "default/web cluster IP" -m tcp --dport 80 -j KUBE-MARK-MASQ
-A KUBE-SVC-WEB -m comment --comment "default/web -> 10.244.1.5:8080" -m statistic --mode random --probability 0.50000000000 -j KUBE-SEP-A
-A KUBE-SVC-WEB -m comment --comment "default/web -> 10.244.2.7:8080" -j KUBE-SEP-B
-A KUBE-SEP-A -s 10.244.1.5/32 -m comment --comment "default/web" -j KUBE-MARK-MASQ
-A KUBE-SEP-A -p tcp -m comment --comment "default/web" -m tcp -j DNAT --to-destination 10.244.1.5:8080
-A KUBE-SEP-B -s 10.244.2.7/32 -m comment --comment "default/web" -j KUBE-MARK-MASQ
-A KUBE-SEP-B -p tcp -m comment --comment "default/web" -m tcp -j DNAT --to-destination 10.244.2.7:8080
COMMIT
`;

function node() {
  const host = new TestHost();
  const eth0 = host.addDevice("eth0", "10.1.8.31/24");
  const cni0 = host.addDevice("cni0", "10.244.1.1/24");
  const r = iptablesRestore(host.netfilter, KUBE_PROXY, { noflush: true });
  assert.ok(r.ok, JSON.stringify(r));
  return { host, eth0, cni0, nf: host.netfilter };
}

test("a kube-proxy ruleset loads and runs: ClusterIP DNAT to an endpoint, masquerade mark, REJECT without endpoints", () => {
  const { host, eth0, cni0, nf } = node();
  const seen = new Set<string>();
  for (let k = 0; k < 20; k++) {
    const skb = host.packet(tcpSeg("10.1.8.100", 40000 + k, "10.96.0.10", 80, TCP.SYN));
    assert.equal(forward(nf, skb, eth0, cni0), NfVerdict.ACCEPT);
    const d = skb.data;
    const at = skb.head;
    seen.add(`${d[at + 16]}.${d[at + 17]}.${d[at + 18]}.${d[at + 19]}:${(d[at + 22]! << 8) | d[at + 23]!}`);
    assert.deepEqual([...d.subarray(at + 12, at + 16)], [10, 244, 1, 1], "from outside the cluster CIDR: masqueraded to cni0's address");
    assert.equal(skb.mark & 0x4000, 0, "the masquerade mark was cleared again in KUBE-POSTROUTING");
  }
  assert.deepEqual([...seen].sort(), ["10.244.1.5:8080", "10.244.2.7:8080"]);
  const rejected = host.packet(tcpSeg("10.1.8.100", 41000, "10.96.0.20", 80, TCP.SYN));
  assert.equal(forward(nf, rejected, eth0, cni0), NfVerdict.STOLEN);
  const drop = host.sink.dropRecords.at(-1)!;
  assert.equal(drop.reason, DropReason.HOST_STACK_REJECT);
  assert.equal(drop.site, 'netfilter/filter/KUBE-SERVICES#1 "default/noep has no endpoints"');
  assert.equal(host.sent.length, 1, "ICMP port unreachable sent back");
});

test("iptables-save output parses back to the same ruleset", () => {
  const { nf } = node();
  const saved = nf.save();
  const other = new TestHost();
  const r = iptablesRestore(other.netfilter, saved);
  assert.ok(r.ok, JSON.stringify(r));
  assert.equal(other.netfilter.save(), saved);
  assert.match(saved, /^-A KUBE-SVC-WEB ! -s 10\.244\.0\.0\/16 -d 10\.96\.0\.10\/32 -p tcp -m comment --comment "default\/web cluster IP" -m tcp --dport 80 -j KUBE-MARK-MASQ$/m);
  assert.match(saved, /^-A KUBE-SVC-WEB -m comment --comment "default\/web -> 10\.244\.1\.5:8080" -m statistic --mode random --probability 0\.50000000000 -j KUBE-SEP-A$/m);
});

test("errors name the line and the problem; words split like iptables-restore", () => {
  const host = new TestHost();
  const bad = iptablesRestore(host.netfilter, "*filter\n-A INPUT -p tcp --dport 22 -j ACCEPT\n-A INPUT --frobnicate -j DROP\nCOMMIT\n");
  assert.deepEqual(bad.ok ? null : bad.error, { line: 3, reason: 'unsupported option "--frobnicate"' });
  const noCommit = iptablesRestore(host.netfilter, "*nat\n-A PREROUTING -j ACCEPT\n");
  assert.equal(noCommit.ok, false);
  const loop = iptablesRestore(host.netfilter, "*filter\n:A - [0:0]\n-A A -j A\nCOMMIT\n");
  assert.deepEqual(loop.ok ? null : loop.error.line, 3);
  assert.deepEqual(splitWords('-m comment --comment "a \\"b\\" c" -j X'), { ok: true, value: ["-m", "comment", "--comment", 'a "b" c', "-j", "X"] });
  const spec = parseRuleArgs(["-p", "icmp", "-m", "icmp", "--icmp-type", "echo-request", "-j", "ACCEPT"]);
  assert.ok(spec.ok);
  assert.deepEqual(spec.value.icmpType, { type: 8, invert: false });
});

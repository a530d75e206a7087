// iptables-restore semantics beyond single rules: a rule without -j counts and falls through (and
// iptables-save prints it without -j); each "*table ... COMMIT" block is applied all or nothing,
// checked as a whole at COMMIT (so only the block's final state matters), with errors naming the
// line; earlier committed blocks stay; and statistic probabilities print as the kernel stores them.

import { test } from "node:test";
import assert from "node:assert/strict";
import { NfVerdict } from "../../../src/net/netfilter/hooks.js";
import { storedProbability } from "../../../src/net/netfilter/table/format.js";
import { iptablesRestore } from "../../../src/net/netfilter/table/restore.js";
import { TCP, TestHost, forward, tcpSeg } from "./helpers.js";

function router() {
  const host = new TestHost({ conntrackMode: "off" });
  const eth0 = host.addDevice("eth0", "10.1.8.1/24");
  const eth1 = host.addDevice("eth1", "10.2.0.1/24");
  return { host, eth0, eth1, nf: host.netfilter };
}

const lines = (text: string): string[] => text.split("\n").filter((l) => l.startsWith("-A ") || l.startsWith("[") || l.startsWith(":"));

test("a rule without a target counts the packets it matches and the next rule decides", () => {
  const { host, eth0, eth1, nf } = router();
  const r = iptablesRestore(
    nf,
    ["*filter", ":COUNT - [0:0]", '-A FORWARD -s 10.1.8.100/32 -m comment --comment "count only"', "-A FORWARD -p tcp -m tcp --dport 22 -j DROP", "-A FORWARD -j COUNT", "-A COUNT -p tcp", "COMMIT", ""].join("\n"),
  );
  assert.ok(r.ok, JSON.stringify(r));
  assert.equal(forward(nf, host.packet(tcpSeg("10.1.8.100", 40000, "10.2.0.5", 22, TCP.SYN)), eth0, eth1), NfVerdict.DROP);
  assert.equal(forward(nf, host.packet(tcpSeg("10.1.8.100", 40001, "10.2.0.5", 80, TCP.SYN)), eth0, eth1), NfVerdict.ACCEPT);
  assert.equal(forward(nf, host.packet(tcpSeg("10.1.8.7", 40002, "10.2.0.5", 80, TCP.SYN)), eth0, eth1), NfVerdict.ACCEPT);
  const drop = host.sink.dropRecords.at(-1)!;
  assert.equal(drop.site, "netfilter/filter/FORWARD#2", "the counting rule never decides");
  // iptables-save prints such a rule with no -j; counters: 2 packets from .100, the DROP 1, COUNT's rule 2.
  assert.deepEqual(lines(nf.save(true)).filter((l) => /FORWARD|COUNT/.test(l) && l.startsWith("[")), [
    '[2:80] -A FORWARD -s 10.1.8.100/32 -m comment --comment "count only"',
    "[1:40] -A FORWARD -p tcp -m tcp --dport 22 -j DROP",
    "[2:80] -A FORWARD -j COUNT",
    "[2:80] -A COUNT -p tcp",
  ]);
  const other = new TestHost();
  assert.ok(iptablesRestore(other.netfilter, nf.save()).ok);
  const rules = (text: string): string[] => text.split("\n").filter((l) => l.startsWith("-A "));
  assert.deepEqual(rules(other.netfilter.save()), rules(nf.save()), "the save output restores to the same rules");
});

test("target options without a target are refused", () => {
  const { nf } = router();
  const r = iptablesRestore(nf, "*nat\n-A PREROUTING -p tcp --to-destination 10.0.0.1\nCOMMIT\n");
  assert.deepEqual(r.ok ? null : r.error, { line: 2, reason: "target options given without a target (-j)" });
});

test("a failing line leaves its table as it was; blocks committed before it stay", () => {
  const { nf } = router();
  assert.ok(iptablesRestore(nf, "*nat\n:OLD - [0:0]\n-A PREROUTING -j OLD\n-A OLD -p tcp -j DNAT --to-destination 10.2.0.5\nCOMMIT\n").ok);
  const natBefore = nf.table("nat");
  const savedNat = lines(nf.save()).filter((l) => l.includes("OLD") || l.includes("PREROUTING"));
  const input = [
    "*filter",
    "-A FORWARD -s 10.9.0.0/16 -j DROP",
    "COMMIT",
    "*nat",
    ":NEW - [0:0]",
    "-A NEW -p tcp -j DNAT --to-destination 10.2.0.6",
    "-A PREROUTING -j NEW",
    "-F OLD",
    "-A PREROUTING -p tcp --dport 99999 -j NEW",
    "COMMIT",
    "",
  ].join("\n");
  const r = iptablesRestore(nf, input, { noflush: true });
  assert.deepEqual(r.ok ? null : r.error, { line: 9, reason: 'bad port "99999"' });
  assert.equal(nf.table("nat"), natBefore);
  assert.deepEqual(lines(nf.save()).filter((l) => l.includes("OLD") || l.includes("PREROUTING") || l.includes("NEW")), savedNat, "nat: NEW never created, OLD not flushed");
  assert.equal(nf.table("nat").chain("OLD")!.refs, 1);
  assert.deepEqual(lines(nf.save()).filter((l) => l.startsWith("-A FORWARD")), ["-A FORWARD -s 10.9.0.0/16 -j DROP"], "the filter block was committed");
});

test("hooks and loops are checked once at COMMIT, on the block's final state; a refused COMMIT names the rule's line", () => {
  const { nf } = router();
  // MASQUERADE in a chain reached from PREROUTING is refused, even though the jump came first.
  const bad = iptablesRestore(nf, "*nat\n:X - [0:0]\n-A PREROUTING -j X\n-A X -j MASQUERADE\nCOMMIT\n");
  assert.deepEqual(bad.ok ? null : bad.error, { line: 4, reason: "MASQUERADE only valid in POSTROUTING (table nat not committed, COMMIT on line 5)" });
  assert.equal(nf.table("nat").chain("X"), undefined, "rolled back");
  // The same rules are fine when the jump is gone again before COMMIT (the kernel sees only the result).
  const ok = iptablesRestore(nf, "*nat\n:X - [0:0]\n-A PREROUTING -j X\n-A X -j MASQUERADE\n-D PREROUTING 1\n-A POSTROUTING -j X\nCOMMIT\n");
  assert.ok(ok.ok, JSON.stringify(ok));
  // A loop closed inside one block.
  const loop = iptablesRestore(nf, "*filter\n:A - [0:0]\n:B - [0:0]\n-A A -j B\n-A B -p tcp -j A\nCOMMIT\n");
  assert.deepEqual(loop.ok ? null : loop.error, { line: 5, reason: 'jump to "A" makes a loop (table filter not committed, COMMIT on line 6)' });
  assert.equal(nf.table("filter").chain("A"), undefined);
});

test("a block without COMMIT, or a table opened inside another, applies nothing", () => {
  const { nf } = router();
  const before = nf.save();
  const noCommit = iptablesRestore(nf, "*filter\n-A FORWARD -j DROP\n");
  assert.deepEqual(noCommit.ok ? null : noCommit.error, { line: 3, reason: 'table "filter" has no COMMIT' });
  const nested = iptablesRestore(nf, "*filter\n-A FORWARD -j DROP\n*nat\nCOMMIT\n");
  assert.deepEqual(nested.ok ? null : nested.error.line, 3);
  assert.equal(nf.save(), before);
});

test("a rolled-back transaction keeps the surviving rules and their counters", () => {
  const { host, eth0, eth1, nf } = router();
  const filter = nf.table("filter");
  assert.ok(iptablesRestore(nf, "*filter\n:ALLOW - [0:0]\n-A FORWARD -j ALLOW\n-A ALLOW -p tcp -j ACCEPT\nCOMMIT\n").ok);
  forward(nf, host.packet(tcpSeg("10.1.8.100", 40000, "10.2.0.5", 80, TCP.SYN)), eth0, eth1);
  const rule = filter.chain("ALLOW")!.rules[0]!;
  assert.equal(rule.packets, 1);
  assert.ok(filter.begin().ok);
  assert.equal(filter.begin().ok, false, "one transaction at a time");
  assert.ok(filter.flush().ok);
  assert.ok(filter.deleteChain("ALLOW").ok);
  assert.ok(filter.newChain("ALLOW").ok);
  filter.rollback();
  assert.equal(filter.inTransaction, false);
  assert.equal(filter.chain("ALLOW")!.rules[0], rule);
  assert.equal(rule.packets, 1);
  assert.equal(filter.chain("ALLOW")!.refs, 1);
  assert.equal(filter.deleteChain("ALLOW").ok, false, "still referenced from FORWARD");
  assert.equal(forward(nf, host.packet(tcpSeg("10.1.8.100", 40001, "10.2.0.5", 80, TCP.SYN)), eth0, eth1), NfVerdict.ACCEPT);
  assert.equal(rule.packets, 2);
});

test("statistic probabilities print as iptables-save prints the kernel's 31-bit value", () => {
  // Input (kube-proxy's text) -> what iptables-save printed on real nodes.
  const seen: readonly [string, string][] = [
    ["0.3333333333", "0.33333333349"],
    ["0.2000000000", "0.20000000019"],
    ["0.1666666667", "0.16666666651"],
    ["0.16667", "0.16667000018"],
    ["0.2500000000", "0.25000000000"],
    ["0.5000000000", "0.50000000000"],
    ["1", "1.00000000000"],
  ];
  for (const [given, printed] of seen) {
    const { nf } = router();
    assert.ok(iptablesRestore(nf, `*filter\n-A FORWARD -m statistic --mode random --probability ${given} -j ACCEPT\nCOMMIT\n`).ok);
    assert.match(nf.save(), new RegExp(`^-A FORWARD -m statistic --mode random --probability ${printed.replace(".", "\\.")} -j ACCEPT$`, "m"), given);
  }
  // glibc's printf rounds the exact binary value half to even: 2^-12 = 0.000244140625 -> ...062.
  assert.equal(storedProbability(1 << 19), "0.00024414062");
  assert.equal(storedProbability(3 << 19), "0.00073242188");
});

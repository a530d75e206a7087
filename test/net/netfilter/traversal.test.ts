// iptables traversal semantics: first matching terminal target wins, jump pushes and RETURN pops,
// goto does not come back, the built-in chain's policy ends it, counters count matches (IP length),
// MARK continues; validation refuses what iptables/the kernel refuse; matches (interfaces with "+",
// multiport, --syn, mark, addrtype, statistic, recent); PROGRAM targets and their drop records.

import { test } from "node:test";
import assert from "node:assert/strict";
import { DropReason } from "../../../datapath/reasons.js";
import { NfHook, NfVerdict } from "../../../src/net/netfilter/hooks.js";
import { markTarget, ProgramVerdict, type NfRuleSpec } from "../../../src/net/netfilter/table/spec.js";
import { TCP, TestHost, deliver, forward, ip, tcpSeg, udpDgram, text } from "./helpers.js";

function setup() {
  const host = new TestHost();
  const eth0 = host.addDevice("eth0", "10.0.1.1/24");
  const cali1 = host.addDevice("cali1234", "10.0.2.1/24");
  return { host, eth0, cali1, filter: host.netfilter.table("filter"), nf: host.netfilter };
}

const accept = { kind: "ACCEPT" } as const;
const drop = { kind: "DROP" } as const;

test("jump, RETURN, goto and the policy, with per-rule and policy counters", () => {
  const { host, eth0, cali1, filter, nf } = setup();
  assert.ok(filter.newChain("A").ok);
  assert.ok(filter.newChain("B").ok);
  assert.ok(filter.append("FORWARD", { target: { kind: "JUMP", chain: "A" } }).ok); // 1
  assert.ok(filter.append("FORWARD", { proto: "udp", dport: 53, target: accept }).ok); // 2
  assert.ok(filter.append("A", { proto: "tcp", target: { kind: "GOTO", chain: "B" } }).ok); // A1
  assert.ok(filter.append("A", { proto: "udp", dport: 53, target: { kind: "RETURN" } }).ok); // A2
  assert.ok(filter.append("A", { proto: "udp", target: drop }).ok); // A3
  assert.ok(filter.append("A", { proto: "tcp", dport: 80, target: accept }).ok); // A4: never reached by tcp (A1 went to B)
  assert.ok(filter.append("B", { proto: "tcp", dport: 22, target: accept }).ok); // B1
  assert.ok(filter.setPolicy("FORWARD", "DROP").ok);

  const udp53 = host.packet(udpDgram("10.0.1.2", 1000, "10.0.2.2", 53, text("q")));
  assert.equal(forward(nf, udp53, eth0, cali1), NfVerdict.ACCEPT, "RETURN from A, then FORWARD rule 2 accepts");
  const udp54 = host.packet(udpDgram("10.0.1.2", 1000, "10.0.2.2", 54, text("q")));
  assert.equal(forward(nf, udp54, eth0, cali1), NfVerdict.DROP, "A3 drops");
  const ssh = host.packet(tcpSeg("10.0.1.2", 1000, "10.0.2.2", 22, TCP.SYN));
  assert.equal(forward(nf, ssh, eth0, cali1), NfVerdict.ACCEPT, "goto B accepts");
  const http = host.packet(tcpSeg("10.0.1.2", 1000, "10.0.2.2", 80, TCP.SYN));
  assert.equal(forward(nf, http, eth0, cali1), NfVerdict.DROP, "end of B after goto returns past A (to FORWARD), whose policy drops");

  const counts = (c: string) => filter.chain(c)!.rules.map((r) => r.packets);
  assert.deepEqual(counts("FORWARD"), [4, 1]);
  assert.deepEqual(counts("A"), [2, 1, 1, 0]);
  assert.deepEqual(counts("B"), [1]);
  const fwd = filter.chain("FORWARD")!;
  assert.deepEqual([fwd.policyCounter.packets, fwd.policyCounter.bytes], [1, 40]);
  assert.equal(filter.chain("FORWARD")!.rules[1]!.bytes, 29, "bytes count the IPv4 total length");

  const drops = host.sink.dropRecords;
  assert.deepEqual(
    drops.map((d) => [d.reason, d.site, d.hook, d.device]),
    [
      [DropReason.NETFILTER_DROP, "netfilter/filter/A#3", "FORWARD", "eth0"],
      [DropReason.NETFILTER_DROP, "netfilter/filter/FORWARD:policy", "FORWARD", "eth0"],
    ],
  );
  filter.zero();
  assert.deepEqual(counts("FORWARD"), [0, 0]);
});

test("ACCEPT inside a user chain ends the whole table; a non-matching user chain falls back to the caller", () => {
  const { host, eth0, cali1, filter, nf } = setup();
  assert.ok(filter.newChain("X").ok);
  assert.ok(filter.append("FORWARD", { target: { kind: "JUMP", chain: "X" } }).ok);
  assert.ok(filter.append("FORWARD", { target: drop }).ok);
  assert.ok(filter.append("X", { proto: "udp", target: accept }).ok);
  assert.equal(forward(nf, host.packet(udpDgram("10.0.1.2", 1, "10.0.2.2", 2, text("x"))), eth0, cali1), NfVerdict.ACCEPT);
  assert.equal(forward(nf, host.packet(tcpSeg("10.0.1.2", 1, "10.0.2.2", 2, TCP.SYN)), eth0, cali1), NfVerdict.DROP);
});

test("edits are checked like iptables: unknown chains, loops, misplaced targets, referenced chains", () => {
  const { host } = setup();
  const filter = host.netfilter.table("filter");
  const nat = host.netfilter.table("nat");
  const bad = (r: { ok: boolean; error?: unknown }) => {
    assert.equal(r.ok, false);
    return (r as { error: { reason: string; field: string } }).error;
  };
  assert.match(bad(filter.append("FORWARD", { target: { kind: "JUMP", chain: "NOPE" } })).reason, /no chain/);
  assert.ok(filter.newChain("L1").ok);
  assert.ok(filter.newChain("L2").ok);
  assert.ok(filter.append("L1", { target: { kind: "JUMP", chain: "L2" } }).ok);
  assert.match(bad(filter.append("L2", { target: { kind: "JUMP", chain: "L1" } })).reason, /loop/);
  assert.match(bad(filter.append("FORWARD", { target: { kind: "DNAT", to: "1.2.3.4" } })).reason, /nat table/);
  assert.match(bad(nat.append("POSTROUTING", { target: { kind: "DNAT", to: "1.2.3.4" } })).reason, /PREROUTING and OUTPUT/);
  assert.match(bad(nat.append("PREROUTING", { target: drop })).reason, /not for filtering/);
  assert.match(bad(filter.append("FORWARD", { dport: 80, target: accept })).reason, /-p tcp/);
  assert.match(bad(filter.append("FORWARD", { src: "10.0.0.300/8", target: accept })).reason, /bad address/);
  assert.equal(bad(filter.append("FORWARD", { src: "10.0.0.300/8", target: accept })).field, "src");
  // A user chain holding a REJECT may not be reached from PREROUTING.
  const mangle = host.netfilter.table("mangle");
  assert.ok(mangle.newChain("R").ok);
  assert.ok(mangle.append("R", { target: { kind: "REJECT" } }).ok);
  assert.match(bad(mangle.append("PREROUTING", { target: { kind: "JUMP", chain: "R" } })).reason, /REJECT in chain "R"/);
  assert.ok(mangle.append("FORWARD", { target: { kind: "JUMP", chain: "R" } }).ok);
  assert.match(bad(mangle.deleteChain("R")).reason, /referenced/);
  assert.ok(mangle.flush("FORWARD").ok);
  assert.ok(mangle.flush("R").ok);
  assert.ok(mangle.deleteChain("R").ok);
});

test("insert, delete and replace keep positions as iptables does", () => {
  const { filter } = setup();
  assert.ok(filter.append("INPUT", { proto: "tcp", dport: 1, target: accept }).ok);
  assert.ok(filter.append("INPUT", { proto: "tcp", dport: 3, target: accept }).ok);
  assert.ok(filter.insert("INPUT", { proto: "tcp", dport: 2, target: accept }, 2).ok);
  assert.ok(filter.insert("INPUT", { proto: "tcp", dport: 0, target: accept }).ok);
  const ports = () => filter.chain("INPUT")!.rules.map((r) => r.dportLo);
  assert.deepEqual(ports(), [0, 1, 2, 3]);
  assert.ok(filter.delete("INPUT", 1).ok);
  assert.ok(filter.replace("INPUT", 3, { proto: "tcp", dport: 9, target: accept }).ok);
  assert.deepEqual(ports(), [1, 2, 9]);
  assert.equal(filter.delete("INPUT", 7).ok, false);
});

test("matches: interface wildcards, negation, multiport, --syn, mark, addrtype, ctstate", () => {
  const { host, eth0, cali1, filter, nf } = setup();
  const rules: NfRuleSpec[] = [
    { inIface: "cali+", target: { kind: "LOG" } },
    { inIface: "!eth0", target: { kind: "LOG" } },
    { proto: "tcp", multiport: { side: "dst", ports: [80, "8000:8080"] }, target: { kind: "LOG" } },
    { proto: "tcp", tcpFlags: { mask: TCP.SYN | TCP.RST | TCP.ACK | TCP.FIN, comp: TCP.SYN }, target: { kind: "LOG" } },
    { mark: { value: 0x4000, mask: 0x4000 }, target: { kind: "LOG" } },
    { dstType: { type: "LOCAL" }, target: { kind: "LOG" } },
    { src: "!10.0.0.0/8", target: { kind: "LOG" } },
    { ctstate: { states: ["NEW"] }, target: { kind: "LOG" } },
    { ctstate: { states: ["ESTABLISHED", "RELATED"] }, target: { kind: "LOG" } },
  ];
  for (const r of rules) assert.ok(filter.append("FORWARD", r).ok);
  assert.ok(filter.append("INPUT", rules[5]!).ok);
  const syn = host.packet(tcpSeg("10.0.1.2", 1000, "10.0.2.2", 8042, TCP.SYN));
  forward(nf, syn, eth0, cali1);
  const ack = host.packet(tcpSeg("10.0.2.2", 8042, "10.0.1.2", 1000, TCP.SYN | TCP.ACK, { ack: 1001 }));
  ack.mark = 0x4001;
  forward(nf, ack, cali1, eth0);
  deliver(nf, host.packet(udpDgram("10.0.1.2", 1, "10.0.1.1", 2, text("x"))), eth0);
  assert.deepEqual(
    filter.chain("FORWARD")!.rules.map((r) => r.packets),
    [1, 1, 1, 1, 1, 0, 0, 1, 1],
  );
  assert.deepEqual(filter.chain("INPUT")!.rules.map((r) => r.packets), [1]);
});

test("MARK as kube-proxy uses it: --or-mark in PREROUTING, then --xor-mark clears it before MASQUERADE", () => {
  const { host, eth0, cali1, nf } = setup();
  const nat = nf.table("nat");
  assert.ok(nat.newChain("KUBE-MARK-MASQ").ok);
  assert.ok(nat.newChain("KUBE-POSTROUTING").ok);
  assert.ok(nat.append("KUBE-MARK-MASQ", { target: markTarget("or", 0x4000) }).ok);
  assert.ok(nat.append("PREROUTING", { src: "10.0.1.0/24", target: { kind: "JUMP", chain: "KUBE-MARK-MASQ" } }).ok);
  assert.ok(nat.append("POSTROUTING", { target: { kind: "JUMP", chain: "KUBE-POSTROUTING" } }).ok);
  assert.ok(nat.append("KUBE-POSTROUTING", { mark: { value: 0x4000, mask: 0x4000, invert: true }, target: { kind: "RETURN" } }).ok);
  assert.ok(nat.append("KUBE-POSTROUTING", { target: markTarget("xor", 0x4000) }).ok);
  assert.ok(nat.append("KUBE-POSTROUTING", { target: { kind: "MASQUERADE", randomFully: true } }).ok);
  const skb = host.packet(tcpSeg("10.0.1.2", 1000, "10.0.2.2", 80, TCP.SYN));
  skb.mark = 0x1;
  assert.equal(forward(nf, skb, eth0, cali1), NfVerdict.ACCEPT);
  assert.equal(skb.mark, 0x1, "0x4000 set then cleared, other bits untouched");
  assert.equal(skb.data[skb.head + 12], 10);
  assert.deepEqual([...skb.data.subarray(skb.head + 12, skb.head + 16)], [10, 0, 2, 1], "masqueraded to cali1234's address");
  assert.match(nf.save(), /-A KUBE-MARK-MASQ -j MARK --set-xmark 0x4000\/0x4000/);
  assert.match(nf.save(), /-A KUBE-POSTROUTING -m mark ! --mark 0x4000\/0x4000 -j RETURN/);
  assert.match(nf.save(), /-A KUBE-POSTROUTING -j MASQUERADE --random-fully/);
});

test("statistic --mode random splits like kube-proxy's 1/3, 1/2, rest chain, reproducibly per seed", () => {
  const run = (seed: number): number[] => {
    const host = new TestHost({}, seed);
    const eth0 = host.addDevice("eth0", "10.0.1.1/24");
    const nat = host.netfilter.table("nat");
    const backends = ["10.0.9.1", "10.0.9.2", "10.0.9.3"];
    assert.ok(nat.append("PREROUTING", { proto: "tcp", dst: "10.96.0.10", statistic: { mode: "random", probability: 0.3333333333 }, target: { kind: "DNAT", to: `${backends[0]}:80` } }).ok);
    assert.ok(nat.append("PREROUTING", { proto: "tcp", dst: "10.96.0.10", statistic: { mode: "random", probability: 0.5 }, target: { kind: "DNAT", to: `${backends[1]}:80` } }).ok);
    assert.ok(nat.append("PREROUTING", { proto: "tcp", dst: "10.96.0.10", target: { kind: "DNAT", to: `${backends[2]}:80` } }).ok);
    const hits = [0, 0, 0];
    for (let k = 0; k < 1500; k++) {
      const skb = host.packet(tcpSeg("10.0.1.2", 10000 + k, "10.96.0.10", 80, TCP.SYN));
      host.netfilter.run(NfHook.PREROUTING, skb, eth0, null);
      const last = skb.data[skb.head + 19]!;
      hits[last - 1]!++;
    }
    return hits;
  };
  const a = run(7);
  for (const n of a) assert.ok(n > 400 && n < 600, `even split ${a.join(",")}`);
  assert.deepEqual(run(7), a, "same seed, same choices");
  assert.notDeepEqual(run(8), a);
});

test("recent: kube-proxy session affinity sends a client back to the backend it got, until the entry is too old", () => {
  const host = new TestHost();
  const eth0 = host.addDevice("eth0", "10.0.1.1/24");
  const nat = host.netfilter.table("nat");
  for (const [n, be] of [["1", "10.0.9.1"], ["2", "10.0.9.2"]] as const) assert.ok(nat.newChain(`SEP${n}`).ok && nat.append(`SEP${n}`, { proto: "tcp", recent: { name: `SEP${n}`, op: "set" }, target: { kind: "DNAT", to: `${be}:80` } }).ok);
  assert.ok(nat.append("PREROUTING", { recent: { name: "SEP1", op: "rcheck", seconds: 10800, reap: true }, target: { kind: "JUMP", chain: "SEP1" } }).ok);
  assert.ok(nat.append("PREROUTING", { recent: { name: "SEP2", op: "rcheck", seconds: 10800, reap: true }, target: { kind: "JUMP", chain: "SEP2" } }).ok);
  assert.ok(nat.append("PREROUTING", { statistic: { mode: "random", probability: 0.5 }, target: { kind: "JUMP", chain: "SEP1" } }).ok);
  assert.ok(nat.append("PREROUTING", { target: { kind: "JUMP", chain: "SEP2" } }).ok);
  const backendFor = (port: number): number => {
    const skb = host.packet(tcpSeg("10.0.1.2", port, "10.96.0.10", 80, TCP.SYN));
    host.netfilter.run(NfHook.PREROUTING, skb, eth0, null);
    return skb.data[skb.head + 19]!;
  };
  const first = backendFor(20000);
  for (let k = 1; k < 20; k++) assert.equal(backendFor(20000 + k), first);
  host.sim.runUntil(10801 * 1_000_000_000);
  const list = host.netfilter.recent.contents(`SEP${first}`);
  assert.equal(list.has(ip("10.0.1.2")), true);
  const again = backendFor(30000);
  assert.equal(host.netfilter.recent.contents(`SEP${again}`).get(ip("10.0.1.2"))?.length, 1, "the stale entry was reaped, a fresh one set");
  if (again !== first) assert.equal(host.netfilter.recent.contents(`SEP${first}`).has(ip("10.0.1.2")), false);
});

test("PROGRAM targets: ACCEPT, CONTINUE, and DROP with the program's reason and explanation", () => {
  const { host, eth0, cali1, filter, nf } = setup();
  const seen: string[] = [];
  assert.ok(
    filter.append("FORWARD", {
      outIface: "cali+",
      comment: "cali:policy",
      target: {
        kind: "PROGRAM",
        name: "calico-policy",
        run: (skb, inDev, outDev, d) => {
          seen.push(`${inDev?.name}->${outDev?.name}`);
          const dport = (skb.data[skb.head + 22]! << 8) | skb.data[skb.head + 23]!;
          if (dport === 80) return ProgramVerdict.ACCEPT;
          if (dport === 81) return ProgramVerdict.CONTINUE;
          d.explanation = "no policy allows port 82";
          return ProgramVerdict.DROP;
        },
      },
    }).ok,
  );
  assert.ok(filter.append("FORWARD", { proto: "tcp", dport: 81, target: drop }).ok);
  assert.equal(forward(nf, host.packet(tcpSeg("10.0.1.2", 1, "10.0.2.2", 80, TCP.SYN)), eth0, cali1), NfVerdict.ACCEPT);
  assert.equal(forward(nf, host.packet(tcpSeg("10.0.1.2", 1, "10.0.2.2", 81, TCP.SYN)), eth0, cali1), NfVerdict.DROP);
  assert.equal(forward(nf, host.packet(tcpSeg("10.0.1.2", 1, "10.0.2.2", 82, TCP.SYN)), eth0, cali1), NfVerdict.DROP);
  assert.deepEqual(seen, ["eth0->cali1234", "eth0->cali1234", "eth0->cali1234"]);
  const [d81, d82] = host.sink.dropRecords;
  assert.deepEqual([d81!.reason, d81!.site], [DropReason.NETFILTER_DROP, "netfilter/filter/FORWARD#2"]);
  assert.deepEqual([d82!.reason, d82!.site, d82!.explanation], [DropReason.POLICY_DENIED, 'netfilter/filter/FORWARD#1 "cali:policy" PROGRAM calico-policy', "no policy allows port 82"]);
});

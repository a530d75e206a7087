// The chain index must be invisible: for random chains (exact and masked destinations, inverted
// matches, port ranges, nth statistic counters, marks, jumps, gotos, returns, rules without a
// target) and random packets (TCP, UDP, ICMP, non-first fragments), a traversal through the index
// gives the same verdicts, deciding rules, marks and per-rule counters as the plain linear walk
// (the oracle: iptables' in-order semantics). A long kube-proxy-shaped chain dispatches by
// destination, and an edit rebuilds the index.

import { test } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import type { NfRuleSpec, NfTargetSpec } from "../../../src/net/netfilter/table/spec.js";
import { NfHook, NfVerdict } from "../../../src/net/netfilter/hooks.js";
import { iptablesRestore } from "../../../src/net/netfilter/table/restore.js";
import { echo, TCP, TestHost, forward, tcpSeg, udpDgram } from "./helpers.js";

const DSTS = ["10.0.0.1", "10.0.0.2", "10.0.0.3", "10.0.1.7"];
const PORTS = [53, 80, 443];

const target: fc.Arbitrary<NfTargetSpec> = fc.oneof(
  fc.constantFrom<NfTargetSpec>({ kind: "ACCEPT" }, { kind: "DROP" }, { kind: "RETURN" }, { kind: "NONE" }, { kind: "JUMP", chain: "SUB" }, { kind: "GOTO", chain: "SUB" }),
  fc.integer({ min: 0, max: 7 }).map((bit): NfTargetSpec => ({ kind: "MARK", value: 1 << bit, mask: 1 << bit })),
);

/** Mostly index-friendly rules (exact dst + proto + dport, or proto + dport), the rest anything. */
function rule(targets: fc.Arbitrary<NfTargetSpec>): fc.Arbitrary<NfRuleSpec> {
  return fc
    .record({
      dst: fc.oneof(fc.constantFrom(...DSTS), fc.constantFrom(...DSTS.map((d) => `!${d}`)), fc.constant("10.0.0.0/24"), fc.constant(undefined)),
      proto: fc.constantFrom("tcp", "udp", "icmp", undefined),
      dport: fc.oneof(fc.constantFrom(...PORTS), fc.constant("80:443"), fc.constant("!80"), fc.constant(undefined)),
      nth: fc.option(fc.integer({ min: 2, max: 3 }), { freq: 4 }),
      mark: fc.option(fc.integer({ min: 0, max: 7 }), { freq: 5 }),
      target: targets,
    })
    .map((r) => {
      const ports = r.proto === "tcp" || r.proto === "udp";
      return {
        ...(r.dst !== undefined ? { dst: r.dst } : {}),
        ...(r.proto !== undefined ? { proto: r.proto } : {}),
        ...(ports && r.dport !== undefined ? { dport: r.dport } : {}),
        ...(r.nth !== null ? { statistic: { mode: "nth" as const, every: r.nth } } : {}),
        ...(r.mark !== null ? { mark: { value: 1 << r.mark, mask: 1 << r.mark } } : {}),
        target: r.target,
      };
    });
}

const packet = fc.record({
  dst: fc.constantFrom(...DSTS, "10.0.0.9"),
  proto: fc.constantFrom(6, 17, 1),
  dport: fc.constantFrom(...PORTS, 100, 1234),
  fragment: fc.boolean(),
  mark: fc.integer({ min: 0, max: 255 }),
});
type Packet = typeof packet extends fc.Arbitrary<infer T> ? T : never;

function bytes(p: Packet, sport: number): Uint8Array {
  const b = p.proto === 6 ? tcpSeg("10.9.0.1", sport, p.dst, p.dport, TCP.SYN) : p.proto === 17 ? udpDgram("10.9.0.1", sport, p.dst, p.dport, new Uint8Array(8)) : echo("10.9.0.1", p.dst, 8, sport, 1);
  if (p.fragment) {
    // A non-first fragment: offset 8 bytes (header checksum is not checked by netfilter's matches).
    b[6] = 0x00;
    b[7] = 0x01;
  }
  return b;
}

/** Runs the packets through FORWARD of a router holding the rules; returns everything observable. */
function observe(main: readonly NfRuleSpec[], sub: readonly NfRuleSpec[], packets: readonly Packet[], indexMinRules: number): string[] {
  const host = new TestHost({ conntrackMode: "off", chainIndexMinRules: indexMinRules });
  const inDev = host.addDevice("eth0", "10.9.0.254/24");
  const outDev = host.addDevice("eth1", "10.0.0.254/16");
  const filter = host.netfilter.table("filter");
  if (!filter.newChain("SUB").ok) throw new Error("SUB");
  for (const r of sub) if (!filter.append("SUB", r).ok) throw new Error(`SUB rule ${JSON.stringify(r)}`);
  for (const r of main) if (!filter.append("FORWARD", r).ok) throw new Error(`FORWARD rule ${JSON.stringify(r)}`);
  const out: string[] = [];
  packets.forEach((p, k) => {
    const skb = host.packet(bytes(p, 1000 + k));
    skb.mark = p.mark;
    const v = host.netfilter.run(NfHook.FORWARD, skb, inDev, outDev);
    out.push(`${v} mark=${skb.mark} site=${v === NfVerdict.DROP ? host.sink.dropRecords.at(-1)!.site : ""}`);
  });
  for (const name of ["FORWARD", "SUB"]) out.push(`${name}: ${filter.chain(name)!.rules.map((r) => `${r.packets}/${r.bytes}`).join(" ")} policy ${filter.chain(name)!.policyCounter.packets}`);
  return out;
}

test("property: traversal through the index equals the linear walk (verdicts, deciding rule, marks, counters)", () => {
  const subTargets = fc.constantFrom<NfTargetSpec>({ kind: "ACCEPT" }, { kind: "DROP" }, { kind: "RETURN" }, { kind: "NONE" }, { kind: "MARK", value: 0x100, mask: 0x100 });
  fc.assert(
    fc.property(fc.array(rule(target), { minLength: 1, maxLength: 60 }), fc.array(rule(subTargets), { maxLength: 24 }), fc.array(packet, { minLength: 1, maxLength: 30 }), (main, sub, packets) => {
      assert.deepEqual(observe(main, sub, packets, 1), observe(main, sub, packets, Infinity));
    }),
    { seed: 20240611, numRuns: 150 },
  );
});

test("a 1,000-service KUBE-SERVICES chain dispatches by destination, keeps first-match order, and is rebuilt after an edit", () => {
  const host = new TestHost({ conntrackMode: "off" });
  const eth0 = host.addDevice("eth0", "10.9.0.254/24");
  const eth1 = host.addDevice("eth1", "10.96.0.254/16");
  const nf = host.netfilter;
  const text = ["*filter", ":KUBE-SERVICES - [0:0]", "-A FORWARD -j KUBE-SERVICES"];
  for (let i = 0; i < 1000; i++) text.push(`-A KUBE-SERVICES -d 10.96.${i >> 8}.${i & 255}/32 -p tcp -m tcp --dport 80 -j ${i % 2 === 0 ? "DROP" : "ACCEPT"}`);
  text.push("-A KUBE-SERVICES -p tcp -m tcp --dport 80 -j DROP", "COMMIT", "");
  assert.ok(iptablesRestore(nf, text.join("\n")).ok);
  const chain = nf.table("filter").chain("KUBE-SERVICES")!;
  const send = (dst: string, dport = 80): number => forward(nf, host.packet(tcpSeg("10.9.0.1", 40000, dst, dport, TCP.SYN)), eth0, eth1);
  assert.equal(send("10.96.3.231"), NfVerdict.ACCEPT, "service 999");
  assert.equal(send("10.96.3.230"), NfVerdict.DROP, "service 998");
  assert.equal(host.sink.dropRecords.at(-1)!.site, "netfilter/filter/KUBE-SERVICES#999");
  assert.equal(send("10.96.9.9"), NfVerdict.DROP, "no service: the catch-all rule at the end");
  assert.equal(host.sink.dropRecords.at(-1)!.site, "netfilter/filter/KUBE-SERVICES#1001");
  assert.equal(send("10.96.3.231", 81), NfVerdict.ACCEPT, "other port: nothing matches, FORWARD's policy");
  assert.ok(chain.index !== undefined && chain.index !== null, "the chain was indexed");
  assert.deepEqual([chain.rules[998]!.packets, chain.rules[999]!.packets, chain.rules[1000]!.packets], [1, 1, 1]);
  assert.equal(chain.rules.reduce((n, r) => n + r.packets, 0), 3, "no other rule counted a packet");
  // An earlier rule for the same destination now decides.
  assert.ok(nf.table("filter").insert("KUBE-SERVICES", { dst: "10.96.3.231", proto: "tcp", dport: 80, target: { kind: "DROP" } }, 1).ok);
  assert.equal(chain.index, undefined, "the edit dropped the index");
  assert.equal(send("10.96.3.231"), NfVerdict.DROP);
  assert.equal(host.sink.dropRecords.at(-1)!.site, "netfilter/filter/KUBE-SERVICES#1");
});

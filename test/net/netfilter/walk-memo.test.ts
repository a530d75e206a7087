// Per-flow replay of table walks: a flow's packets leave exactly the counters, evaluation tallies,
// marks and verdicts a full walk leaves (checked against a namespace with replay turned off), and a
// rule edit, a different mark on entry, a new conntrack state or a changed PROGRAM stamp makes the
// next packet walk again. Walks through per-packet matches (statistic) are never replayed.

import { test } from "node:test";
import assert from "node:assert/strict";
import type { NetDevice } from "../../../src/net/device.js";
import { NfHook, NfVerdict } from "../../../src/net/netfilter/hooks.js";
import type { Netfilter } from "../../../src/net/netfilter/netfilter.js";
import { ProgramVerdict, type NfRuleSpec } from "../../../src/net/netfilter/table/spec.js";
import { TCP, TestHost, forward, tcpSeg, udpDgram, text } from "./helpers.js";

const MARK_SCRATCH = 0x40000;
const MARK_ACCEPT = 0x10000;

interface Bench {
  readonly host: TestHost;
  readonly eth0: NetDevice;
  readonly cali: NetDevice;
  /** Times the versioned PROGRAM ran. */
  programRuns: number;
  /** Its stamp (bumped by tests to stand for a route change). */
  stamp: number;
}

/** A felix-like ruleset: raw marks and a versioned rpfilter-like PROGRAM, mangle ctstate, filter jumps, MARK and RETURN. */
function felixLike(replayWalks: boolean): Bench {
  const host = new TestHost({ conntrackMode: "on", replayWalks });
  const eth0 = host.addDevice("eth0", "10.0.1.1/24");
  const cali = host.addDevice("cali1234", "10.0.2.1/24");
  const bench: Bench = { host, eth0, cali, programRuns: 0, stamp: 0 };
  const nf = host.netfilter;
  const raw = nf.table("raw");
  const ok = (r: { ok: boolean }): void => assert.ok(r.ok);
  ok(raw.newChain("pre"));
  ok(raw.newChain("skip"));
  ok(raw.append("PREROUTING", { target: { kind: "JUMP", chain: "pre" } }));
  const rawRules: NfRuleSpec[] = [
    { target: { kind: "MARK", value: 0, mask: 0xf0000 }, comment: "clear" },
    { inIface: "cali+", target: { kind: "MARK", value: MARK_SCRATCH, mask: MARK_SCRATCH } },
    { mark: { value: MARK_SCRATCH, mask: MARK_SCRATCH }, target: { kind: "JUMP", chain: "skip" } },
    {
      mark: { value: MARK_SCRATCH, mask: MARK_SCRATCH },
      target: {
        kind: "PROGRAM",
        name: "rpf",
        run: () => {
          bench.programRuns++;
          return ProgramVerdict.CONTINUE;
        },
        version: () => bench.stamp,
      },
    },
    { mark: { value: MARK_ACCEPT, mask: MARK_ACCEPT }, target: { kind: "ACCEPT" } },
  ];
  for (const r of rawRules) ok(raw.append("pre", r));
  const mangle = nf.table("mangle");
  ok(mangle.append("PREROUTING", { ctstate: { states: ["RELATED", "ESTABLISHED"] }, target: { kind: "ACCEPT" } }));
  ok(mangle.append("PREROUTING", { proto: "tcp", dport: 80, target: { kind: "NONE" } }));
  const filter = nf.table("filter");
  ok(filter.newChain("fw"));
  ok(filter.append("FORWARD", { target: { kind: "MARK", value: 0, mask: 0xe0000 } }));
  ok(filter.append("FORWARD", { inIface: "cali+", target: { kind: "JUMP", chain: "fw" } }));
  ok(filter.append("FORWARD", { mark: { value: MARK_ACCEPT, mask: MARK_ACCEPT }, target: { kind: "ACCEPT" } }));
  ok(filter.append("fw", { ctstate: { states: ["RELATED", "ESTABLISHED"] }, target: { kind: "ACCEPT" } }));
  ok(filter.append("fw", { ctstate: { states: ["NEW"] }, target: { kind: "MARK", value: MARK_ACCEPT, mask: MARK_ACCEPT } }));
  ok(filter.append("fw", { proto: "tcp", sport: "1000:2000", target: { kind: "LOG" } }));
  ok(filter.append("fw", { mark: { value: MARK_ACCEPT, mask: MARK_ACCEPT }, target: { kind: "RETURN" } }));
  ok(filter.setPolicy("FORWARD", "DROP"));
  return bench;
}

/** What the tables hold after the traffic: rules and counters, and the evaluation tallies. */
function observable(nf: Netfilter): unknown {
  const tallies = (["raw", "mangle", "nat", "filter"] as const).map((n) => {
    const t = nf.table(n);
    return [n, t.traversals, t.rulesEvaluated, t.matchesEvaluated];
  });
  return { save: nf.save(true), tallies };
}

/** Packets of two flows (each way) from the workload side; returns verdicts and marks per packet. */
function traffic(b: Bench, rounds: number): string[] {
  const out: string[] = [];
  const nf = b.host.netfilter;
  for (let k = 0; k < rounds; k++) {
    for (const sport of [1500, 3000]) {
      const there = b.host.packet(tcpSeg("10.0.2.2", sport, "10.0.1.2", 80, k === 0 ? TCP.SYN : TCP.ACK, { seq: k === 0 ? 1000 : 1001, ack: k === 0 ? 0 : 5001 }));
      out.push(`${forward(nf, there, b.cali, b.eth0)}/${there.mark}`);
      const back = b.host.packet(tcpSeg("10.0.1.2", 80, "10.0.2.2", sport, k === 0 ? TCP.SYN | TCP.ACK : TCP.ACK, { seq: k === 0 ? 5000 : 5001, ack: 1001 }));
      out.push(`${forward(nf, back, b.eth0, b.cali)}/${back.mark}`);
    }
    const udp = b.host.packet(udpDgram("10.0.2.2", 53, "10.0.1.2", 53, text("q")));
    out.push(`${forward(nf, udp, b.cali, b.eth0)}/${udp.mark}`);
  }
  return out;
}

test("replayed walks leave the counters, tallies, marks and verdicts full walks leave", () => {
  const replayed = felixLike(true);
  const full = felixLike(false);
  const a = traffic(replayed, 12);
  const b = traffic(full, 12);
  assert.deepEqual(a, b);
  assert.deepEqual(observable(replayed.host.netfilter), observable(full.host.netfilter));
  assert.ok(a.some((v) => v.startsWith(`${NfVerdict.ACCEPT}/`)));
  const hits = (["raw", "mangle", "filter"] as const).map((n) => replayed.host.netfilter.table(n).walkMemo.hits);
  assert.ok(hits.every((h) => h > 0), `every table replays walks (hits ${hits.join(", ")})`);
  assert.equal(full.host.netfilter.table("raw").walkMemo.hits, 0);
  assert.ok(replayed.programRuns < full.programRuns, "the versioned PROGRAM is not rerun while its stamp holds");
});

test("a rule edit makes the next packet walk the new rules", () => {
  const b = felixLike(true);
  traffic(b, 4);
  const filter = b.host.netfilter.table("filter");
  assert.ok(filter.insert("fw", { proto: "tcp", dport: 80, target: { kind: "DROP" } }, 1).ok);
  const pkt = b.host.packet(tcpSeg("10.0.2.2", 1500, "10.0.1.2", 80, TCP.ACK));
  assert.equal(forward(b.host.netfilter, pkt, b.cali, b.eth0), NfVerdict.DROP);
  assert.equal(filter.chain("fw")!.rules[0]!.packets, 1);
});

test("a changed PROGRAM stamp runs the program again; an unchanged one does not", () => {
  const b = felixLike(true);
  traffic(b, 3);
  const send = (): number => forward(b.host.netfilter, b.host.packet(tcpSeg("10.0.2.2", 1500, "10.0.1.2", 80, TCP.ACK, { seq: 1001, ack: 5001 })), b.cali, b.eth0);
  const before = b.programRuns;
  assert.equal(send(), NfVerdict.ACCEPT);
  assert.equal(b.programRuns, before, "replayed: the program did not run");
  b.stamp++;
  assert.equal(send(), NfVerdict.ACCEPT);
  assert.equal(b.programRuns, before + 1, "stamp changed: the walk ran the program");
  assert.equal(send(), NfVerdict.ACCEPT);
  assert.equal(b.programRuns, before + 1, "the new walk is remembered under the new stamp");
});

test("the mark on entry is part of the key", () => {
  const b = felixLike(true);
  const nf = b.host.netfilter;
  traffic(b, 3);
  const filter = nf.table("filter");
  const accept = filter.chain("FORWARD")!.rules[2]!;
  const run = (mark: number): number => {
    const skb = b.host.packet(tcpSeg("10.0.1.2", 80, "10.0.2.2", 1500, TCP.ACK, { seq: 5001, ack: 1001 }));
    skb.ctState = 0;
    // FORWARD alone (the raw table would clear the mark): eth0 -> cali, no jump to fw.
    nf.run(NfHook.PREROUTING, skb, b.eth0, null);
    skb.mark = mark;
    return nf.run(NfHook.FORWARD, skb, b.eth0, b.cali);
  };
  assert.equal(run(0), NfVerdict.DROP, "no accept mark: FORWARD's policy drops");
  const before = accept.packets;
  assert.equal(run(MARK_ACCEPT), NfVerdict.ACCEPT, "accept mark kept by the MARK rule's mask: accepted");
  assert.equal(run(MARK_ACCEPT), NfVerdict.ACCEPT);
  assert.equal(accept.packets, before + 2);
  assert.equal(run(0), NfVerdict.DROP, "the remembered accepting walk is not replayed for another mark");
});

test("walks through a statistic match are never replayed", () => {
  const host = new TestHost({ conntrackMode: "on" });
  const eth0 = host.addDevice("eth0", "10.0.1.1/24");
  const cali = host.addDevice("cali1234", "10.0.2.1/24");
  const filter = host.netfilter.table("filter");
  assert.ok(filter.append("FORWARD", { statistic: { mode: "nth", every: 3, packet: 0 }, target: { kind: "DROP" } }).ok);
  const verdicts: number[] = [];
  for (let k = 0; k < 6; k++) verdicts.push(forward(host.netfilter, host.packet(udpDgram("10.0.2.2", 53, "10.0.1.2", 53, text("q"))), cali, eth0));
  assert.deepEqual(verdicts, [NfVerdict.ACCEPT, NfVerdict.ACCEPT, NfVerdict.DROP, NfVerdict.ACCEPT, NfVerdict.ACCEPT, NfVerdict.DROP]);
  assert.equal(filter.walkMemo.hits, 0);
});

test("more flows than the memo holds, interleaved: linked and evicted records replay exactly what full walks do", () => {
  const replayed = felixLike(true);
  const full = felixLike(false);
  const run = (b: Bench): string[] => {
    const out: string[] = [];
    const nf = b.host.netfilter;
    for (let round = 0; round < 3; round++) {
      for (let flow = 0; flow < 2600; flow++) {
        const there = b.host.packet(udpDgram("10.0.2.2", 1000 + flow, "10.0.1.2", 53, text("q")));
        out.push(`${forward(nf, there, b.cali, b.eth0)}/${there.mark}`);
        if (flow % 500 === 250 && round === 1) b.stamp++;
        if (flow === 1300 && round === 1) assert.ok(nf.table("filter").insert("fw", { proto: "udp", target: { kind: "LOG" } }, 1).ok);
      }
    }
    return out;
  };
  assert.deepEqual(run(replayed), run(full));
  assert.deepEqual(observable(replayed.host.netfilter), observable(full.host.netfilter));
  assert.ok(replayed.host.netfilter.table("filter").walkMemo.hits > 0);
});

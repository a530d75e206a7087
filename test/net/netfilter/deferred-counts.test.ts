// Deferred counter updates (table/deferred-counts.ts): replays and empty built-in chains leave their
// counts pending, and every counter read, -Z, rule deletion and table edit must still see exactly
// what eager counting (replay off) leaves; a record's pending bytes never grow past 2^31. Counters are read at every step, so a missed flush or a
// double count shows up at the packet it happens.

import { test } from "node:test";
import assert from "node:assert/strict";
import type { Netfilter } from "../../../src/net/netfilter/netfilter.js";
import { DeferredCounts } from "../../../src/net/netfilter/table/deferred-counts.js";
import { NfRule } from "../../../src/net/netfilter/table/rule.js";
import { WalkKey, WalkRecord, WalkRecorder } from "../../../src/net/netfilter/table/walk-memo.js";
import { TCP, TestHost, forward, tcpSeg } from "./helpers.js";

interface Side {
  readonly host: TestHost;
  readonly send: (sport: number) => number;
}

function side(replayWalks: boolean): Side {
  const host = new TestHost({ conntrackMode: "on", replayWalks });
  const eth0 = host.addDevice("eth0", "10.0.1.1/24");
  const cali = host.addDevice("cali1234", "10.0.2.1/24");
  const nf = host.netfilter;
  const ok = (r: { ok: boolean }): void => assert.ok(r.ok);
  // mangle is edited (instantiated) but its FORWARD chain stays empty: the deferred empty-chain path.
  ok(nf.table("mangle").append("PREROUTING", { proto: "udp", target: { kind: "NONE" } }));
  const filter = nf.table("filter");
  ok(filter.newChain("fw"));
  ok(filter.append("FORWARD", { proto: "tcp", target: { kind: "JUMP", chain: "fw" } }));
  ok(filter.append("fw", { proto: "tcp", dport: 80, target: { kind: "NONE" } }));
  ok(filter.append("fw", { proto: "tcp", sport: "1000:2000", target: { kind: "ACCEPT" } }));
  const send = (sport: number): number => forward(nf, host.packet(tcpSeg("10.0.2.2", sport, "10.0.1.2", 80, TCP.ACK, { seq: 1001, ack: 5001 })), cali, eth0);
  return { host, send };
}

/** Every counter a reader can see: each rule's, each built-in chain's policy's, and iptables-save's. */
function counters(nf: Netfilter, rules: readonly NfRule[]): unknown {
  // Rules first: each kind of reader must flush by itself.
  const ruleCounts = rules.map((r) => [r.packets, r.bytes]);
  const policies = (["mangle", "filter"] as const).flatMap((t) => nf.table(t).chains().filter((c) => c.builtin).map((c) => [c.policyCounter.packets, c.policyCounter.bytes]));
  return { ruleCounts, policies, save: nf.save(true) };
}

const allRules = (nf: Netfilter): NfRule[] => (["mangle", "filter"] as const).flatMap((t) => nf.table(t).chains().flatMap((c) => c.rules));

test("deferred counts read exactly as eager ones after every packet, -Z, a deletion and an edit", () => {
  const deferred = side(true);
  const eager = side(false);
  const both = (act: (s: Side) => void): void => {
    act(deferred);
    act(eager);
  };
  const same = (what: string, rules: [NfRule[], NfRule[]] = [allRules(deferred.host.netfilter), allRules(eager.host.netfilter)]): void => {
    assert.deepEqual(counters(deferred.host.netfilter, rules[0]), counters(eager.host.netfilter, rules[1]), what);
  };
  for (let k = 0; k < 6; k++) {
    both((s) => assert.equal(s.send(k % 2 === 0 ? 1500 : 3000), 1));
    same(`after packet ${k}`);
  }
  assert.ok(deferred.host.netfilter.table("filter").walkMemo.hits > 0, "the deferred side replayed");

  both((s) => s.send(1500));
  both((s) => s.host.netfilter.table("filter").zero());
  same("after -Z");

  both((s) => s.send(1500));
  const removed = [allRules(deferred.host.netfilter), allRules(eager.host.netfilter)] as [NfRule[], NfRule[]];
  both((s) => assert.ok(s.host.netfilter.table("filter").delete("fw", 2).ok));
  same("a deleted rule keeps the packets replays counted for it", removed);

  both((s) => s.send(1500));
  both((s) => assert.ok(s.host.netfilter.table("filter").insert("fw", { proto: "tcp", target: { kind: "ACCEPT" } }, 1).ok));
  for (let k = 0; k < 3; k++) both((s) => s.send(1500));
  same("after an edit and the new walks' replays");
});

test("a record's pending bytes are flushed before they leave the small-integer range, and still add up exactly", () => {
  const rule = new NfRule({ target: { kind: "ACCEPT" } });
  const rec = new WalkRecorder();
  rec.matched(rule);
  const record = new WalkRecord(new WalkKey(), 1, true, rec, 1, 1, 0);
  const counts = new DeferredCounts([null, null, null, null, null]);
  const packets = 20000;
  for (let k = 0; k < packets; k++) {
    counts.replayed(record, 65535);
    assert.ok(record.pendingBytes < 2 ** 31, `pending bytes stay below 2^31 (packet ${k})`);
  }
  counts.flush();
  assert.deepEqual([rule.packets, rule.bytes], [packets, packets * 65535]);
});

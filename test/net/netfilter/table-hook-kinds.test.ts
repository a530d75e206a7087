// NfTable.walkHooks/emptyHooks (read per packet instead of each chain's rules and policy) follow
// every kind of edit, and a hook run that finds an empty chain still counts its traversal and policy.

import { test } from "node:test";
import assert from "node:assert/strict";
import { NfHook, NfVerdict } from "../../../src/net/netfilter/hooks.js";
import { NfTable } from "../../../src/net/netfilter/table/table.js";
import { TCP, TestHost, forward, tcpSeg } from "./helpers.js";

const bit = (hook: number): number => 1 << hook;

/** What the chains say, computed directly (the slow path the masks stand for). */
function direct(t: NfTable): { walk: number; empty: number } {
  let walk = 0;
  let empty = 0;
  t.hooks.forEach((chain, hook) => {
    if (chain === null) return;
    if (chain.rules.length === 0 && chain.policy === "ACCEPT") empty |= bit(hook);
    else walk |= bit(hook);
  });
  return { walk, empty };
}

function check(t: NfTable, what: string): void {
  t.knowHooks();
  assert.deepEqual({ walk: t.walkHooks, empty: t.emptyHooks }, direct(t), what);
}

test("the hook masks follow appends, policies, deletes, flushes, transactions and rollbacks", () => {
  const t = new NfTable("filter");
  check(t, "fresh");
  assert.equal(t.emptyHooks, bit(NfHook.INPUT) | bit(NfHook.FORWARD) | bit(NfHook.OUTPUT));
  assert.ok(t.append("FORWARD", { target: { kind: "ACCEPT" } }).ok);
  check(t, "after -A FORWARD");
  assert.ok(t.setPolicy("INPUT", "DROP").ok);
  check(t, "after -P INPUT DROP");
  assert.ok(t.delete("FORWARD", 1).ok);
  check(t, "after -D FORWARD 1");
  assert.ok(t.setPolicy("INPUT", "ACCEPT").ok);
  assert.ok(t.append("OUTPUT", { target: { kind: "ACCEPT" } }).ok);
  check(t, "after -P INPUT ACCEPT, -A OUTPUT");
  assert.ok(t.flush().ok);
  check(t, "after -F");
  assert.ok(t.begin().ok);
  assert.ok(t.append("INPUT", { target: { kind: "ACCEPT" } }).ok);
  check(t, "inside a transaction");
  t.rollback();
  check(t, "after the rollback");
});

test("a chain that gets its first rule is walked by the next packet; one that loses it counts the policy again", () => {
  const host = new TestHost({ conntrackMode: "on" });
  const lan = host.addDevice("lan0", "10.0.1.1/24");
  const wan = host.addDevice("wan0", "10.0.2.1/24");
  const nf = host.netfilter;
  const send = (): number => forward(nf, host.packet(tcpSeg("10.0.1.2", 1500, "10.0.2.2", 80, TCP.SYN)), lan, wan);
  const mangle = nf.table("mangle");
  assert.ok(nf.table("filter").append("FORWARD", { target: { kind: "ACCEPT" } }).ok);
  assert.equal(send(), NfVerdict.ACCEPT);
  const counted = mangle.chain("FORWARD")!.policyCounter.packets;
  assert.equal(counted, 1, "empty mangle FORWARD counted its policy");
  assert.ok(mangle.append("FORWARD", { proto: "tcp", target: { kind: "DROP" } }).ok);
  assert.equal(send(), NfVerdict.DROP, "the new rule was walked");
  assert.equal(mangle.chain("FORWARD")!.rules[0]!.packets, 1);
  assert.ok(mangle.delete("FORWARD", 1).ok);
  assert.equal(send(), NfVerdict.ACCEPT);
  assert.equal(mangle.chain("FORWARD")!.policyCounter.packets, 2);
});

// A namespace with nothing to do at its hooks (no conntrack, no rule, no DROP policy) is answered at
// once by Netfilter.run; the first edit or conntrack mode change after that makes the hooks work again.

import { test } from "node:test";
import assert from "node:assert/strict";
import { NfHook, NfVerdict } from "../../../src/net/netfilter/hooks.js";
import { TCP, TestHost, tcpSeg } from "./helpers.js";

function syn(host: TestHost, sport: number) {
  return host.packet(tcpSeg("10.0.1.2", sport, "10.0.2.2", 80, TCP.SYN));
}

test("a quiet namespace accepts untouched, and a rule added later is applied at the next packet", () => {
  const host = new TestHost();
  const lan = host.addDevice("lan0", "10.0.1.1/24");
  const nf = host.netfilter;
  for (let k = 0; k < 3; k++) {
    const skb = syn(host, 1000 + k);
    assert.equal(nf.run(NfHook.PREROUTING, skb, lan, null), NfVerdict.ACCEPT);
    assert.equal(skb.ctEntry, -1, "no conntrack in a quiet namespace");
  }
  assert.ok(nf.table("filter").append("INPUT", { proto: "tcp", dport: 80, target: { kind: "DROP" } }).ok);
  assert.equal(nf.run(NfHook.INPUT, syn(host, 2000), lan, null), NfVerdict.DROP);
  assert.ok(nf.table("filter").delete("INPUT", 1).ok);
  assert.equal(nf.run(NfHook.INPUT, syn(host, 2001), lan, null), NfVerdict.ACCEPT);
  assert.ok(nf.table("filter").setPolicy("INPUT", "DROP").ok);
  assert.equal(nf.run(NfHook.INPUT, syn(host, 2002), lan, null), NfVerdict.DROP, "a DROP policy alone is work");
});

test("a ctstate rule (auto mode) or conntrack mode on starts tracking in a namespace that was quiet", () => {
  for (const how of ["rule", "mode"] as const) {
    const host = new TestHost();
    const lan = host.addDevice("lan0", "10.0.1.1/24");
    const nf = host.netfilter;
    assert.equal(nf.run(NfHook.PREROUTING, syn(host, 1000), lan, null), NfVerdict.ACCEPT);
    assert.equal(nf.tracking, false);
    if (how === "rule") assert.ok(nf.table("filter").append("INPUT", { ctstate: { states: ["INVALID"] }, target: { kind: "DROP" } }).ok);
    else nf.conntrackMode = "on";
    const skb = syn(host, 1001);
    assert.equal(nf.run(NfHook.PREROUTING, skb, lan, null), NfVerdict.ACCEPT);
    assert.ok(nf.entryOf(skb) >= 0, `${how}: the packet was tracked`);
    nf.conntrackMode = "off";
    if (how === "mode") {
      const later = syn(host, 1002);
      assert.equal(nf.run(NfHook.PREROUTING, later, lan, null), NfVerdict.ACCEPT);
      assert.equal(later.ctEntry, -1, "mode off: quiet again");
    }
  }
});

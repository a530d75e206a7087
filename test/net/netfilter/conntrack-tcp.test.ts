// The TCP tracker against the kernel (kernel-fixtures.ts TCP_SCENARIOS): for hand-made segments
// through a router, the packet state (NEW / ESTABLISHED / reply / INVALID) and the resulting entry
// (state, timeout, [UNREPLIED], [ASSURED], or no entry) after every segment. Then timer behaviour on
// simulated time, which the recording cannot show.

import { test } from "node:test";
import assert from "node:assert/strict";
import { CtState } from "../../../src/net/netfilter/ct-state.js";
import type { SkBuff } from "../../../src/skb/skbuff.js";
import { TCP_SCENARIOS } from "./kernel-fixtures.js";
import { TCP, TestHost, forward, tcpSeg } from "./helpers.js";

const MSS = new Uint8Array([2, 4, 0x05, 0xb4]);

function trackingRouter(): { host: TestHost; r0: ReturnType<TestHost["addDevice"]>; r1: ReturnType<TestHost["addDevice"]> } {
  const host = new TestHost();
  const r0 = host.addDevice("nfh-r0", "10.99.1.1/24");
  const r1 = host.addDevice("nfh-r1", "10.99.2.1/24");
  const filter = host.netfilter.table("filter");
  for (const s of ["INVALID", "NEW", "RELATED", "UNTRACKED", "ESTABLISHED"] as const) {
    assert.ok(filter.append("FORWARD", { ctstate: { states: [s] }, target: { kind: "ACCEPT" } }).ok);
  }
  return { host, r0, r1 };
}

function stateText(skb: SkBuff): string {
  const s = skb.ctState;
  if (s & CtState.INVALID) return "INVALID";
  if (s & CtState.NEW) return "NEW";
  if (s & CtState.ESTABLISHED) return s & CtState.REPLY ? "ESTABLISHED/REPLY" : "ESTABLISHED";
  return `other(${s})`;
}

for (const [name, scenario] of Object.entries(TCP_SCENARIOS)) {
  test(`TCP scenario "${name}" follows the kernel segment by segment`, () => {
    const { host, r0, r1 } = trackingRouter();
    scenario.steps.forEach((step, n) => {
      const syn = (step.flags & TCP.SYN) !== 0;
      const opts = { seq: step.seq, ack: step.ack, payload: new Uint8Array(step.payload).fill(0x61), ...(syn ? { options: MSS } : {}) };
      const bytes =
        step.from === "client"
          ? tcpSeg("10.99.1.2", scenario.sport, "10.99.2.2", 80, step.flags, opts)
          : tcpSeg("10.99.2.2", 80, "10.99.1.2", scenario.sport, step.flags, opts);
      const skb = host.packet(bytes);
      if (step.from === "client") forward(host.netfilter, skb, r0, r1);
      else forward(host.netfilter, skb, r1, r0);
      const where = `step ${n} (${step.from} flags 0x${step.flags.toString(16)})`;
      assert.equal(stateText(skb), step.ctstate, `${where} ctstate`);
      const entry = host.netfilter.conntrack.entries().find((e) => e.original.sport === scenario.sport) ?? null;
      if (step.entry === null) {
        assert.equal(entry, null, `${where}: no entry`);
        return;
      }
      assert.ok(entry !== null, `${where}: entry exists`);
      assert.equal(entry.state, step.entry.state, `${where} state`);
      assert.equal(entry.unreplied, step.entry.unreplied, `${where} unreplied`);
      assert.equal(entry.assured, step.entry.assured, `${where} assured`);
      const lag = entry.timeout - step.entry.timeout;
      assert.ok(lag === 0 || lag === 1, `${where} timeout ${entry.timeout} vs kernel's listed ${step.entry.timeout}`);
    });
  });
}

test("entries expire on simulated time: SYN_SENT after 120 s, ESTABLISHED refreshed by traffic, TIME_WAIT after 120 s", () => {
  const { host, r0, r1 } = trackingRouter();
  const ct = host.netfilter.conntrack;
  const sim = host.sim;
  forward(host.netfilter, host.packet(tcpSeg("10.99.1.2", 5000, "10.99.2.2", 80, TCP.SYN, { seq: 1 })), r0, r1);
  sim.runUntil(119_999_999_999);
  assert.equal(ct.entries().length, 1);
  sim.runUntil(120_000_000_000);
  assert.equal(ct.entries().length, 0, "expired exactly at its timeout");
  // The next SYN on the same tuple finds the dead entry gone and starts over.
  const syn = host.packet(tcpSeg("10.99.1.2", 5000, "10.99.2.2", 80, TCP.SYN, { seq: 1 }));
  forward(host.netfilter, syn, r0, r1);
  assert.equal(stateText(syn), "NEW");
  assert.equal(ct.stats.expired, 1);
  // Establish it; traffic refreshes the 5-day timer, so 4 + 4 days later it still lives.
  forward(host.netfilter, host.packet(tcpSeg("10.99.2.2", 80, "10.99.1.2", 5000, TCP.SYN | TCP.ACK, { seq: 500, ack: 2 })), r1, r0);
  forward(host.netfilter, host.packet(tcpSeg("10.99.1.2", 5000, "10.99.2.2", 80, TCP.ACK, { seq: 2, ack: 501 })), r0, r1);
  const day = 86_400_000_000_000;
  sim.runUntil(sim.now + 4 * day);
  forward(host.netfilter, host.packet(tcpSeg("10.99.1.2", 5000, "10.99.2.2", 80, TCP.ACK, { seq: 2, ack: 501 })), r0, r1);
  sim.runUntil(sim.now + 4 * day);
  assert.equal(ct.entries()[0]?.state, "ESTABLISHED");
  // Close it: FIN, ACK, FIN, ACK -> TIME_WAIT, gone 120 s later.
  forward(host.netfilter, host.packet(tcpSeg("10.99.1.2", 5000, "10.99.2.2", 80, TCP.FIN | TCP.ACK, { seq: 2, ack: 501 })), r0, r1);
  forward(host.netfilter, host.packet(tcpSeg("10.99.2.2", 80, "10.99.1.2", 5000, TCP.FIN | TCP.ACK, { seq: 501, ack: 3 })), r1, r0);
  forward(host.netfilter, host.packet(tcpSeg("10.99.1.2", 5000, "10.99.2.2", 80, TCP.ACK, { seq: 3, ack: 502 })), r0, r1);
  assert.deepEqual([ct.entries()[0]?.state, ct.entries()[0]?.timeout], ["TIME_WAIT", 120]);
  const closedAt = sim.now;
  sim.runUntil(closedAt + 120 * 1_000_000_000 - 1);
  assert.equal(ct.entries().length, 1);
  sim.runUntil(closedAt + 120 * 1_000_000_000);
  assert.equal(ct.entries().length, 0);
});

test("a RST from the server answering a SYN destroys the entry at once (connection refused)", () => {
  const { host, r0, r1 } = trackingRouter();
  forward(host.netfilter, host.packet(tcpSeg("10.99.1.2", 5001, "10.99.2.2", 9, TCP.SYN, { seq: 77 })), r0, r1);
  const rst = host.packet(tcpSeg("10.99.2.2", 9, "10.99.1.2", 5001, TCP.RST | TCP.ACK, { seq: 0, ack: 78 }));
  forward(host.netfilter, rst, r1, r0);
  assert.equal(stateText(rst), "ESTABLISHED/REPLY", "the RST itself still belongs to the connection");
  assert.equal(host.netfilter.conntrack.entries().length, 0);
});

test("a RST whose sequence number is not in the window is INVALID and leaves the entry alone", () => {
  const { host, r0, r1 } = trackingRouter();
  const nf = host.netfilter;
  forward(nf, host.packet(tcpSeg("10.99.1.2", 5002, "10.99.2.2", 80, TCP.SYN, { seq: 100 })), r0, r1);
  forward(nf, host.packet(tcpSeg("10.99.2.2", 80, "10.99.1.2", 5002, TCP.SYN | TCP.ACK, { seq: 5000, ack: 101 })), r1, r0);
  forward(nf, host.packet(tcpSeg("10.99.1.2", 5002, "10.99.2.2", 80, TCP.ACK, { seq: 101, ack: 5001 })), r0, r1);
  const bad = host.packet(tcpSeg("10.99.2.2", 80, "10.99.1.2", 5002, TCP.RST, { seq: 9_000_000 }));
  forward(nf, bad, r1, r0);
  assert.equal(stateText(bad), "INVALID");
  assert.equal(nf.conntrack.entries()[0]!.state, "ESTABLISHED");
});

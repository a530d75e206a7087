// UDP, ICMP and generic tracking: UDP's unreplied 30 s, replied-but-young 30 s, stream 120 s +
// ASSURED once still active 2 s after the first packet; ICMP echo pairs; ICMP errors RELATED to the
// flow they quote (in either direction) and INVALID otherwise; what conntrack refuses as INVALID;
// the table-full drop.

import { test } from "node:test";
import assert from "node:assert/strict";
import { DropReason } from "../../../datapath/reasons.js";
import { CtState } from "../../../src/net/netfilter/ct-state.js";
import { NfVerdict } from "../../../src/net/netfilter/hooks.js";
import { TestHost, echo, forward, icmpMsg, ipv4, text, udpDgram } from "./helpers.js";

const SECOND = 1_000_000_000;

function router(options: ConstructorParameters<typeof TestHost>[0] = {}) {
  const host = new TestHost({ conntrackMode: "on", ...options });
  const a = host.addDevice("a", "10.0.1.1/24");
  const b = host.addDevice("b", "10.0.2.1/24");
  return { host, a, b, ct: host.netfilter.conntrack };
}

test("UDP: unreplied 30 s, a reply keeps 30 s, traffic after 2 s makes it a 120 s ASSURED stream", () => {
  const { host, a, b, ct } = router();
  const q = host.packet(udpDgram("10.0.1.2", 4000, "10.0.2.2", 53, text("q")));
  forward(host.netfilter, q, a, b);
  assert.equal(q.ctState, CtState.NEW);
  let e = ct.entries()[0]!;
  assert.deepEqual([e.timeout, e.unreplied, e.assured], [30, true, false]);
  host.sim.runUntil(SECOND);
  const r = host.packet(udpDgram("10.0.2.2", 53, "10.0.1.2", 4000, text("r")));
  forward(host.netfilter, r, b, a);
  assert.equal(r.ctState, CtState.ESTABLISHED | CtState.REPLY);
  e = ct.entries()[0]!;
  assert.deepEqual([e.timeout, e.unreplied, e.assured], [30, false, false]);
  // Within 2 s of the first packet: still the short timeout.
  host.sim.runUntil(2 * SECOND);
  forward(host.netfilter, host.packet(udpDgram("10.0.1.2", 4000, "10.0.2.2", 53, text("q2"))), a, b);
  e = ct.entries()[0]!;
  assert.deepEqual([e.timeout, e.assured], [30, false]);
  host.sim.runUntil(2 * SECOND + 1);
  const q3 = host.packet(udpDgram("10.0.1.2", 4000, "10.0.2.2", 53, text("q3")));
  forward(host.netfilter, q3, a, b);
  assert.equal(q3.ctState, CtState.ESTABLISHED);
  e = ct.entries()[0]!;
  assert.deepEqual([e.timeout, e.assured], [120, true]);
  host.sim.runUntil(2 * SECOND + 1 + 120 * SECOND);
  assert.equal(ct.entries().length, 0);
});

test("ICMP echo: request NEW, reply ESTABLISHED in the reply direction, 30 s; an unanswered echo reply is INVALID", () => {
  const { host, a, b, ct } = router();
  const req = host.packet(echo("10.0.1.2", "10.0.2.2", 8, 0x1234, 1));
  forward(host.netfilter, req, a, b);
  assert.equal(req.ctState, CtState.NEW);
  const rep = host.packet(echo("10.0.2.2", "10.0.1.2", 0, 0x1234, 1));
  forward(host.netfilter, rep, b, a);
  assert.equal(rep.ctState, CtState.ESTABLISHED | CtState.REPLY);
  const e = ct.entries()[0]!;
  assert.equal(e.timeout, 30);
  assert.deepEqual([e.original.type, e.original.id, e.reply.type, e.reply.id], [8, 0x1234, 0, 0x1234]);
  const stray = host.packet(echo("10.0.2.2", "10.0.1.2", 0, 0x9999, 1));
  forward(host.netfilter, stray, b, a);
  assert.equal(stray.ctState, CtState.INVALID);
  assert.equal(ct.entries().length, 1, "no entry for the stray reply");
});

test("ICMP errors quoting a tracked flow are RELATED (reply or original direction); others are INVALID", () => {
  const { host, a, b } = router();
  const dgram = udpDgram("10.0.1.2", 4000, "10.0.2.2", 9999, text("x"));
  forward(host.netfilter, host.packet(dgram), a, b);
  // The server's port unreachable about the datagram (quoting it) travels back to the client.
  const err = host.packet(icmpMsg("10.0.2.2", "10.0.1.2", 3, 3, 0, dgram));
  forward(host.netfilter, err, b, a);
  assert.equal(err.ctState, CtState.RELATED | CtState.REPLY);
  // A router on the way back could report about a reply packet towards the client: original direction.
  const reply = udpDgram("10.0.2.2", 9999, "10.0.1.2", 4000, text("y"));
  const err2 = host.packet(icmpMsg("10.0.1.9", "10.0.2.2", 11, 0, 0, reply));
  forward(host.netfilter, err2, a, b);
  assert.equal(err2.ctState, CtState.RELATED);
  // Quoting nothing we know, or addressed to someone else than the quoted sender: INVALID.
  const unknown = host.packet(icmpMsg("10.0.2.2", "10.0.1.2", 3, 3, 0, udpDgram("10.0.1.2", 4001, "10.0.2.2", 9999, text("x"))));
  forward(host.netfilter, unknown, b, a);
  assert.equal(unknown.ctState, CtState.INVALID);
  const misdirected = host.packet(icmpMsg("10.0.2.2", "10.0.1.77", 3, 3, 0, dgram));
  forward(host.netfilter, misdirected, b, a);
  assert.equal(misdirected.ctState, CtState.INVALID);
});

test("INVALID: bad L4 checksum at PREROUTING, unknown ICMP type, TCP FIN without a connection; untracked by NOTRACK", () => {
  const { host, a, b, ct } = router();
  const bad = udpDgram("10.0.1.2", 4000, "10.0.2.2", 53, text("q"));
  bad[27] = bad[27]! ^ 1;
  const p1 = host.packet(bad);
  forward(host.netfilter, p1, a, b);
  assert.equal(p1.ctState, CtState.INVALID);
  const p2 = host.packet(icmpMsg("10.0.1.2", "10.0.2.2", 42, 0, 0, text("??")));
  forward(host.netfilter, p2, a, b);
  assert.equal(p2.ctState, CtState.INVALID);
  assert.equal(ct.entries().length, 0);
  assert.ok(ct.stats.invalid >= 2);
  assert.ok(host.netfilter.table("raw").append("PREROUTING", { proto: "udp", dport: 123, target: { kind: "NOTRACK" } }).ok);
  const p3 = host.packet(udpDgram("10.0.1.2", 4000, "10.0.2.2", 123, text("ntp")));
  forward(host.netfilter, p3, a, b);
  assert.equal(p3.ctState, CtState.UNTRACKED);
  assert.equal(ct.entries().length, 0);
});

test("GRE and protocols without a tracker are listed as the kernel lists them", () => {
  const { host, a, b, ct } = router();
  forward(host.netfilter, host.packet(ipv4("10.0.1.2", "10.0.2.2", 4, new Uint8Array(20))), a, b);
  forward(host.netfilter, host.packet(ipv4("10.0.1.2", "10.0.2.2", 47, new Uint8Array(8))), a, b);
  // Kernel 6.18 `conntrack -L` after one IPIP and one GRE packet (listed a moment later: 599 / 29).
  assert.deepEqual(ct.list().split("\n"), [
    "unknown  4 600 src=10.0.1.2 dst=10.0.2.2 [UNREPLIED] src=10.0.2.2 dst=10.0.1.2 mark=0 use=1",
    "gre      47 30 src=10.0.1.2 dst=10.0.2.2 srckey=0x0 dstkey=0x0 [UNREPLIED] src=10.0.2.2 dst=10.0.1.2 srckey=0x0 dstkey=0x0 mark=0 use=1",
  ]);
});

test("a full table refuses new connections with a counted drop, keeps serving existing ones, and reaps expired entries first", () => {
  const { host, a, b, ct } = router({ conntrack: { maxEntries: 2 } });
  for (const port of [1, 2]) forward(host.netfilter, host.packet(udpDgram("10.0.1.2", port, "10.0.2.2", 53, text("q"))), a, b);
  assert.equal(ct.count, 2);
  const third = host.packet(udpDgram("10.0.1.2", 3, "10.0.2.2", 53, text("q")));
  assert.equal(forward(host.netfilter, third, a, b), NfVerdict.DROP);
  const drop = host.sink.dropRecords.at(-1)!;
  assert.deepEqual([drop.reason, drop.site, drop.hook], [DropReason.CT_CREATE_FAILED, "netfilter/conntrack:table-full", "PREROUTING"]);
  assert.equal(ct.stats.tableFull, 1);
  // Existing flows still pass.
  assert.equal(forward(host.netfilter, host.packet(udpDgram("10.0.2.2", 53, "10.0.1.2", 1, text("r"))), b, a), NfVerdict.ACCEPT);
  host.sim.runUntil(31 * SECOND);
  assert.equal(forward(host.netfilter, host.packet(udpDgram("10.0.1.2", 3, "10.0.2.2", 53, text("q"))), a, b), NfVerdict.ACCEPT);
  assert.equal(ct.count, 1);
});

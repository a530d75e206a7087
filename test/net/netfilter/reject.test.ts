// REJECT against the kernel's own answers (kernel-fixtures.ts REJECT_TRACE): TCP resets (also for a
// DNATed connection, whose reset leaves with the service address), ICMP port-unreachable and
// host-prohibited from FORWARD and INPUT with the kernel's TOS/TTL/flags and quoted bytes, the ICMP
// error for a DNATed flow translated back. Plus what REJECT must not answer.

import { test } from "node:test";
import assert from "node:assert/strict";
import { NfVerdict } from "../../../src/net/netfilter/hooks.js";
import { DropReason } from "../../../datapath/reasons.js";
import { REJECT_TRACE } from "./kernel-fixtures.js";
import { TCP, TestHost, deliver, echo, forward, fromHex, hex, icmpMsg, tcpSeg, udpDgram, text } from "./helpers.js";

function rejectingRouter(): { host: TestHost; r0: ReturnType<TestHost["addDevice"]>; r1: ReturnType<TestHost["addDevice"]> } {
  const host = new TestHost();
  const r0 = host.addDevice("nfh-r0", "10.99.1.1/24");
  const r1 = host.addDevice("nfh-r1", "10.99.2.1/24");
  const nat = host.netfilter.table("nat");
  assert.ok(nat.append("PREROUTING", { dst: "10.99.3.3/32", proto: "tcp", dport: 81, target: { kind: "DNAT", to: "10.99.2.2:8181" } }).ok);
  assert.ok(nat.append("PREROUTING", { dst: "10.99.3.3/32", proto: "udp", dport: 55, target: { kind: "DNAT", to: "10.99.2.2:5555" } }).ok);
  const filter = host.netfilter.table("filter");
  const rules = [
    ["FORWARD", { proto: "tcp", dport: 81, target: { kind: "REJECT", with: "tcp-reset" } }],
    ["FORWARD", { proto: "tcp", dport: 8181, target: { kind: "REJECT", with: "tcp-reset" } }],
    ["FORWARD", { proto: "udp", dport: 54, target: { kind: "REJECT" } }],
    ["FORWARD", { proto: "udp", dport: 5555, target: { kind: "REJECT" } }],
    ["FORWARD", { proto: "tcp", dport: 82, target: { kind: "REJECT", with: "icmp-host-prohibited" } }],
    ["INPUT", { proto: "udp", dport: 55, target: { kind: "REJECT" } }],
  ] as const;
  for (const [chain, spec] of rules) assert.ok(filter.append(chain, spec).ok, `${chain} rule`);
  return { host, r0, r1 };
}

/** The kernel picks ICMP error IP ids itself; compare everything else (id and header checksum zeroed). */
function withoutIpId(h: string): string {
  const b = fromHex(h);
  if (b[9] === 1) {
    b[4] = b[5] = 0;
    b[10] = b[11] = 0;
  }
  return hex(b);
}

test("REJECT answers exactly as the kernel did (resets, ICMP errors, DNAT undone on the answer)", () => {
  const { host, r0, r1 } = rejectingRouter();
  REJECT_TRACE.forEach((entry, n) => {
    const skb = host.packet(fromHex(entry.input));
    const toRouter = skb.data[skb.head + 19] === 1 && skb.data[skb.head + 18] === 1;
    const v = toRouter ? deliver(host.netfilter, skb, r0) : forward(host.netfilter, skb, r0, r1);
    assert.equal(v, NfVerdict.STOLEN, `entry ${n}`);
    assert.equal(host.sent.length, n + 1, `entry ${n} sent one answer`);
    const reply = host.sent[n]!;
    assert.equal(reply.dev, r0);
    assert.equal(withoutIpId(hex(reply.skb.bytes())), withoutIpId(entry.reply), `entry ${n} answer bytes`);
  });
  // Each original was dropped once, as rejected, naming the rule.
  const drops = host.sink.dropRecords;
  assert.equal(drops.length, REJECT_TRACE.length);
  assert.ok(drops.every((d) => d.reason === DropReason.HOST_STACK_REJECT));
  assert.equal(drops[0]!.site, "netfilter/filter/FORWARD#1");
  assert.equal(drops[4]!.site, "netfilter/filter/INPUT#1");
  assert.equal(drops[4]!.hook, "INPUT");
  assert.equal(host.world.ledger.inFlight, REJECT_TRACE.length, "answers are in flight, originals dropped");
  // `iptables -L -v -x` on the kernel router after the same traffic: packets and bytes per rule.
  const counts = (chain: string) => host.netfilter.table("filter").chain(chain)!.rules.map((r) => [r.packets, r.bytes]);
  assert.deepEqual(counts("FORWARD"), [[1, 60], [1, 60], [1, 32], [1, 32], [1, 60]]);
  assert.deepEqual(counts("INPUT"), [[1, 32]]);
});

test("REJECT sends nothing for a RST, an ICMP error, a bad checksum or a later fragment, but still drops", () => {
  const host = new TestHost();
  const a = host.addDevice("a", "10.0.1.1/24");
  const b = host.addDevice("b", "10.0.2.1/24");
  const filter = host.netfilter.table("filter");
  assert.ok(filter.append("FORWARD", { proto: "tcp", target: { kind: "REJECT", with: "tcp-reset" } }).ok);
  assert.ok(filter.append("FORWARD", { target: { kind: "REJECT" } }).ok);
  const rst = tcpSeg("10.0.1.2", 1000, "10.0.2.2", 80, TCP.RST | TCP.ACK, { seq: 5, ack: 6 });
  const icmpErr = icmpMsg("10.0.1.2", "10.0.2.2", 3, 3, 0, udpDgram("10.0.2.2", 53, "10.0.1.2", 999, text("x")).subarray(0, 28));
  const badSum = udpDgram("10.0.1.2", 1000, "10.0.2.2", 53, text("hello"));
  badSum[27] = badSum[27]! ^ 0xff;
  const fragment = udpDgram("10.0.1.2", 1000, "10.0.2.2", 53, text("hello"));
  fragment[7] = 1; // fragment offset 8 bytes
  fragment[10] = fragment[11] = 0;
  for (const [name, pkt] of [["rst", rst], ["icmp error", icmpErr], ["bad checksum", badSum], ["fragment", fragment]] as const) {
    const v = forward(host.netfilter, host.packet(pkt), a, b);
    assert.equal(v, NfVerdict.STOLEN, name);
  }
  assert.equal(host.sent.length, 0);
  assert.equal(host.sink.dropRecords.length, 4);
  // A zero UDP checksum is "none", not bad: that one is answered.
  forward(host.netfilter, host.packet(udpDgram("10.0.1.2", 1000, "10.0.2.2", 53, text("hello"), { zeroChecksum: true })), a, b);
  assert.equal(host.sent.length, 1);
  const icmp = host.sent[0]!.skb.bytes();
  assert.equal(icmp[20], 3);
  assert.equal(icmp[21], 3);
});

test("REJECT of a locally generated packet: the answer goes back through OUTPUT as RELATED", () => {
  const host = new TestHost();
  host.addDevice("eth0", "10.0.0.1/24");
  const filter = host.netfilter.table("filter");
  assert.ok(filter.append("OUTPUT", { dst: "10.0.0.9", target: { kind: "REJECT" } }).ok);
  assert.ok(filter.append("OUTPUT", { ctstate: { states: ["RELATED"] }, target: { kind: "ACCEPT" } }).ok);
  host.outputIp(host.packet(echo("10.0.0.1", "10.0.0.9", 8, 7, 1)));
  assert.equal(filter.chain("OUTPUT")!.rules[0]!.packets, 1);
  assert.equal(filter.chain("OUTPUT")!.rules[1]!.packets, 1, "the ICMP error matched ctstate RELATED");
  assert.equal(host.sent.length, 1);
  const err = host.sent[0]!.skb.bytes();
  assert.deepEqual([...err.subarray(12, 20)], [10, 0, 0, 1, 10, 0, 0, 1], "from the route's source back to the sender");
  assert.deepEqual([err[20], err[21]], [3, 3]);
});

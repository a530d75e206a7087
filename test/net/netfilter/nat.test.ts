// NAT bindings: address choice from a range as the kernel hashes it (kernel-recorded choices), source
// port clash avoidance in the kernel's port classes, --random-fully, SNAT port ranges, ICMP id
// remapping, reverse translation of replies, MASQUERADE's source choice and its failure modes, DNAT
// in OUTPUT, the packet's record of its pre-NAT tuple and the trace note.

import { test } from "node:test";
import assert from "node:assert/strict";
import { DropReason } from "../../../datapath/reasons.js";
import { NfHook, NfVerdict } from "../../../src/net/netfilter/hooks.js";
import { NatApplied } from "../../../src/skb/skbuff.js";
import type { SkBuff } from "../../../src/skb/skbuff.js";
import { formatIPv4 } from "../../../src/util/ip.js";
import { verifyIpv4HeaderChecksum, verifyL4ChecksumV4 } from "../../../src/wire/checksum.js";
import { DNAT_RANGE_CHOICES } from "./kernel-fixtures.js";
import { TCP, TestHost, echo, forward, icmpMsg, ip, tcpSeg, udpDgram, text } from "./helpers.js";

const src = (s: SkBuff) => formatIPv4(((s.data[s.head + 12]! << 24) | (s.data[s.head + 13]! << 16) | (s.data[s.head + 14]! << 8) | s.data[s.head + 15]!) >>> 0);
const dst = (s: SkBuff) => formatIPv4(((s.data[s.head + 16]! << 24) | (s.data[s.head + 17]! << 16) | (s.data[s.head + 18]! << 8) | s.data[s.head + 19]!) >>> 0);
const sport = (s: SkBuff) => (s.data[s.head + 20]! << 8) | s.data[s.head + 21]!;
const dport = (s: SkBuff) => (s.data[s.head + 22]! << 8) | s.data[s.head + 23]!;

function checksumsValid(s: SkBuff): boolean {
  const b = s.data;
  const at = s.head;
  const len = ((b[at + 2]! << 8) | b[at + 3]!) - 20;
  const sa = ((b[at + 12]! << 24) | (b[at + 13]! << 16) | (b[at + 14]! << 8) | b[at + 15]!) >>> 0;
  const da = ((b[at + 16]! << 24) | (b[at + 17]! << 16) | (b[at + 18]! << 8) | b[at + 19]!) >>> 0;
  return verifyIpv4HeaderChecksum(b, at, 20) && verifyL4ChecksumV4(b, at + 20, len, b[at + 9]!, sa, da);
}

function natRouter(seed = 1) {
  const host = new TestHost({}, seed);
  const lan = host.addDevice("lan", "10.99.1.1/24");
  const wan = host.addDevice("wan", "10.99.2.1/24");
  return { host, lan, wan, nf: host.netfilter, nat: host.netfilter.table("nat") };
}

test("DNAT to an address range picks the backend the kernel picked (jhash of the addresses)", () => {
  const { host, lan, nat, nf } = natRouter();
  for (const c of DNAT_RANGE_CHOICES) assert.ok(nat.append("PREROUTING", { dst: c.vip, proto: "udp", target: { kind: "DNAT", to: "10.99.2.2-10.99.2.9" } }).ok);
  DNAT_RANGE_CHOICES.forEach((c, n) => {
    const skb = host.packet(udpDgram("10.99.1.2", 42010 + n, c.vip, 7000, text("x")));
    assert.equal(nf.run(NfHook.PREROUTING, skb, lan, null), NfVerdict.ACCEPT);
    assert.equal(dst(skb), c.backend, `VIP ${c.vip}`);
    assert.ok(checksumsValid(skb));
  });
});

test("MASQUERADE keeps a free source port and moves a clashing one within the kernel's port class", () => {
  const { host, lan, wan, nat, nf } = natRouter();
  assert.ok(nat.append("POSTROUTING", { outIface: "wan", target: { kind: "MASQUERADE" } }).ok);
  const mapped = (from: string, port: number): number => {
    const skb = host.packet(udpDgram(from, port, "10.99.2.2", 6000, text("x")));
    assert.equal(forward(nf, skb, lan, wan), NfVerdict.ACCEPT);
    assert.equal(src(skb), "10.99.2.1");
    assert.ok(checksumsValid(skb));
    return sport(skb);
  };
  // Kernel 6.18 with the same traffic kept 41000/100/700 for 10.99.1.2 and gave 10.99.1.3 the ports
  // 42754, 44 and 766: random, but in 1024-65535, 1-511 and 600-1023.
  assert.deepEqual([mapped("10.99.1.2", 41000), mapped("10.99.1.2", 100), mapped("10.99.1.2", 700)], [41000, 100, 700]);
  const p1 = mapped("10.99.1.3", 41000);
  const p2 = mapped("10.99.1.3", 100);
  const p3 = mapped("10.99.1.3", 700);
  assert.ok(p1 >= 1024 && p1 <= 65535 && p1 !== 41000, `got ${p1}`);
  assert.ok(p2 >= 1 && p2 <= 511 && p2 !== 100, `got ${p2}`);
  assert.ok(p3 >= 600 && p3 <= 1023 && p3 !== 700, `got ${p3}`);
  const other = natRouter(1);
  other.nat.append("POSTROUTING", { outIface: "wan", target: { kind: "MASQUERADE" } });
  for (const [from, port] of [["10.99.1.2", 41000], ["10.99.1.3", 41000]] as const) {
    const skb = other.host.packet(udpDgram(from, port, "10.99.2.2", 6000, text("x")));
    forward(other.nf, skb, other.lan, other.wan);
    if (from === "10.99.1.3") assert.equal(sport(skb), p1, "same seed, same port");
  }
  // Replies to the moved port reach the right client on its own port.
  const reply = host.packet(udpDgram("10.99.2.2", 6000, "10.99.2.1", p1, text("r")));
  assert.equal(forward(nf, reply, wan, lan), NfVerdict.ACCEPT);
  assert.deepEqual([dst(reply), dport(reply)], ["10.99.1.3", 41000]);
  assert.ok(checksumsValid(reply));
});

test("--random-fully moves even a free port (within its class); SNAT to a port range stays inside it", () => {
  const { host, lan, wan, nat, nf } = natRouter();
  assert.ok(nat.append("POSTROUTING", { proto: "tcp", outIface: "wan", target: { kind: "MASQUERADE", randomFully: true } }).ok);
  assert.ok(nat.append("POSTROUTING", { proto: "udp", outIface: "wan", target: { kind: "SNAT", to: "10.99.2.100:20000-20009" } }).ok);
  const seenTcp = new Set<number>();
  for (let k = 0; k < 5; k++) {
    const skb = host.packet(tcpSeg("10.99.1.2", 33000 + k, "10.99.2.2", 80, TCP.SYN));
    forward(nf, skb, lan, wan);
    assert.ok(sport(skb) >= 1024 && sport(skb) !== 33000 + k);
    seenTcp.add(sport(skb));
    assert.ok(checksumsValid(skb));
  }
  assert.equal(seenTcp.size, 5);
  const ports = new Set<number>();
  for (let k = 0; k < 10; k++) {
    const skb = host.packet(udpDgram(`10.99.1.${10 + k}`, 5000, "10.99.2.2", 53, text("q")));
    assert.equal(forward(nf, skb, lan, wan), NfVerdict.ACCEPT);
    assert.equal(src(skb), "10.99.2.100");
    assert.ok(sport(skb) >= 20000 && sport(skb) <= 20009);
    ports.add(sport(skb));
  }
  assert.equal(ports.size, 10, "ten flows, ten distinct ports of the ten available");
  // The range is exhausted: the eleventh flow cannot get a unique tuple and dies at confirm.
  const extra = host.packet(udpDgram("10.99.1.99", 5000, "10.99.2.2", 53, text("q")));
  assert.equal(forward(nf, extra, lan, wan), NfVerdict.DROP);
  assert.equal(host.sink.dropRecords.at(-1)!.reason, DropReason.CT_CREATE_FAILED);
});

test("a source already mapped keeps its mapping towards other destinations (find_appropriate_src)", () => {
  const { host, lan, wan, nat, nf } = natRouter();
  assert.ok(nat.append("POSTROUTING", { proto: "udp", target: { kind: "SNAT", to: "10.99.2.100:30000-30999" } }).ok);
  const first = host.packet(udpDgram("10.99.1.2", 5000, "10.99.2.2", 53, text("q")));
  forward(nf, first, lan, wan);
  const second = host.packet(udpDgram("10.99.1.2", 5000, "10.99.2.3", 53, text("q")));
  forward(nf, second, lan, wan);
  assert.equal(sport(second), sport(first));
});

test("ICMP echo ids are remapped like ports when two pingers clash behind MASQUERADE", () => {
  const { host, lan, wan, nat, nf } = natRouter();
  assert.ok(nat.append("POSTROUTING", { outIface: "wan", target: { kind: "MASQUERADE" } }).ok);
  const a = host.packet(echo("10.99.1.2", "10.99.2.2", 8, 77, 1));
  const b = host.packet(echo("10.99.1.3", "10.99.2.2", 8, 77, 1));
  forward(nf, a, lan, wan);
  forward(nf, b, lan, wan);
  const idA = (a.data[a.head + 24]! << 8) | a.data[a.head + 25]!;
  const idB = (b.data[b.head + 24]! << 8) | b.data[b.head + 25]!;
  assert.equal(idA, 77);
  assert.notEqual(idB, 77);
  assert.ok(checksumsValid(b));
  const reply = host.packet(echo("10.99.2.2", "10.99.2.1", 0, idB, 1));
  forward(nf, reply, wan, lan);
  assert.equal(dst(reply), "10.99.1.3");
  assert.equal((reply.data[reply.head + 24]! << 8) | reply.data[reply.head + 25]!, 77);
  assert.ok(checksumsValid(reply));
});

test("MASQUERADE without an address on the way out drops (\"ate my IP address\"); a later change of interface kills the flow", () => {
  const host = new TestHost();
  const lan = host.addDevice("lan", "10.99.1.1/24");
  const bare = host.addDevice("bare");
  const wan = host.addDevice("wan", "10.99.2.1/24");
  const nat = host.netfilter.table("nat");
  assert.ok(nat.append("POSTROUTING", { target: { kind: "MASQUERADE" } }).ok);
  const v = forward(host.netfilter, host.packet(udpDgram("10.99.1.2", 1, "10.99.2.2", 2, text("x"))), lan, bare);
  assert.equal(v, NfVerdict.DROP);
  const d = host.sink.dropRecords.at(-1)!;
  assert.deepEqual([d.reason, d.site, d.device], [DropReason.NAT_NO_MAPPING, "netfilter/nat/POSTROUTING#1:masquerade-no-address", "bare"]);
  assert.equal(host.netfilter.conntrack.entries().length, 0, "the new entry died with its packet");
  // A flow masqueraded out of wan that later leaves through another interface is killed.
  assert.equal(forward(host.netfilter, host.packet(udpDgram("10.99.1.2", 3, "10.99.2.2", 4, text("x"))), lan, wan), NfVerdict.ACCEPT);
  assert.equal(forward(host.netfilter, host.packet(udpDgram("10.99.1.2", 3, "10.99.2.2", 4, text("x"))), lan, bare), NfVerdict.DROP);
  assert.equal(host.sink.dropRecords.at(-1)!.site, "netfilter/nat:masquerade-oif-changed");
  assert.equal(host.netfilter.conntrack.entries().length, 0);
});

test("DNAT in OUTPUT for local traffic; the packet records its pre-NAT tuple and the trace shows the rewrite", () => {
  const host = new TestHost();
  host.addDevice("eth0", "10.99.2.1/24");
  assert.ok(host.netfilter.table("nat").append("OUTPUT", { dst: "10.96.0.1", proto: "tcp", dport: 443, target: { kind: "DNAT", to: "10.99.2.5:6443" } }).ok);
  const skb = host.packet(tcpSeg("10.99.2.1", 40000, "10.96.0.1", 443, TCP.SYN));
  host.outputIp(skb);
  assert.deepEqual([dst(skb), dport(skb)], ["10.99.2.5", 6443]);
  assert.equal(skb.natApplied, NatApplied.DNAT);
  assert.deepEqual([skb.origSrc, skb.origDst, skb.origSrcPort, skb.origDstPort], [ip("10.99.2.1"), ip("10.96.0.1"), 40000, 443]);
  host.world.tracer.hops = true;
  const again = host.packet(tcpSeg("10.99.2.1", 40000, "10.96.0.1", 443, TCP.ACK, { seq: 1001, ack: 1 }));
  host.outputIp(again);
  assert.deepEqual(host.sink.hopRecords.map((h) => [h.hook, h.note]), [["OUTPUT", "DNAT 10.96.0.1:443 -> 10.99.2.5:6443"]]);
});

test("a zero UDP checksum stays zero through DNAT and SNAT", () => {
  const { host, lan, wan, nat, nf } = natRouter();
  assert.ok(nat.append("PREROUTING", { proto: "udp", dst: "10.99.3.3", target: { kind: "DNAT", to: "10.99.2.2:5353" } }).ok);
  assert.ok(nat.append("POSTROUTING", { outIface: "wan", target: { kind: "MASQUERADE" } }).ok);
  const skb = host.packet(udpDgram("10.99.1.2", 4000, "10.99.3.3", 53, text("q"), { zeroChecksum: true }));
  forward(nf, skb, lan, wan);
  assert.deepEqual([src(skb), dst(skb), dport(skb)], ["10.99.2.1", "10.99.2.2", 5353]);
  assert.deepEqual([skb.data[skb.head + 26], skb.data[skb.head + 27]], [0, 0]);
  assert.ok(verifyIpv4HeaderChecksum(skb.data, skb.head, 20));
});

test("an ICMP error the stack builds about a DNATed packet (attachRelated) leaves translated back, like the kernel's", () => {
  const { host, lan, wan, nat, nf } = natRouter();
  assert.ok(nat.append("PREROUTING", { dst: "10.99.3.3", proto: "udp", dport: 53, target: { kind: "DNAT", to: "10.99.2.2:5353" } }).ok);
  const q = host.packet(udpDgram("10.99.1.2", 4000, "10.99.3.3", 53, text("q")));
  assert.equal(forward(nf, q, lan, wan), NfVerdict.ACCEPT);
  // The next hop is unreachable: icmp_send quotes the packet as forwarded (after DNAT, TTL 63).
  const quoted = q.bytes().slice(0, 28);
  const err = host.packet(icmpMsg("10.99.1.1", "10.99.1.2", 3, 1, 0, quoted, { tos: 0xc0, df: false }));
  nf.attachRelated(err, q);
  host.outputIp(err);
  assert.equal(host.sent.length, 1);
  const out = host.sent[0]!.skb;
  assert.equal(src(out), "10.99.3.3", "outer source becomes the service address");
  const inner = out.bytes().subarray(28);
  assert.deepEqual([...inner.subarray(16, 20)], [10, 99, 3, 3], "quoted destination un-DNATed");
  assert.equal((inner[22]! << 8) | inner[23]!, 53);
  assert.ok(checksumsValid(out));
});

test("forgetting MASQUERADE bindings of an interface that went down (masq_device_event)", () => {
  const { host, lan, wan, nat, nf } = natRouter();
  assert.ok(nat.append("POSTROUTING", { outIface: "wan", target: { kind: "MASQUERADE" } }).ok);
  assert.ok(nat.append("PREROUTING", { dst: "10.99.3.3", proto: "udp", target: { kind: "DNAT", to: "10.99.2.2" } }).ok);
  forward(nf, host.packet(udpDgram("10.99.1.2", 1, "10.99.2.2", 53, text("q"))), lan, wan);
  forward(nf, host.packet(udpDgram("10.99.1.2", 2, "10.99.2.2", 53, text("q"))), lan, wan);
  forward(nf, host.packet(udpDgram("10.99.1.2", 3, "10.99.3.3", 53, text("q"))), lan, lan);
  assert.equal(nf.conntrack.entries().length, 3);
  assert.equal(nf.conntrack.flushMasquerade(wan.ifindex), 2);
  assert.deepEqual(nf.conntrack.entries().map((e) => e.original.sport), [3]);
});

// Byte-level tests of ICMPv4, ICMPv6, UDP and TCP (all option kinds, unknown options kept, errors).
// Expected values: tshark -V / tcpdump -nn -S on the same bytes.
import { test } from "node:test";
import assert from "node:assert/strict";
import { formatIPv6 } from "../../src/util/ip.js";
import { emitIcmp, icmpEchoId, icmpEchoSeq, isIcmpError, parseIcmp } from "../../src/wire/icmp.js";
import { icmpv6HasTarget, parseIcmpv6 } from "../../src/wire/icmpv6.js";
import { emitUdp, parseUdp } from "../../src/wire/udp.js";
import { emitTcp, formatTcpOptions, parseTcp, tcpdumpFlags, tcpFlagLetters, tcpHeaderLength } from "../../src/wire/tcp.js";
import { CRAFTED } from "./crafted-frames.js";
import { readClassicPcap, sharedPath } from "./fixtures.js";

const icmpFrames = readClassicPcap(sharedPath("pcaps/external/zeek-communityid-icmp.pcap")).frames;
const icmp6Frames = readClassicPcap(sharedPath("pcaps/external/zeek-communityid-icmp6.pcap")).frames;
const dnsFrames = readClassicPcap(sharedPath("pcaps/external/gopacket-test_dns.pcap")).frames;
const tcpFrames = readClassicPcap(sharedPath("pcaps/external/zeek-communityid-tcp.pcap")).frames;

test("ICMP echo request: type 8 code 0, id 512 seq 2304 (tcpdump); emit rebuilds the header", () => {
  const f = icmpFrames[0]!;
  const r = parseIcmp(f, 34, f.length);
  assert.ok(r.ok);
  assert.equal(r.value.type, 8);
  assert.equal(r.value.code, 0);
  assert.equal(icmpEchoId(f, 34), 512);
  assert.equal(icmpEchoSeq(f, 34), 2304);
  const out = new Uint8Array(8);
  emitIcmp(r.value, out, 0);
  assert.deepEqual(out, f.subarray(34, 42));
  const cut = parseIcmp(f, 34, 41);
  assert.ok(!cut.ok && cut.error.layer === "icmp" && cut.error.offset === 34);
});

test("ICMP port unreachable (type 3 code 3) is an error message quoting a datagram", () => {
  const r = parseIcmp(CRAFTED.icmpUnreachQuote, 34, CRAFTED.icmpUnreachQuote.length);
  assert.ok(r.ok);
  assert.deepEqual([r.value.type, r.value.code, isIcmpError(r.value.type)], [3, 3, true]);
  assert.equal(isIcmpError(8), false);
});

test("ICMPv6 neighbor solicitation: type 135, target fe80::260:97ff:fe07:69ea (tcpdump 'who has')", () => {
  const f = icmp6Frames[0]!;
  const r = parseIcmpv6(f, 54, f.length);
  assert.ok(r.ok);
  assert.deepEqual([r.value.type, r.value.code], [135, 0]);
  assert.ok(icmpv6HasTarget(r.value.type));
  assert.equal(formatIPv6(f, 62), "fe80::260:97ff:fe07:69ea");
});

test("UDP: DNS query 57766 -> 53, length 48 (tshark); emit rebuilds; length below 8 is an error", () => {
  const f = dnsFrames[0]!;
  const r = parseUdp(f, 34, f.length);
  assert.ok(r.ok);
  assert.deepEqual(r.value, { srcPort: 57766, dstPort: 53, length: 48, checksum: (f[40]! << 8) | f[41]! });
  const out = new Uint8Array(8);
  emitUdp(r.value, out, 0);
  assert.deepEqual(out, f.subarray(34, 42));
  const bad = f.slice();
  bad[38] = 0;
  bad[39] = 7;
  const e = parseUdp(bad, 34, bad.length);
  assert.ok(!e.ok);
  assert.deepEqual([e.error.layer, e.error.field, e.error.offset], ["udp", "length", 38]);
});

test("TCP SYN: seq 3201037957, window 5840, options mss 1460, sackOK, TS 87269134/0, nop, wscale 0 (tshark/tcpdump)", () => {
  const f = tcpFrames[0]!;
  const r = parseTcp(f, 34, f.length);
  assert.ok(r.ok);
  const t = r.value;
  assert.deepEqual([t.srcPort, t.dstPort, t.seq, t.ack, t.flags, t.window], [34855, 80, 3201037957, 0, 0x002, 5840]);
  assert.deepEqual(t.options, [
    { kind: "mss", value: 1460 },
    { kind: "sackPermitted" },
    { kind: "timestamps", value: 87269134, echo: 0 },
    { kind: "nop" },
    { kind: "windowScale", shift: 0 },
  ]);
  assert.equal(formatTcpOptions(t.options), "mss 1460,sackOK,TS val 87269134 ecr 0,nop,wscale 0");
  assert.equal(tcpHeaderLength(t), 40);
  const out = new Uint8Array(40);
  emitTcp(t, out, 0);
  assert.deepEqual(out, f.subarray(34, 74));
});

test("TCP SACK blocks, an unknown (experimental 254) option kept with its bytes, and EOL padding", () => {
  const f = CRAFTED.tcpSackUnknown;
  const r = parseTcp(f, 34, f.length);
  assert.ok(r.ok);
  const t = r.value;
  assert.deepEqual([t.seq, t.ack, t.window, tcpFlagLetters(t.flags)], [4294967280, 16, 512, "AP"]);
  // tshark: NOP, NOP, SACK (raw edges 1000-2000, 3000-4000), Experimental (254, length 6), EOL
  assert.deepEqual(t.options, [
    { kind: "nop" },
    { kind: "nop" },
    { kind: "sack", blocks: [{ left: 1000, right: 2000 }, { left: 3000, right: 4000 }] },
    { kind: "unknown", type: 254, data: Uint8Array.of(0xf9, 0x89, 0xaa, 0xbb) },
    { kind: "eol" },
  ]);
  const out = new Uint8Array(tcpHeaderLength(t));
  emitTcp(t, out, 0);
  assert.deepEqual(out, f.subarray(34, 34 + 48));
});

test("TCP: a known kind with a wrong length is kept as unknown; malformed option lists are errors", () => {
  const odd = tcpFrames[0]!.slice();
  odd.set([2, 3, 0xff], 54); // MSS kind with length 3, then NOPs to the end of the 40-byte header
  odd.fill(1, 57, 74);
  const kept = parseTcp(odd, 34, odd.length);
  assert.ok(kept.ok);
  assert.deepEqual(kept.value.options[0], { kind: "unknown", type: 2, data: Uint8Array.of(0xff) });
  assert.equal(kept.value.options.length, 1 + 17);

  const overrun = tcpFrames[0]!.slice();
  overrun[55] = 30; // MSS length 30 runs past the 40-byte header
  const e = parseTcp(overrun, 34, overrun.length);
  assert.ok(!e.ok);
  assert.deepEqual([e.error.layer, e.error.field, e.error.offset], ["tcp", "options", 54]);

  const tooShort = tcpFrames[0]!.slice();
  tooShort[55] = 1; // length 1 < 2
  const s = parseTcp(tooShort, 34, tooShort.length);
  assert.ok(!s.ok && s.error.offset === 54);

  const offset = tcpFrames[0]!.slice();
  offset[46] = 0x40; // data offset 4 words
  const d = parseTcp(offset, 34, offset.length);
  assert.ok(!d.ok);
  assert.deepEqual([d.error.field, d.error.offset], ["dataOffset", 46]);
});

test("TCP flags: tshark's tcp.flags 0x002/0x012/0x010/0x018/0x011 as SAFRPUEC letters and tcpdump's [S] [S.] [.] [P.] [F.]", () => {
  const cases: [number, string, string][] = [
    [0x002, "S", "S"],
    [0x012, "SA", "S."],
    [0x010, "A", "."],
    [0x018, "AP", "P."],
    [0x011, "AF", "F."],
    [0x0c2, "SEC", "SEW"],
    [0x004, "R", "R"],
    [0x000, "", "none"],
  ];
  for (const [bits, letters, tcpdump] of cases) {
    assert.equal(tcpFlagLetters(bits), letters);
    assert.equal(tcpdumpFlags(bits), tcpdump);
  }
});

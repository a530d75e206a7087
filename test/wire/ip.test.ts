// Byte-level tests of IPv4 (options, flags, fragments, errors) and IPv6 (extension chain to the upper
// layer, fragments, errors). Expected values: tshark's decode of the same bytes.
import { test } from "node:test";
import assert from "node:assert/strict";
import { parseIPv4, formatIPv6 } from "../../src/util/ip.js";
import { emitIpv4, ipv4HeaderLength, parseIpv4 } from "../../src/wire/ipv4.js";
import { emitIpv6, ipv6HeaderLength, parseIpv6 } from "../../src/wire/ipv6.js";
import { write16 } from "../../src/wire/bytes.js";
import { CRAFTED } from "./crafted-frames.js";
import { readClassicPcap, sharedPath } from "./fixtures.js";

const fragments = readClassicPcap(sharedPath("pcaps/external/libpcap-ah-ipip-ping.pcap")).frames;

test("IPv4 with a router-alert option (IHL 6): tshark's fields, and emit rebuilds the 24 header bytes", () => {
  const f = CRAFTED.qinqIpv4OptUdp;
  const r = parseIpv4(f, 22, f.length);
  assert.ok(r.ok);
  const ip = r.value;
  assert.deepEqual(
    { ...ip, options: Array.from(ip.options) },
    {
      dscp: 0,
      ecn: 0,
      totalLength: 37,
      identification: 0x1234,
      dontFragment: true,
      moreFragments: false,
      fragmentOffset: 0,
      ttl: 64,
      protocol: 17,
      checksum: 0x7f8d,
      src: parseIPv4("10.0.0.1"),
      dst: parseIPv4("10.0.0.2"),
      options: [0x94, 4, 0, 0],
    },
  );
  assert.equal(ipv4HeaderLength(ip), 24);
  const out = new Uint8Array(24);
  assert.equal(emitIpv4(ip, out, 0), 24);
  assert.deepEqual(out, f.subarray(22, 46));
});

test("IPv4 fragments of one datagram: MF and offsets 0/1480/2960/4440 bytes (tshark frag_offset 0/185/370/555)", () => {
  const seen = fragments.map((f) => {
    const r = parseIpv4(f, 14, f.length);
    assert.ok(r.ok);
    return [r.value.identification, r.value.moreFragments, r.value.fragmentOffset, r.value.protocol, r.value.totalLength];
  });
  assert.deepEqual(seen, [
    [0xa3d9, true, 0, 51, 1500],
    [0xa3d9, true, 1480, 51, 1500],
    [0xa3d9, true, 2960, 51, 1500],
    [0xa3d9, false, 4440, 51, 1492],
  ]);
  const r = parseIpv4(fragments[1]!, 14, fragments[1]!.length);
  assert.ok(r.ok);
  const out = new Uint8Array(20);
  emitIpv4(r.value, out, 0);
  assert.deepEqual(out, fragments[1]!.subarray(14, 34));
});

test("IPv4 errors name the field and the byte offset", () => {
  const f = CRAFTED.tcpSackUnknown;
  const cases: { mutate: (b: Uint8Array) => void; end: number; field: string; offset: number }[] = [
    { mutate: (b) => (b[14] = 0x65), end: f.length, field: "version", offset: 14 },
    { mutate: (b) => (b[14] = 0x44), end: f.length, field: "ihl", offset: 14 },
    { mutate: (b) => (b[14] = 0x4f), end: 14 + 40, field: "options", offset: 14 }, // IHL 15 = 60 bytes
    { mutate: (b) => write16(b, 16, 19), end: f.length, field: "totalLength", offset: 16 },
    {
      mutate: (b) => {
        b[14] = 0x46; // IHL 6: 4 option bytes, the first an option of length 9
        b.set([0x44, 9], 34);
      },
      end: f.length,
      field: "options",
      offset: 34,
    },
  ];
  for (const { mutate, end, field, offset } of cases) {
    const bytes = f.slice();
    mutate(bytes);
    const r = parseIpv4(bytes, 14, end);
    assert.ok(!r.ok, field);
    assert.deepEqual([r.error.layer, r.error.field, r.error.offset], ["ipv4", field, offset]);
  }
  for (let n = 0; n < 20; n++) {
    const r = parseIpv4(f, 14, 14 + n);
    assert.ok(!r.ok && r.error.field === "header" && r.error.offset === 14);
  }
});

test("IPv6 extension chain HBH -> routing -> destination options -> AH -> TCP (tshark frame.protocols order)", () => {
  const f = CRAFTED.ipv6ExtAhTcp;
  const r = parseIpv6(f, 14, f.length);
  assert.ok(r.ok);
  const ip = r.value;
  assert.equal(formatIPv6(ip.src), "2001:db8::1");
  assert.equal(formatIPv6(ip.dst), "2001:db8:0:1::2");
  assert.equal(ip.payloadLength, 88);
  assert.equal(ip.hopLimit, 64);
  assert.deepEqual(ip.extensions.map((e) => e.type), [0, 43, 60, 51]);
  assert.equal(ip.protocol, 6);
  assert.equal(ipv6HeaderLength(ip), 40 + 8 + 8 + 8 + 24);
  const ah = ip.extensions[3]!;
  assert.ok(ah.type === 51);
  // AH SPI 0x00001000, sequence 1 (tshark): body = reserved(2) SPI(4) seq(4) ICV(12)
  assert.deepEqual(Array.from(ah.body.subarray(2, 10)), [0, 0, 0x10, 0, 0, 0, 0, 1]);
  const out = new Uint8Array(ipv6HeaderLength(ip));
  emitIpv6(ip, out, 0);
  assert.deepEqual(out, f.subarray(14, 14 + out.length));
});

test("IPv6 fragment header: first fragment (offset 0, M) walks on to UDP; a later one stops at the fragment", () => {
  const first = parseIpv6(CRAFTED.ipv6FragFirst, 14, CRAFTED.ipv6FragFirst.length);
  assert.ok(first.ok);
  assert.deepEqual(first.value.extensions, [{ type: 44, fragmentOffset: 0, moreFragments: true, identification: 0xabcdef01 }]);
  assert.equal(first.value.protocol, 17);
  const second = parseIpv6(CRAFTED.ipv6FragSecond, 14, CRAFTED.ipv6FragSecond.length);
  assert.ok(second.ok);
  assert.deepEqual(second.value.extensions, [{ type: 44, fragmentOffset: 24, moreFragments: false, identification: 0xabcdef01 }]);
  assert.equal(second.value.protocol, 17);
});

test("IPv6 errors: wrong version, hop-by-hop not first, an extension overrunning the payload, truncation", () => {
  const f = CRAFTED.ipv6ExtAhTcp;
  const version = f.slice();
  version[14] = 0x40;
  const v = parseIpv6(version, 14, version.length);
  assert.ok(!v.ok && v.error.field === "version" && v.error.offset === 14);

  const hbhLate = f.slice();
  hbhLate[62] = 0; // routing header's next header -> hop-by-hop
  const h = parseIpv6(hbhLate, 14, hbhLate.length);
  assert.ok(!h.ok);
  assert.deepEqual([h.error.field, h.error.offset], ["nextHeader", 70]);

  const overrun = f.slice();
  overrun[19] = 20; // payload length 20: the chain is 48 bytes
  const o = parseIpv6(overrun, 14, overrun.length);
  assert.ok(!o.ok && o.error.field === "extension");

  const cut = parseIpv6(f, 14, 14 + 40 + 8 + 4);
  assert.ok(!cut.ok);
  assert.deepEqual([cut.error.layer, cut.error.field, cut.error.offset], ["ipv6", "extension", 62]);
});

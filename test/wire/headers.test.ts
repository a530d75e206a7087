// Fast-path parseFrame/parseIp: fields and offsets on real and crafted frames (tshark's values),
// trimming, fragments, tunnels located for a second pass, and error codes with layer/field/offset.
import { test } from "node:test";
import assert from "node:assert/strict";
import { parseIPv4 } from "../../src/util/ip.js";
import { formatIPv6 } from "../../src/util/ip.js";
import { headersError, ParsedHeaders, ParseStatus, parseFrame, parseIp, TunnelKind } from "../../src/wire/headers.js";
import { CRAFTED } from "./crafted-frames.js";
import { readClassicPcap, sharedPath } from "./fixtures.js";

const tcpFrames = readClassicPcap(sharedPath("pcaps/external/zeek-communityid-tcp.pcap")).frames;
const vxlanFrames = readClassicPcap(sharedPath("pcaps/external/tcpdump-vxlan.pcap")).frames;
const geneveFrames = readClassicPcap(sharedPath("pcaps/external/tcpdump-geneve.pcap")).frames;
const arpFrames = readClassicPcap(sharedPath("pcaps/external/zeek-communityid-arp.pcap")).frames;
const dot1q = readClassicPcap(sharedPath("pcaps/external/zeek-icmp_dot1q.pcap")).frames;
const ipip = readClassicPcap(sharedPath("pcaps/external/zeek-tunnels-4in4.pcap")).frames;
const fragments = readClassicPcap(sharedPath("pcaps/external/libpcap-ah-ipip-ping.pcap")).frames;

test("Ethernet/IPv4/TCP SYN-ACK: addresses, ports, seq/ack, flags, window, offsets (tshark frame 2)", () => {
  const out = new ParsedHeaders();
  const f = tcpFrames[1]!;
  assert.equal(parseFrame(f, 0, f.length, out), ParseStatus.OK);
  assert.equal(out.etherType, 0x0800);
  assert.deepEqual([out.l2Offset, out.l3Offset, out.l4Offset, out.payloadOffset, out.end], [0, 14, 34, 74, 74]);
  assert.deepEqual([out.ipVersion, out.ipHeaderLen, out.ipTotalLen, out.ttl, out.ipProto], [4, 20, 60, 42, 6]);
  assert.equal(out.src4, parseIPv4("66.35.250.204"));
  assert.equal(out.dst4, parseIPv4("128.232.110.120"));
  assert.deepEqual([out.srcPort, out.dstPort, out.tcpSeq, out.tcpAck], [80, 34855, 2888831847, 3201037958]);
  assert.deepEqual([out.tcpFlags, out.tcpWindow, out.tcpHeaderLen], [0x012, 5792, 40]);
  assert.deepEqual([out.dontFragment, out.isFragment, out.tunnel], [true, false, TunnelKind.NONE]);
});

test("the same ParsedHeaders is fully reset between packets", () => {
  const out = new ParsedHeaders();
  parseFrame(tcpFrames[1]!, 0, tcpFrames[1]!.length, out);
  const arp = arpFrames[0]!;
  assert.equal(parseFrame(arp, 0, arp.length, out), ParseStatus.OK);
  assert.deepEqual([out.etherType, out.ipVersion, out.l3Offset, out.l4Offset, out.srcPort, out.tcpSeq], [0x0806, 0, 14, -1, 0, 0]);
});

test("VXLAN frame: outer UDP to 4789, VNI 100, inner Ethernet at 50; a second parse reads the inner ICMP", () => {
  const outer = new ParsedHeaders();
  const f = vxlanFrames[0]!;
  assert.equal(parseFrame(f, 0, f.length, outer), ParseStatus.OK);
  assert.deepEqual([outer.ipProto, outer.dstPort, outer.udpLen, outer.tunnel, outer.vni, outer.innerOffset, outer.innerEthernet], [
    17, 4789, 114, TunnelKind.VXLAN, 100, 50, true,
  ]);
  const inner = new ParsedHeaders();
  assert.equal(parseFrame(f, outer.innerOffset, outer.end, inner), ParseStatus.OK);
  assert.equal(inner.src4, parseIPv4("192.168.203.3"));
  assert.equal(inner.dst4, parseIPv4("192.168.203.5"));
  assert.deepEqual([inner.ipProto, inner.icmpType, inner.icmpCode, inner.icmpId], [1, 8, 0, 1292]);
});

test("Geneve frames: VNI 10/11 and inner Ethernet after the options; Geneve with inner IPv4 goes to parseIp", () => {
  const out = new ParsedHeaders();
  const f = geneveFrames[0]!;
  parseFrame(f, 0, f.length, out);
  assert.deepEqual([out.tunnel, out.vni, out.innerOffset, out.innerEthernet], [TunnelKind.GENEVE, 10, 58, true]);
  const g = CRAFTED.geneveIpv4Option;
  parseFrame(g, 0, g.length, out);
  assert.deepEqual([out.tunnel, out.vni, out.innerOffset, out.innerEthernet], [TunnelKind.GENEVE, 0x123456, 58, false]);
  const inner = new ParsedHeaders();
  assert.equal(parseIp(g, out.innerOffset, out.end, inner), ParseStatus.OK);
  assert.deepEqual([inner.src4, inner.dst4, inner.ipProto, inner.icmpType], [0xac100001, 0xac100002, 1, 8]);
});

test("IPIP: protocol 4 marks the tunnel with the inner IP header right after the outer one", () => {
  const out = new ParsedHeaders();
  const f = ipip[0]!;
  parseFrame(f, 0, f.length, out);
  assert.deepEqual([out.ipProto, out.tunnel, out.innerOffset, out.innerEthernet], [4, TunnelKind.IPIP, 34, false]);
  const inner = new ParsedHeaders();
  parseIp(f, out.innerOffset, out.end, inner);
  assert.deepEqual([inner.srcPort, inner.dstPort, inner.udpLen], [30000, 13000, 12]);
});

test("802.1Q and 802.1ad tags are counted and their TCIs kept; Ethernet padding is trimmed by the IP length", () => {
  const out = new ParsedHeaders();
  const q = dot1q[4]!; // ICMP echo in VLAN 123, padded frame
  parseFrame(q, 0, q.length, out);
  assert.deepEqual([out.vlanCount, out.vlanTci0 & 0xfff, out.etherType, out.l3Offset], [1, 123, 0x0800, 18]);
  const qq = CRAFTED.qinqIpv4OptUdp;
  parseFrame(qq, 0, qq.length, out);
  assert.deepEqual([out.vlanCount, out.vlanTci0, out.vlanTci1, out.l3Offset, out.ipHeaderLen, out.l4Offset], [2, 0x6064, 200, 22, 24, 46]);
  const padded = new Uint8Array(qq.length + 10);
  padded.set(qq);
  parseFrame(padded, 0, padded.length, out);
  assert.equal(out.end, qq.length);
});

test("IPv4 fragments: the first keeps L4 ports, later ones have no L4 (offset in bytes)", () => {
  const out = new ParsedHeaders();
  parseFrame(fragments[0]!, 0, fragments[0]!.length, out);
  assert.deepEqual([out.isFragment, out.moreFragments, out.fragOffset, out.fragId, out.ipProto], [true, true, 0, 0xa3d9, 51]);
  parseFrame(fragments[3]!, 0, fragments[3]!.length, out);
  assert.deepEqual([out.isFragment, out.moreFragments, out.fragOffset, out.l4Offset, out.payloadOffset], [true, false, 4440, -1, 34]);
});

test("IPv6: extension chain walked to TCP; fragment header fields; addresses by offset", () => {
  const out = new ParsedHeaders();
  const f = CRAFTED.ipv6ExtAhTcp;
  assert.equal(parseFrame(f, 0, f.length, out), ParseStatus.OK);
  assert.deepEqual([out.ipVersion, out.ipHeaderLen, out.ipProto, out.l4Offset, out.srcPort, out.dstPort, out.tcpFlags], [
    6, 88, 6, 102, 40000, 443, 0x002,
  ]);
  assert.equal(formatIPv6(f, out.src6Offset), "2001:db8::1");
  assert.equal(formatIPv6(f, out.dst6Offset), "2001:db8:0:1::2");
  parseFrame(CRAFTED.ipv6FragFirst, 0, CRAFTED.ipv6FragFirst.length, out);
  assert.deepEqual([out.isFragment, out.moreFragments, out.fragId, out.srcPort, out.dstPort], [true, true, 0xabcdef01, 5000, 6000]);
  parseFrame(CRAFTED.ipv6FragSecond, 0, CRAFTED.ipv6FragSecond.length, out);
  assert.deepEqual([out.isFragment, out.fragOffset, out.l4Offset, out.ipProto], [true, 24, -1, 17]);
});

test("errors: code plus layer/field/offset; every truncation of a VXLAN frame fails cleanly or parses a prefix", () => {
  const out = new ParsedHeaders();
  const f = vxlanFrames[0]!;
  assert.equal(parseFrame(f, 0, 13, out), ParseStatus.TRUNCATED);
  assert.deepEqual(headersError(out), { layer: "eth", field: "header", offset: 0, reason: "truncated" });
  assert.equal(parseFrame(f, 0, 40, out), ParseStatus.TRUNCATED);
  assert.deepEqual([out.errorLayer, out.errorField, out.errorOffset], ["ipv4", "totalLength", 16]);
  const badVersion = f.slice();
  badVersion[14] = 0x55;
  assert.equal(parseFrame(badVersion, 0, f.length, out), ParseStatus.BAD_VERSION);
  const badUdp = f.slice();
  badUdp[38] = 0xff; // UDP length beyond the IP payload
  assert.equal(parseFrame(badUdp, 0, f.length, out), ParseStatus.BAD_LENGTH);
  assert.deepEqual([out.errorLayer, out.errorField, out.errorOffset], ["udp", "length", 38]);
  for (let n = 0; n <= f.length; n++) {
    const code = parseFrame(f, 0, n, out);
    assert.equal(code, n < f.length ? ParseStatus.TRUNCATED : ParseStatus.OK, `length ${n}`);
  }
  assert.equal(parseIp(f, 0, f.length, out), ParseStatus.BAD_VERSION);
  assert.equal(parseIp(f, 5, 5, out), ParseStatus.TRUNCATED);
});

test("one ParsedHeaders reused across mixed packets holds exactly what a fresh one would after each parse", () => {
  const mixed = [
    ...tcpFrames.slice(0, 4),
    ...vxlanFrames.slice(0, 2),
    ...arpFrames.slice(0, 1),
    ...dot1q.slice(0, 5),
    ...ipip.slice(0, 2),
    ...fragments.slice(0, 4),
    tcpFrames[1]!.subarray(0, 40), // truncated TCP header
  ];
  // Each packet is followed by a plain TCP one, whose parse must not keep anything of the one before.
  const packets = mixed.flatMap((f) => [f, tcpFrames[1]!]);
  const reused = new ParsedHeaders();
  const fields = (h: ParsedHeaders): unknown[] => Object.entries(h).filter(([k]) => k !== "commonLayout");
  for (const [i, f] of packets.entries()) {
    for (const [name, parse, offset] of [["frame", parseFrame, 0], ["ip", parseIp, 14]] as const) {
      const fresh = new ParsedHeaders();
      const status = parse(f, offset, f.length, fresh);
      assert.equal(parse(f, offset, f.length, reused), status, `packet ${i} (${name})`);
      assert.deepEqual(fields(reused), fields(fresh), `packet ${i} (${name})`);
    }
  }
});

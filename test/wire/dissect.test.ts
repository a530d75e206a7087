// dissect() against tshark's oracles (every frame of the external classic captures and the crafted frames),
// exact layer JSON for representative frames, and summarize() against tcpdump's own lines.
import { test } from "node:test";
import assert from "node:assert/strict";
import { dissect } from "../../src/wire/dissect.js";
import { summarize } from "../../src/wire/summary.js";
import type { Layer } from "../../src/wire/layers.js";
import { CRAFTED, CRAFTED_ORACLE } from "./crafted-frames.js";
import { EXTERNAL_CLASSIC_PCAPS, hex, readClassicPcap, readOracle, sharedPath, type OracleFrame } from "./fixtures.js";
import { COMPARED_FIELDS, oracleDiff, oracleShape } from "./oracle-shape.js";

const L4_FIELD = /^(icmp|icmpv6|udp|tcp)\./;
const LINK_FIELD = /^(eth|vlan)\./;

/** Fields to compare for one frame, with the reasons cnisim and tshark legitimately differ. */
function comparedFields(layers: Layer[], capture: string): string[] {
  let fields: string[] = [...COMPARED_FIELDS];
  // tshark reassembles fragments and decodes L4 on the last one; dissect never decodes L4 of a fragment.
  if (layers.some((l) => l.proto === "payload" && l.fragment)) fields = fields.filter((f) => !L4_FIELD.test(f));
  // A capture cut inside the IPv4 header: tshark still shows ip.len/ip.id, dissect reports an error layer.
  if (layers.some((l) => l.proto === "error")) fields = fields.filter((f) => LINK_FIELD.test(f));
  // tshark decodes VXLAN only on 4789 unless told (-d udp.port==8472,vxlan); dissect also decodes 8472.
  if (capture === "tcpdump-vxlan_port_8472.pcap") fields = fields.filter((f) => f !== "vxlan.vni");
  return fields;
}

/** For the 8472 capture, tshark lists outer headers only: keep our outer values (the first ones). */
function outerOnly(ours: OracleFrame, theirs: OracleFrame): OracleFrame {
  const out: OracleFrame = {};
  for (const [field, values] of Object.entries(ours)) out[field] = values?.slice(0, theirs[field]?.length ?? 0);
  return out;
}

test("dissect agrees with tshark on every frame of every external classic capture", () => {
  let compared = 0;
  for (const capture of EXTERNAL_CLASSIC_PCAPS) {
    const { linkType, frames } = readClassicPcap(sharedPath("pcaps/external", capture));
    const oracle = readOracle(capture);
    assert.equal(frames.length, oracle.length, capture);
    frames.forEach((frame, i) => {
      const layers = dissect(frame, linkType);
      const theirs = oracle[i]!;
      let ours = oracleShape(layers);
      if (capture === "tcpdump-vxlan_port_8472.pcap") ours = outerOnly(ours, theirs);
      assert.deepEqual(oracleDiff(ours, theirs, comparedFields(layers, capture)), [], `${capture} frame ${i + 1}`);
      compared++;
    });
  }
  assert.equal(compared, 10 + 4 + 1 + 39 + 10 + 10 + 6 + 12 + 49 + 12 + 15 + 1);
});

test("dissect agrees with tshark on the crafted frames (QinQ, IPv6 chain, fragments, checksums, SLL, SLL2, raw)", () => {
  const linkTypes: Partial<Record<keyof typeof CRAFTED, number>> = { sll: 113, sll2: 276, rawIpv4: 101 };
  for (const name of Object.keys(CRAFTED) as (keyof typeof CRAFTED)[]) {
    const layers = dissect(CRAFTED[name], linkTypes[name] ?? 1);
    assert.deepEqual(oracleDiff(oracleShape(layers), CRAFTED_ORACLE[name], comparedFields(layers, name)), [], name);
  }
});

test("VXLAN frame as JSON layers: outer eth/ipv4/udp, vxlan vni, inner eth/ipv4/icmp, payload", () => {
  const frame = readClassicPcap(sharedPath("pcaps/external/tcpdump-vxlan.pcap")).frames[0]!;
  assert.deepEqual(dissect(frame, 1), [
    { proto: "eth", src: "36:dc:85:1e:b3:40", dst: "00:16:3e:08:71:cf", type: 0x0800 },
    { proto: "ipv4", src: "192.168.203.1", dst: "192.168.202.1", ttl: 64, protocol: 17, len: 134, id: 0xd2c0, flags: "DF", fragOffset: 0, hdrLen: 20, checksumOk: true },
    { proto: "udp", srcPort: 45149, dstPort: 4789, len: 114, checksumOk: null },
    { proto: "vxlan", vni: 100, flags: 0x08 },
    { proto: "eth", src: "00:16:3e:37:f6:04", dst: "00:30:88:01:00:02", type: 0x0800 },
    { proto: "ipv4", src: "192.168.203.3", dst: "192.168.203.5", ttl: 64, protocol: 1, len: 84, id: 0, flags: "DF", fragOffset: 0, hdrLen: 20, checksumOk: true },
    { proto: "icmp", type: 8, code: 0, id: 1292, seq: 1, checksumOk: true },
    { proto: "payload", len: 56 },
  ]);
});

test("fragments, cut captures and unknown protocols are kept as layers, not lost", () => {
  const frags = readClassicPcap(sharedPath("pcaps/external/libpcap-ah-ipip-ping.pcap")).frames;
  assert.deepEqual(dissect(frags[1]!, 1).at(-1), { proto: "payload", len: 1480, protocol: 51, fragment: true });
  const cut = readClassicPcap(sharedPath("pcaps/external/rustpcap-packet_snaplen_20.pcap")).frames[0]!;
  assert.deepEqual(dissect(cut, 1)[1], {
    proto: "error",
    layer: "ipv4",
    field: "header",
    offset: 14,
    reason: "truncated: needs 20 bytes, 6 available",
  });
  // A TCP segment cut by the capture's snaplen: checksum unknown (null), announced length kept (tshark status 2).
  const tcp4 = readClassicPcap(sharedPath("pcaps/external/zeek-communityid-tcp.pcap")).frames[3]!;
  const layers = dissect(tcp4, 1);
  assert.equal(layers.find((l) => l.proto === "tcp")?.proto === "tcp" && (layers.find((l) => l.proto === "tcp") as { checksumOk: unknown }).checksumOk, null);
  assert.deepEqual(layers.at(-1), { proto: "payload", len: 30, wireLen: 496 });
  // LLDP (0x88cc) and GRE (47) are not decoded but keep their numbers.
  const lldp = hex("0180c200000e020000000001" + "88cc" + "0207040200000000010403020001");
  assert.deepEqual(dissect(lldp, 1)[1], { proto: "payload", len: 14, etherType: 0x88cc });
  const gre = CRAFTED.rawIpv4.slice();
  gre[9] = 47;
  assert.deepEqual(dissect(gre, 101).at(-1), { proto: "payload", len: 20, protocol: 47 });
  assert.deepEqual(dissect(gre, 147), [{ proto: "error", layer: "link", field: "linkType", offset: 0, reason: "unsupported link type 147" }]);
});

test("link types 101/228 (raw IPv4), 229 (raw IPv6), 113 and 276 (Linux cooked) all reach the IP layers", () => {
  const v4 = dissect(CRAFTED.rawIpv4, 101);
  assert.deepEqual(dissect(CRAFTED.rawIpv4, 228), v4);
  assert.deepEqual(v4.map((l) => l.proto), ["ipv4", "tcp"]);
  const v6 = dissect(CRAFTED.sll2.subarray(20), 229);
  assert.deepEqual(v6.map((l) => l.proto), ["ipv6", "udp", "payload"]);
  assert.deepEqual(dissect(CRAFTED.sll2, 276).slice(1), v6);
  assert.deepEqual(dissect(CRAFTED.sll2, 276)[0], { proto: "sll", version: 2, pktType: 2, hatype: 1, src: "02:00:00:00:00:0d", type: 0x86dd, ifindex: 7 });
  assert.deepEqual(dissect(CRAFTED.sll, 113)[0], { proto: "sll", version: 1, pktType: 4, hatype: 1, src: "02:00:00:00:00:0c", type: 0x0800 });
  assert.equal(dissect(CRAFTED.rawIpv4, 229)[0]?.proto, "error", "an IPv4 packet on the IPv6 link type is an error");
});

test("ICMP error quotes are decoded as quoted layers; their truncated UDP has an unknown checksum (tshark 2)", () => {
  const layers = dissect(CRAFTED.icmpUnreachQuote, 1);
  assert.deepEqual(layers.slice(2), [
    { proto: "icmp", type: 3, code: 3, checksumOk: true },
    { proto: "ipv4", src: "10.0.0.2", dst: "10.0.0.9", ttl: 1, protocol: 17, len: 40, id: 99, flags: "", fragOffset: 0, hdrLen: 20, checksumOk: true, quoted: true },
    { proto: "udp", srcPort: 33434, dstPort: 33435, len: 20, checksumOk: null },
  ]);
});

test("IPIP nested deeper than the layer limit ends with an error layer, not a stack overflow", () => {
  const inner = CRAFTED.rawIpv4;
  const depth = 40;
  const bytes = new Uint8Array(20 * depth + inner.length);
  for (let i = 0; i < depth; i++) {
    const total = bytes.length - 20 * i;
    bytes.set([0x45, 0, total >> 8, total & 255, 0, 0, 0, 0, 64, 4, 0, 0, 10, 0, 0, 1, 10, 0, 0, 2], 20 * i);
  }
  bytes.set(inner, 20 * depth);
  const layers = dissect(bytes, 101);
  assert.equal(layers.length, 33);
  assert.deepEqual(layers.at(-1), { proto: "error", layer: "ipv4", field: "", offset: 640, reason: "more than 32 layers" });
});

test("summarize prints what tcpdump -nn -S -t prints (tunnels joined on one line)", () => {
  const line = (capture: string, index: number): string => {
    const { linkType, frames } = readClassicPcap(sharedPath("pcaps/external", capture));
    return summarize(dissect(frames[index - 1]!, linkType));
  };
  const expected: [string, number, string][] = [
    ["zeek-communityid-tcp.pcap", 1, "IP 128.232.110.120.34855 > 66.35.250.204.80: Flags [S], seq 3201037957, win 5840, options [mss 1460,sackOK,TS val 87269134 ecr 0,nop,wscale 0], length 0"],
    ["zeek-communityid-tcp.pcap", 3, "IP 128.232.110.120.34855 > 66.35.250.204.80: Flags [.], ack 2888831848, win 5840, options [nop,nop,TS val 87269149 ecr 422613849], length 0"],
    // tcpdump then adds its HTTP decoder's ": HTTP [|http]"; the TCP part is identical.
    ["zeek-communityid-tcp.pcap", 4, "IP 128.232.110.120.34855 > 66.35.250.204.80: Flags [P.], seq 3201037958:3201038454, ack 2888831848, win 5840, options [nop,nop,TS val 87269149 ecr 422613849], length 496"],
    ["zeek-communityid-tcp.pcap", 10, "IP 66.35.250.204.80 > 128.232.110.120.34855: Flags [F.], seq 2888833579, ack 3201038454, win 6432, options [nop,nop,TS val 422613864 ecr 87269149], length 0"],
    ["zeek-communityid-icmp.pcap", 3, "IP 192.168.0.1 > 192.168.0.89: ICMP echo reply, id 512, seq 2304, length 40"],
    ["zeek-communityid-arp.pcap", 2, "ARP, Request who-has 192.150.187.14 tell 192.150.187.50, length 28"],
    ["zeek-communityid-icmp6.pcap", 1, "IP6 fe80::200:86ff:fe05:80da > fe80::260:97ff:fe07:69ea: ICMP6, neighbor solicitation, who has fe80::260:97ff:fe07:69ea, length 32"],
    ["zeek-communityid-icmp6.pcap", 11, "IP6 3ffe:507:0:1:260:97ff:fe07:69ea > 3ffe:507:0:1:200:86ff:fe05:80da: ICMP6, time exceeded in-transit for 3ffe:501:410:0:2c0:dfff:fe47:33e, length 68"],
    ["zeek-communityid-icmp6.pcap", 20, "IP6 3ffe:501:410:0:2c0:dfff:fe47:33e > 3ffe:507:0:1:200:86ff:fe05:80da: ICMP6, destination unreachable, unreachable port, 3ffe:501:410:0:2c0:dfff:fe47:33e udp port 33444, length 68"],
    ["zeek-tunnels-4in4.pcap", 1, "IP 1.2.3.4 > 5.6.7.8: IP 10.0.0.1.30000 > 10.0.0.2.13000: UDP, length 4"],
    ["tcpdump-vxlan.pcap", 3, "IP 192.168.203.1.52102 > 192.168.202.1.4789: VXLAN, flags [I] (0x08), vni 100: ARP, Reply 192.168.203.3 is-at 00:16:3e:37:f6:04, length 28"],
    ["tcpdump-geneve.pcap", 4, "IP 20.0.0.1.22540 > 20.0.0.2.6081: Geneve, Flags [C], vni 0xa, options [8 bytes]: IP 30.0.0.1.22 > 30.0.0.2.51225: Flags [S.], seq 2910871522, ack 397610160, win 28960, options [mss 1460,sackOK,TS val 84248969 ecr 2876069566,nop,wscale 7], length 0"],
  ];
  for (const [capture, index, tcpdump] of expected) assert.equal(line(capture, index), tcpdump, `${capture} #${index}`);
  assert.equal(summarize(dissect(CRAFTED.icmpUnreachQuote, 1)), "IP 10.0.0.9 > 10.0.0.2: ICMP 10.0.0.9 udp port 33435 unreachable, length 36");
  assert.equal(summarize(dissect(CRAFTED.rawIpv4, 101)), "IP 10.3.0.1.1 > 10.3.0.2.2: Flags [F.], seq 5, ack 6, win 100, length 0");
});

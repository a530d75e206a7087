// Builds whole frames from header Reprs with the wire emitters (lengths and checksums filled in), and
// the fast-check generator of such frames used by the packet-level property tests.
import fc from "fast-check";
import { emitEthernet, type EthernetRepr } from "../../src/wire/ethernet.js";
import { emitVlan, type VlanRepr } from "../../src/wire/vlan.js";
import { emitIpv4, ipv4HeaderLength, type Ipv4Repr } from "../../src/wire/ipv4.js";
import { emitIpv6, ipv6HeaderLength, type Ipv6Repr } from "../../src/wire/ipv6.js";
import { emitIcmp, type IcmpRepr } from "../../src/wire/icmp.js";
import { emitUdp, type UdpRepr } from "../../src/wire/udp.js";
import { emitTcp, tcpHeaderLength, type TcpRepr } from "../../src/wire/tcp.js";
import { setL4ChecksumV4, setL4ChecksumV6 } from "../../src/wire/checksum.js";
import * as arb from "./arbitraries.js";

export type L4 = { kind: "tcp"; repr: TcpRepr } | { kind: "udp"; repr: UdpRepr } | { kind: "icmp"; repr: IcmpRepr };
export type PacketSpec = {
  eth: EthernetRepr;
  vlans: VlanRepr[];
  ip: { version: 4; repr: Ipv4Repr } | { version: 6; repr: Ipv6Repr };
  l4: L4;
  payload: Uint8Array;
};

function l4Length(l4: L4, payload: Uint8Array): number {
  return (l4.kind === "tcp" ? tcpHeaderLength(l4.repr) : 8) + payload.length;
}

/** Fixes lengths, protocol numbers and ethertypes so the spec is one consistent packet; returns the frame. */
export function buildFrame(spec: PacketSpec): Uint8Array {
  const segment = l4Length(spec.l4, spec.payload);
  const ipVersion = spec.ip.version;
  const protocol = spec.l4.kind === "tcp" ? 6 : spec.l4.kind === "udp" ? 17 : ipVersion === 4 ? 1 : 58;
  // A fragment header would make the packet a fragment: IPv6 specs are built without one.
  const ip6 = spec.ip.version === 6 ? { ...spec.ip.repr, extensions: spec.ip.repr.extensions.filter((e) => e.type !== 44), protocol } : null;
  const ipHeader = spec.ip.version === 4 ? ipv4HeaderLength(spec.ip.repr) : ipv6HeaderLength(ip6!);
  const frame = new Uint8Array(14 + 4 * spec.vlans.length + ipHeader + segment);
  const ipType = ipVersion === 4 ? 0x0800 : 0x86dd;
  emitEthernet({ ...spec.eth, etherType: spec.vlans.length > 0 ? 0x8100 : ipType }, frame, 0);
  spec.vlans.forEach((v, i) => emitVlan({ ...v, etherType: i + 1 < spec.vlans.length ? 0x8100 : ipType }, frame, 14 + 4 * i));
  const l3 = 14 + 4 * spec.vlans.length;
  if (spec.ip.version === 4) {
    emitIpv4({ ...spec.ip.repr, protocol, totalLength: ipHeader + segment, moreFragments: false, fragmentOffset: 0 }, frame, l3);
  } else if (ip6) {
    emitIpv6({ ...ip6, payloadLength: ipHeader - 40 + segment }, frame, l3);
  }
  const l4 = frame.length - segment;
  if (spec.l4.kind === "tcp") emitTcp(spec.l4.repr, frame, l4);
  else if (spec.l4.kind === "udp") emitUdp({ ...spec.l4.repr, length: segment }, frame, l4);
  else emitIcmp(spec.l4.repr, frame, l4);
  frame.set(spec.payload, frame.length - spec.payload.length);
  if (spec.ip.version === 4) setL4ChecksumV4(frame, l4, segment, protocol, spec.ip.repr.src, spec.ip.repr.dst);
  else setL4ChecksumV6(frame, l4, segment, protocol, frame, l3 + 8, frame, l3 + 24);
  return frame;
}

/** A generator of consistent, unfragmented packets. */
export const packetArb: fc.Arbitrary<PacketSpec> = fc.record(
  {
    eth: arb.ethernetArb,
    vlans: fc.array(arb.vlanArb, { maxLength: 2 }),
    ip: fc.oneof(
      arb.ipv4Arb.map((repr) => ({ version: 4 as const, repr })),
      arb.ipv6Arb.map((repr) => ({ version: 6 as const, repr })),
    ),
    l4: fc.oneof(
      arb.tcpArb.map((repr) => ({ kind: "tcp" as const, repr })),
      arb.udpArb
        .filter((u) => ![4789, 8472, 6081].includes(u.dstPort))
        .map((repr) => ({ kind: "udp" as const, repr })),
      // ICMP error types quote another packet, which this generator does not build.
      arb.icmpArb.filter((i) => ![1, 2, 3, 4, 5, 11, 12].includes(i.type)).map((repr) => ({ kind: "icmp" as const, repr })),
    ),
    payload: fc.uint8Array({ maxLength: 64 }),
  },
  { noNullPrototype: true },
);

// fast-check generators of valid header Reprs and whole packets for the wire property tests.
import fc from "fast-check";
import type { EthernetRepr } from "../../src/wire/ethernet.js";
import type { VlanRepr } from "../../src/wire/vlan.js";
import type { ArpRepr } from "../../src/wire/arp.js";
import type { Ipv4Repr } from "../../src/wire/ipv4.js";
import type { Ipv6ExtensionRepr, Ipv6Repr } from "../../src/wire/ipv6.js";
import type { IcmpRepr } from "../../src/wire/icmp.js";
import type { UdpRepr } from "../../src/wire/udp.js";
import type { TcpOption, TcpRepr } from "../../src/wire/tcp.js";
import type { VxlanRepr } from "../../src/wire/vxlan.js";
import type { GeneveRepr } from "../../src/wire/geneve.js";
import type { SllRepr } from "../../src/wire/sll.js";

/** Records with an ordinary prototype, so assert.deepEqual can compare them with parsed Reprs. */
const rec = <T>(model: { [K in keyof T]: fc.Arbitrary<T[K]> }): fc.Arbitrary<T> => fc.record(model, { noNullPrototype: true });
const u8 = fc.integer({ min: 0, max: 0xff });
const u16 = fc.integer({ min: 0, max: 0xffff });
const u32 = fc.integer({ min: 0, max: 0xffffffff });
const mac = fc.integer({ min: 0, max: 0xffffffffffff });
const bytesOfLength = (n: number) => fc.uint8Array({ minLength: n, maxLength: n });
/** Byte arrays whose length is a multiple of `unit` (at most maxUnits units). */
const padded = (unit: number, maxUnits: number) =>
  fc.integer({ min: 0, max: maxUnits }).chain((n) => bytesOfLength(n * unit));

export const ethernetArb: fc.Arbitrary<EthernetRepr> = rec({ dst: mac, src: mac, etherType: u16 });

export const vlanArb: fc.Arbitrary<VlanRepr> = rec({
  pcp: fc.integer({ min: 0, max: 7 }),
  dei: fc.boolean(),
  vid: fc.integer({ min: 0, max: 4095 }),
  etherType: u16,
});

export const arpArb: fc.Arbitrary<ArpRepr> = rec({
  operation: u16,
  senderMac: mac,
  senderIp: u32,
  targetMac: mac,
  targetIp: u32,
});

/** Well-formed option lists (NOP, EOL, TLVs), padded to a multiple of 4 bytes with EOL. */
const ipv4OptionsArb = fc
  .array(
    fc.oneof(
      fc.constant(Uint8Array.of(1)),
      fc.tuple(fc.integer({ min: 2, max: 0xff }), fc.uint8Array({ maxLength: 6 })).map(([type, data]) =>
        Uint8Array.of(type, data.length + 2, ...data),
      ),
    ),
    { maxLength: 4 },
  )
  .map((parts) => {
    const flat = parts.flatMap((p) => Array.from(p)).slice(0, 40);
    const fits = Uint8Array.from(flat);
    const padLength = (4 - (fits.length % 4)) % 4;
    return Uint8Array.from([...fits, ...new Array<number>(padLength).fill(0)]);
  })
  .filter((o) => o.length <= 40 && wellFormedIpv4Options(o));

function wellFormedIpv4Options(o: Uint8Array): boolean {
  for (let i = 0; i < o.length; ) {
    const t = o[i]!;
    if (t === 0) return true;
    if (t === 1) {
      i++;
      continue;
    }
    const len = o[i + 1];
    if (len === undefined || len < 2 || i + len > o.length) return false;
    i += len;
  }
  return true;
}

export const ipv4Arb: fc.Arbitrary<Ipv4Repr> = fc
  .record({
    dscp: fc.integer({ min: 0, max: 63 }),
    ecn: fc.integer({ min: 0, max: 3 }),
    identification: u16,
    dontFragment: fc.boolean(),
    moreFragments: fc.boolean(),
    fragmentOffset: fc.integer({ min: 0, max: 0x1fff }).map((n) => n * 8),
    ttl: u8,
    protocol: u8,
    src: u32,
    dst: u32,
    options: ipv4OptionsArb,
    payloadLength: fc.integer({ min: 0, max: 1000 }),
  })
  .map(({ payloadLength, ...r }) => ({ ...r, checksum: 0, totalLength: 20 + r.options.length + payloadLength }));

const ipv6ExtensionArb: fc.Arbitrary<Ipv6ExtensionRepr> = fc.oneof(
  rec({ type: fc.constantFrom(43 as const, 60 as const), body: padded(8, 3).map((b) => Uint8Array.of(...b, 0, 0, 0, 0, 0, 0)) }),
  rec({ type: fc.constant(51 as const), body: padded(4, 6).map((b) => Uint8Array.of(...b, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)) }),
  rec({
    type: fc.constant(44 as const),
    fragmentOffset: fc.constant(0),
    moreFragments: fc.boolean(),
    identification: u32,
  }),
);

export const ipv6Arb: fc.Arbitrary<Ipv6Repr> = fc
  .record({
    trafficClass: u8,
    flowLabel: fc.integer({ min: 0, max: 0xfffff }),
    hopLimit: u8,
    src: bytesOfLength(16),
    dst: bytesOfLength(16),
    hopByHop: fc.option(padded(8, 2).map((b) => Uint8Array.of(...b, 1, 4, 0, 0, 0, 0)), { nil: undefined }),
    extensions: fc.array(ipv6ExtensionArb, { maxLength: 3 }),
    protocol: u8.filter((p) => ![0, 43, 44, 51, 60].includes(p)),
    upperLength: fc.integer({ min: 0, max: 200 }),
  })
  .map(({ hopByHop, extensions, upperLength, ...r }) => {
    const chain: Ipv6ExtensionRepr[] = hopByHop ? [{ type: 0, body: hopByHop }, ...extensions] : extensions;
    const extLength = chain.reduce((n, e) => n + (e.type === 44 ? 8 : 2 + e.body.length), 0);
    return { ...r, extensions: chain, payloadLength: extLength + upperLength };
  });

export const icmpArb: fc.Arbitrary<IcmpRepr> = rec({ type: u8, code: u8, checksum: u16, rest: u32 });

export const udpArb: fc.Arbitrary<UdpRepr> = rec({
  srcPort: u16,
  dstPort: u16,
  length: fc.integer({ min: 8, max: 0xffff }),
  checksum: u16,
});

const tcpOptionArb: fc.Arbitrary<TcpOption> = fc.oneof(
  fc.constant({ kind: "nop" } as const),
  rec({ kind: fc.constant("mss" as const), value: u16 }),
  rec({ kind: fc.constant("windowScale" as const), shift: u8 }),
  fc.constant({ kind: "sackPermitted" } as const),
  rec({
    kind: fc.constant("sack" as const),
    blocks: fc.array(rec({ left: u32, right: u32 }), { minLength: 1, maxLength: 3 }),
  }),
  rec({ kind: fc.constant("timestamps" as const), value: u32, echo: u32 }),
  rec({
    kind: fc.constant("unknown" as const),
    type: fc.integer({ min: 6, max: 0xff }).filter((t) => t !== 8),
    data: fc.uint8Array({ maxLength: 6 }),
  }),
);

/** Option lists that fit in 40 bytes; padded with NOPs to a multiple of 4 so the bytes round-trip. */
export const tcpArb: fc.Arbitrary<TcpRepr> = fc
  .record({
    srcPort: u16,
    dstPort: u16,
    seq: u32,
    ack: u32,
    flags: fc.integer({ min: 0, max: 0x1ff }),
    window: u16,
    checksum: u16,
    urgentPointer: u16,
    options: fc.array(tcpOptionArb, { maxLength: 5 }),
  })
  .map((r) => {
    const options: TcpOption[] = [];
    let length = 0;
    for (const o of r.options) {
      const l = o.kind === "nop" || o.kind === "eol" ? 1 : o.kind === "mss" ? 4 : o.kind === "windowScale" ? 3 : o.kind === "sackPermitted" ? 2 : o.kind === "sack" ? 2 + 8 * o.blocks.length : o.kind === "timestamps" ? 10 : 2 + o.data.length;
      if (length + l > 40) break;
      options.push(o);
      length += l;
    }
    while (length % 4 !== 0) {
      options.push({ kind: "nop" });
      length++;
    }
    return { ...r, options };
  });

export const vxlanArb: fc.Arbitrary<VxlanRepr> = rec({
  flags: u8.map((f) => f | 0x08),
  vni: fc.integer({ min: 0, max: 0xffffff }),
});

export const geneveArb: fc.Arbitrary<GeneveRepr> = rec({
  version: fc.constant(0),
  oam: fc.boolean(),
  critical: fc.boolean(),
  protocolType: u16,
  vni: fc.integer({ min: 0, max: 0xffffff }),
  options: fc.array(rec({ optionClass: u16, type: u8, data: padded(4, 4) }), { maxLength: 3 }),
});

export const sllArb: fc.Arbitrary<SllRepr> = rec({
  packetType: fc.integer({ min: 0, max: 4 }),
  arphrdType: u16,
  address: fc.uint8Array({ maxLength: 8 }),
  protocol: u16,
  interfaceIndex: fc.constant(0),
});

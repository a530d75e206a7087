// Test fixtures for datapath programs: a two-node address plan, packet builders on the wire emitters,
// a harness that runs a program on a ctx and copies the events it emits, and byte validators that check
// every checksum (IPv4 header, TCP/UDP/ICMP, SCTP CRC32c) of a frame, inside tunnels too.
import assert from "node:assert/strict";
import { SkBuff } from "../../../src/skb/skbuff.js";
import { parseIPv4 } from "../../../src/util/ip.js";
import { read16, read32 } from "../../../src/wire/bytes.js";
import {
  IPPROTO_ICMP,
  IPPROTO_TCP,
  IPPROTO_UDP,
  setL4ChecksumV4,
  verifyIpv4HeaderChecksum,
  verifyL4ChecksumV4,
} from "../../../src/wire/checksum.js";
import { emitEthernet, EtherType } from "../../../src/wire/ethernet.js";
import { ParsedHeaders, parseFrame, TunnelKind } from "../../../src/wire/headers.js";
import { emitIcmp, icmpEchoRest } from "../../../src/wire/icmp.js";
import { emitIpv4 } from "../../../src/wire/ipv4.js";
import { emitTcp } from "../../../src/wire/tcp.js";
import { emitUdp } from "../../../src/wire/udp.js";
import { crc32c } from "../../../src/wire/sctp.js";
import { DatapathCtx, type DatapathProgram, type Verdict } from "../../../datapath/ctx.js";
import { datapathConfig, type DatapathConfigInput } from "../../../datapath/lib/config.js";
import { createDatapathMaps, type DatapathMaps } from "../../../datapath/lib/maps.js";
import { PolicyMap } from "../../../datapath/maps/policy.js";

export const ip = (text: string): number => {
  const v = parseIPv4(text);
  if (v === null) throw new Error(`bad address ${text}`);
  return v;
};

// ---- address plan: two nodes on 10.1.8.0/24, pod CIDRs 10.224.1.0/24 (n1) and 10.224.2.0/24 (n2)
export const N1 = ip("10.1.8.31");
export const N2 = ip("10.1.8.32");
export const CLIENT = ip("10.1.8.100");
export const POD_A = ip("10.224.1.10");
export const POD_B = ip("10.224.1.20");
export const POD_C = ip("10.224.2.30");
export const VIP = ip("10.96.0.10");
export const ID_A = 1000;
export const ID_B = 1001;
export const ID_C = 1002;
export const IF_A = 11;
export const IF_B = 12;
export const IF_C = 21;
export const UPLINK = 2;
export const MAC_A = 0x0a5800000a0a;
export const MAC_B = 0x0a5800000a14;
export const MAC_C = 0x0a580000021e;
export const ROUTER_MAC = 0xeeeeeeeeeeee;
export const N1_MAC = 0x020000000831;
export const N2_MAC = 0x020000000832;
export const GW_MAC = 0x020000000802;
export const CLIENT_MAC = 0x020000000864;

export interface Node {
  readonly maps: DatapathMaps;
  readonly ctx: DatapathCtx;
  readonly policies: Map<number, PolicyMap>;
}

/** A node with ipcache (pods, nodes, world), tunnel map, FIB and the given local endpoints. */
export function makeNode(config: DatapathConfigInput, endpoints: readonly { ip: number; ifindex: number; id: number; identity: number; mac: number; policy?: boolean }[]): Node {
  const maps = createDatapathMaps({ ct: 1024, snat: 1024, lb: 1024, endpoints: 64, ipcache: 256, tunnel: 64, fib: 64 });
  const ctx = new DatapathCtx(maps, datapathConfig(config));
  const policies = new Map<number, PolicyMap>();
  for (const ep of endpoints) {
    const policy = ep.policy === false ? null : new PolicyMap(256);
    if (policy) policies.set(ep.ip, policy);
    assert.equal(maps.endpoints.upsert({ ip: ep.ip, ifindex: ep.ifindex, id: ep.id, identity: ep.identity, mac: ep.mac, policy }), 0);
  }
  const ipc = maps.ipcache;
  assert.equal(ipc.upsertV4(0, 0, 2, 0, 0), 0); // world
  assert.equal(ipc.upsertV4(POD_A, 32, ID_A, 0, 0), 0);
  assert.equal(ipc.upsertV4(POD_B, 32, ID_B, 0, 0), 0);
  assert.equal(ipc.upsertV4(POD_C, 32, ID_C, N2, 0), 0);
  const self = ctx.config.nodeIps[0]!;
  assert.equal(ipc.upsertV4(N1, 32, self === N1 ? 1 : 6, 0, 0), 0);
  assert.equal(ipc.upsertV4(N2, 32, self === N2 ? 1 : 6, 0, 0), 0);
  if (self === N1) assert.equal(maps.tunnel.upsertV4(ip("10.224.2.0"), 24, N2), 0);
  else assert.equal(maps.tunnel.upsertV4(ip("10.224.1.0"), 24, N1), 0);
  const ownMac = self === N1 ? N1_MAC : N2_MAC;
  assert.equal(maps.fib.upsertV4(ip("10.1.8.0"), 24, UPLINK, ownMac, CLIENT_MAC), 0);
  assert.equal(maps.fib.upsertV4(N1, 32, UPLINK, ownMac, N1_MAC), 0);
  assert.equal(maps.fib.upsertV4(N2, 32, UPLINK, ownMac, N2_MAC), 0);
  return { maps, ctx, policies };
}

export const node1 = (extra: Partial<DatapathConfigInput> = {}): Node =>
  makeNode({ nodeName: "n1", nodeIps: [N1], routerMac: ROUTER_MAC, ...extra }, [
    { ip: POD_A, ifindex: IF_A, id: 1, identity: ID_A, mac: MAC_A },
    { ip: POD_B, ifindex: IF_B, id: 2, identity: ID_B, mac: MAC_B },
  ]);

export const node2 = (extra: Partial<DatapathConfigInput> = {}): Node =>
  makeNode({ nodeName: "n2", nodeIps: [N2], routerMac: ROUTER_MAC, ...extra }, [
    { ip: POD_C, ifindex: IF_C, id: 3, identity: ID_C, mac: MAC_C },
  ]);

// ---- packets

export interface PacketSpec {
  src: number;
  dst: number;
  proto: number;
  sport?: number;
  dport?: number;
  tcpFlags?: number;
  icmpType?: number;
  icmpId?: number;
  ttl?: number;
  df?: boolean;
  payload?: number;
  srcMac?: number;
  dstMac?: number;
}

export const SYN = 0x02;
export const ACK = 0x10;
export const SYN_ACK = 0x12;
export const FIN_ACK = 0x11;
export const RST = 0x04;

/** An Ethernet + IPv4 + TCP/UDP/ICMP/SCTP frame with correct checksums. */
export function buildFrame(p: PacketSpec): Uint8Array {
  const payload = p.payload ?? 16;
  const l4Len = p.proto === IPPROTO_TCP ? 20 : p.proto === IPPROTO_UDP ? 8 : p.proto === 132 ? 12 + 16 : 8;
  const ipLen = 20 + l4Len + payload;
  const bytes = new Uint8Array(14 + ipLen);
  emitEthernet({ dst: p.dstMac ?? ROUTER_MAC, src: p.srcMac ?? MAC_A, etherType: EtherType.IPV4 }, bytes, 0);
  emitIpv4(
    {
      dscp: 0, ecn: 0, totalLength: ipLen, identification: 0x1234, dontFragment: p.df ?? true, moreFragments: false,
      fragmentOffset: 0, ttl: p.ttl ?? 64, protocol: p.proto, checksum: 0, src: p.src, dst: p.dst, options: new Uint8Array(0),
    },
    bytes,
    14,
  );
  const l4 = 34;
  for (let i = 0; i < payload; i++) bytes[l4 + l4Len + i] = (i * 7 + 3) & 0xff;
  if (p.proto === IPPROTO_TCP) {
    emitTcp({ srcPort: p.sport ?? 40000, dstPort: p.dport ?? 80, seq: 1000, ack: 0, flags: p.tcpFlags ?? SYN, window: 64240, checksum: 0, urgentPointer: 0, options: [] }, bytes, l4);
  } else if (p.proto === IPPROTO_UDP) {
    emitUdp({ srcPort: p.sport ?? 40000, dstPort: p.dport ?? 53, length: 8 + payload, checksum: 0 }, bytes, l4);
  } else if (p.proto === IPPROTO_ICMP) {
    emitIcmp({ type: p.icmpType ?? 8, code: 0, checksum: 0, rest: icmpEchoRest(p.icmpId ?? 77, 1) }, bytes, l4);
  } else if (p.proto === 132) {
    const dv = new DataView(bytes.buffer);
    dv.setUint16(l4, p.sport ?? 40000);
    dv.setUint16(l4 + 2, p.dport ?? 80);
    dv.setUint32(l4 + 4, 0xabcdef01);
    bytes[l4 + 12] = 1; // INIT chunk, 16 bytes
    dv.setUint16(l4 + 14, 16);
    const crc = crc32c(bytes, l4, l4 + l4Len + payload);
    dv.setUint32(l4 + 8, crc, true);
    return bytes;
  }
  setL4ChecksumV4(bytes, l4, l4Len + payload, p.proto, p.src, p.dst);
  return bytes;
}

let nextId = 1;
export function skbOf(bytes: Uint8Array): SkBuff {
  return SkBuff.fromBytes(nextId++, bytes);
}

// ---- running programs on a ctx

export interface EventCopy {
  kind: number;
  point: number;
  reason: number;
  site: string;
  srcIdentity: number;
  dstIdentity: number;
  xlate: number;
  detail: string;
  policy: { endpointId: number; endpointIp: number; direction: number; peerIp: number; peerIdentity: number; proto: number; port: number; verdict: number; ruleRef: number } | null;
  before: [number, number, number, number];
  after: [number, number, number, number];
}

export interface RunOptions {
  ifindex: number;
  now?: number;
  random?: number;
  l2?: boolean;
  devMac?: number;
}

/** Runs `program` on node's ctx for skb; returns the verdict and the events it emitted (copied). */
export function run(node: Node, program: DatapathProgram, skb: SkBuff, opts: RunOptions): { verdict: Verdict; events: EventCopy[] } {
  const ctx = node.ctx;
  const events: EventCopy[] = [];
  ctx.traceEnabled = true;
  ctx.emit = (e) =>
    events.push({
      kind: e.kind, point: e.point, reason: e.reason, site: e.site, srcIdentity: e.srcIdentity, dstIdentity: e.dstIdentity,
      xlate: e.xlate, detail: e.detail, policy: e.policy ? { ...e.policy } : null,
      before: [e.origSrc, e.origDst, e.origSrcPort, e.origDstPort], after: [e.src, e.dst, e.srcPort, e.dstPort],
    });
  ctx.begin(skb, opts.ifindex, opts.l2 ?? true, opts.devMac ?? ROUTER_MAC, opts.now ?? 1_000_000, opts.random ?? 12345);
  const verdict = program.run(ctx);
  return { verdict, events };
}

// ---- reading and validating bytes

export interface FrameView {
  src: number;
  dst: number;
  proto: number;
  sport: number;
  dport: number;
  ttl: number;
  srcMac: number;
  dstMac: number;
  tunnel: number;
  vni: number;
  udpSport: number;
  udpDport: number;
  innerOffset: number;
  hdr: ParsedHeaders;
}

/** Parses the frame at skb.head (outer headers). */
export function view(skb: SkBuff): FrameView {
  const hdr = new ParsedHeaders();
  const status = parseFrame(skb.data, skb.head, skb.tail, hdr);
  assert.equal(status, 0, `frame does not parse: ${hdr.errorLayer}.${hdr.errorField}`);
  const b = skb.data;
  return {
    src: hdr.src4, dst: hdr.dst4, proto: hdr.ipProto, sport: hdr.srcPort, dport: hdr.dstPort, ttl: hdr.ttl,
    dstMac: macAt(b, skb.head), srcMac: macAt(b, skb.head + 6), tunnel: hdr.tunnel, vni: hdr.vni,
    udpSport: hdr.srcPort, udpDport: hdr.dstPort, innerOffset: hdr.innerOffset, hdr,
  };
}

function macAt(b: Uint8Array, at: number): number {
  return read16(b, at) * 0x100000000 + read32(b, at + 2);
}

/** Asserts that every checksum of the IPv4 packet at l3 (and of a VXLAN/IPIP inner packet) is valid. */
export function assertChecksums(bytes: Uint8Array, start: number, end: number, l2 = true): void {
  const hdr = new ParsedHeaders();
  const status = l2 ? parseFrame(bytes, start, end, hdr) : 0;
  assert.equal(status, 0, "frame parses");
  if (hdr.ipVersion !== 4) return;
  const l3 = hdr.l3Offset;
  assert.ok(verifyIpv4HeaderChecksum(bytes, l3, hdr.ipHeaderLen), "IPv4 header checksum");
  const l4 = hdr.l4Offset;
  const l4Len = hdr.end - l4;
  if (hdr.ipProto === IPPROTO_TCP || hdr.ipProto === IPPROTO_UDP || hdr.ipProto === IPPROTO_ICMP) {
    assert.ok(verifyL4ChecksumV4(bytes, l4, l4Len, hdr.ipProto, hdr.src4, hdr.dst4), `L4 checksum (proto ${hdr.ipProto})`);
  } else if (hdr.ipProto === 132) {
    const stored = new DataView(bytes.buffer, bytes.byteOffset).getUint32(l4 + 8, true);
    const copy = bytes.slice(l4, hdr.end);
    copy.fill(0, 8, 12);
    assert.equal(crc32c(copy, 0, copy.length), stored, "SCTP CRC32c");
  }
  if (hdr.tunnel === TunnelKind.VXLAN) assertChecksums(bytes, hdr.innerOffset, hdr.end, true);
  if (hdr.tunnel === TunnelKind.IPIP) {
    const inner = bytes.slice(hdr.innerOffset - 14, hdr.end);
    inner[12] = 0x08;
    inner[13] = 0x00;
    assertChecksums(inner, 0, inner.length, true);
  }
}

export function assertSkbValid(skb: SkBuff): void {
  assertChecksums(skb.data, skb.head, skb.tail, true);
}

// Local delivery (ip_local_deliver): reassembly, the INPUT hook, then the protocol: ICMP (echo and
// timestamp answered by the stack, the rest to the ICMP listener), UDP (bound port, else ICMP port
// unreachable), TCP (listener, else a reset), registered protocol handlers, else protocol unreachable.

import type { SkBuff } from "../../skb/skbuff.js";
import { DropReason } from "../../../datapath/reasons.js";
import { read16, read32 } from "../../wire/bytes.js";
import { verifyChecksum } from "../../wire/checksum.js";
import { l4ChecksumGood } from "../../skb/l4-checksum.js";
import { DeliveryKind } from "../../trace/ledger.js";
import { NfHook, NfVerdict } from "../netfilter/hooks.js";
import type { NetDevice } from "../device.js";
import { buildIcmp, icmpSend, IcmpType, UnreachCode } from "./icmp-send.js";
import { NR_ICMP_TYPES } from "./icmp-ratelimit.js";
import { IPPROTO_ICMP, IPPROTO_TCP, IPPROTO_UDP, IP_MF, IP_OFFSET_MASK } from "./ip-packet.js";
import type { NetNamespace } from "./namespace.js";
import { PacketType, RouteFlag } from "./packet-context.js";
import { buildTcpReset, TCP_RST } from "./tcp-reset.js";

const IPPROTO_IGMP = 2;
const ICMP_ADDRESS = 17;
const ICMP_ADDRESS_REPLY = 18;
const MS_PER_DAY = 86_400_000;

/** ip_local_deliver for the packet at skb.head that routing found to be ours (or broadcast). */
export function localDeliver(ns: NetNamespace, skb: SkBuff, dev: NetDevice, pktType: number, routeFlags: number): void {
  let packet = skb;
  if ((read16(packet.data, packet.head + 6) & (IP_MF | IP_OFFSET_MASK)) !== 0) {
    const whole = ns.reassembler.add(packet, dev, pktType);
    if (whole === null) return;
    packet = whole;
  }
  // Since PREROUTING only routing ran, which writes no byte: netfilter may carry what that hook parsed
  // (hook-carry.ts). A reassembled datagram is a new packet.
  if (ns.netfilter.run(NfHook.INPUT, packet, dev, null, packet === skb) !== NfVerdict.ACCEPT) return;
  const proto = packet.data[packet.head + 9]!;
  if (proto === IPPROTO_TCP) {
    ns.counters.ip.InDelivers++;
    tcpReceive(ns, packet, dev, pktType, routeFlags);
  } else if (proto === IPPROTO_UDP) {
    ns.counters.ip.InDelivers++;
    udpReceive(ns, packet, dev, pktType, routeFlags);
  } else {
    deliverOther(ns, packet, dev, pktType, routeFlags, proto);
  }
}

/** Protocols but TCP and UDP: ICMP, IGMP, registered handlers (IPIP), else protocol unreachable. */
function deliverOther(ns: NetNamespace, packet: SkBuff, dev: NetDevice, pktType: number, routeFlags: number, proto: number): void {
  const counters = ns.counters.ip;
  switch (proto) {
    case IPPROTO_ICMP:
      counters.InDelivers++;
      icmpReceive(ns, packet, dev, routeFlags);
      return;
    case IPPROTO_IGMP:
      counters.InDelivers++;
      ns.world.ledger.deliver(DeliveryKind.STACK);
      return;
  }
  const handler = ns.sockets.protocols.get(proto);
  if (handler !== undefined) {
    counters.InDelivers++;
    ns.deliverToProtocol(handler, packet, dev);
    return;
  }
  counters.InUnknownProtos++;
  icmpSend(ns, packet, IcmpType.DEST_UNREACH, UnreachCode.PROTOCOL, 0, pktType, routeFlags, dev);
  ns.dropPacket(packet, dev, "local-in", DropReason.UNKNOWN_L4, "net/stack/local:no-protocol", `no handler for IP protocol ${proto}`);
}

function udpReceive(ns: NetNamespace, skb: SkBuff, dev: NetDevice, pktType: number, routeFlags: number): void {
  const b = skb.data;
  const ip = skb.head;
  const l4 = ip + (b[ip]! & 0x0f) * 4;
  const avail = skb.tail - l4;
  const ulen = avail >= 8 ? read16(b, l4 + 4) : 0;
  if (ulen > avail || ulen < 8) {
    udpMalformed(ns, skb, dev);
    return;
  }
  skb.tail = l4 + ulen;
  const dstPort = read16(b, l4 + 2);
  const binding = ns.sockets.udp.get(dstPort);
  if (binding === undefined && (routeFlags & (RouteFlag.BROADCAST | RouteFlag.MULTICAST)) !== 0) {
    udpIgnoredBroadcast(ns, skb, dev, dstPort);
    return;
  }
  // A GRO-merged super-packet's checksums were checked per segment (CHECKSUM_UNNECESSARY).
  if (skb.gsoSize === 0 && !l4ChecksumGood(skb, b, l4, ulen, IPPROTO_UDP, read32(b, ip + 12), read32(b, ip + 16))) {
    udpBadChecksum(ns, skb, dev);
    return;
  }
  if (binding === undefined) {
    udpNoSocket(ns, skb, dev, pktType, routeFlags, dstPort);
    return;
  }
  ns.counters.udp.InDatagrams++;
  ns.deliverToSocket(binding, skb, dev, read16(b, l4), dstPort);
}

/** A UDP header cut short or a length field that disagrees with the bytes present. */
function udpMalformed(ns: NetNamespace, skb: SkBuff, dev: NetDevice): void {
  const b = skb.data;
  const ip = skb.head;
  const l4 = ip + (b[ip]! & 0x0f) * 4;
  const counters = ns.counters.udp;
  const avail = skb.tail - l4;
  counters.InErrors++;
  if (avail < 8) {
    ns.dropPacket(skb, dev, "local-in", DropReason.INVALID_PACKET, "net/stack/udp:short", `udp.header at byte ${l4 - ip}: truncated, ${avail} bytes`);
    return;
  }
  const ulen = read16(b, l4 + 4);
  ns.dropPacket(skb, dev, "local-in", DropReason.INVALID_PACKET, "net/stack/udp:length", `udp.length at byte ${l4 - ip + 4}: ${ulen} with ${avail} bytes present`);
}

function udpIgnoredBroadcast(ns: NetNamespace, skb: SkBuff, dev: NetDevice, dstPort: number): void {
  ns.counters.udp.IgnoredMulti++;
  ns.dropPacket(skb, dev, "local-in", DropReason.IGNORED_BROADCAST, "net/stack/udp:no-socket-broadcast", `no socket on UDP port ${dstPort} for a broadcast datagram`);
}

function udpBadChecksum(ns: NetNamespace, skb: SkBuff, dev: NetDevice): void {
  const counters = ns.counters.udp;
  const ip = skb.head;
  const l4 = ip + (skb.data[ip]! & 0x0f) * 4;
  counters.InCsumErrors++;
  counters.InErrors++;
  ns.dropPacket(skb, dev, "local-in", DropReason.BAD_CHECKSUM, "net/stack/udp:checksum", `udp.checksum at byte ${l4 - ip + 6}: wrong`);
}

/** No socket on the port: ICMP port unreachable, and the drop. */
function udpNoSocket(ns: NetNamespace, skb: SkBuff, dev: NetDevice, pktType: number, routeFlags: number, dstPort: number): void {
  ns.counters.udp.NoPorts++;
  icmpSend(ns, skb, IcmpType.DEST_UNREACH, UnreachCode.PORT, 0, pktType, routeFlags, dev);
  ns.dropPacket(skb, dev, "local-in", DropReason.NOT_LISTENING, "net/stack/udp:no-socket", `no socket on UDP port ${dstPort}`);
}

function tcpReceive(ns: NetNamespace, skb: SkBuff, dev: NetDevice, pktType: number, routeFlags: number): void {
  if (pktType !== PacketType.HOST) {
    ns.dropPacket(skb, dev, "local-in", DropReason.NOT_FOR_HOST, "net/stack/tcp:not-host", "TCP segment in a link-layer broadcast/multicast frame");
    return;
  }
  const b = skb.data;
  const ip = skb.head;
  const l4 = ip + (b[ip]! & 0x0f) * 4;
  const counters = ns.counters.tcp;
  counters.InSegs++;
  const avail = skb.tail - l4;
  const doff = avail >= 20 ? (b[l4 + 12]! >>> 4) * 4 : 0;
  if (avail < 20 || doff < 20 || doff > avail) {
    tcpMalformed(ns, skb, dev, l4, avail, doff);
    return;
  }
  if (skb.gsoSize === 0 && !l4ChecksumGood(skb, b, l4, avail, IPPROTO_TCP, read32(b, ip + 12), read32(b, ip + 16))) {
    counters.InCsumErrors++;
    counters.InErrs++;
    ns.dropPacket(skb, dev, "local-in", DropReason.BAD_CHECKSUM, "net/stack/tcp:checksum", `tcp.checksum at byte ${l4 - ip + 16}: wrong`);
    return;
  }
  const dstPort = read16(b, l4 + 2);
  const binding = ns.sockets.tcp.get(dstPort);
  if (binding !== undefined) ns.deliverToSocket(binding, skb, dev, read16(b, l4), dstPort);
  else tcpNoListener(ns, skb, dev, routeFlags, l4, dstPort);
}

function tcpMalformed(ns: NetNamespace, skb: SkBuff, dev: NetDevice, l4: number, avail: number, doff: number): void {
  if (avail >= 20 && doff < 20) ns.counters.tcp.InErrs++;
  ns.dropPacket(skb, dev, "local-in", DropReason.INVALID_PACKET, "net/stack/tcp:header", `tcp.dataOffset at byte ${l4 - skb.head + 12}: ${doff} with ${avail} bytes present`);
}

/** No listener on the port: a reset unless the segment is one or arrived by broadcast, and the drop. */
function tcpNoListener(ns: NetNamespace, skb: SkBuff, dev: NetDevice, routeFlags: number, l4: number, dstPort: number): void {
  const counters = ns.counters.tcp;
  const ip = skb.head;
  if ((skb.data[l4 + 13]! & TCP_RST) === 0 && (routeFlags & (RouteFlag.LOCAL | RouteFlag.BROADCAST)) === RouteFlag.LOCAL) {
    const rst = buildTcpReset(ns.world, skb, ip, l4, ns.sysctl.ipDefaultTtl);
    counters.OutSegs++;
    counters.OutRsts++;
    ns.outputIp(rst);
  }
  ns.dropPacket(skb, dev, "local-in", DropReason.NOT_LISTENING, "net/stack/tcp:no-socket", `no listener on TCP port ${dstPort}`);
}

function icmpReceive(ns: NetNamespace, skb: SkBuff, dev: NetDevice, routeFlags: number): void {
  const b = skb.data;
  const ip = skb.head;
  const l4 = ip + (b[ip]! & 0x0f) * 4;
  const counters = ns.counters.icmp;
  counters.InMsgs++;
  const len = skb.tail - l4;
  if (!verifyChecksum(b, l4, skb.tail)) {
    counters.InCsumErrors++;
    counters.InErrors++;
    ns.dropPacket(skb, dev, "local-in", DropReason.BAD_CHECKSUM, "net/stack/icmp:checksum", `icmp.checksum at byte ${l4 - ip + 2}: wrong`);
    return;
  }
  if (len < 8) {
    counters.InErrors++;
    ns.dropPacket(skb, dev, "local-in", DropReason.INVALID_PACKET, "net/stack/icmp:short", `icmp.header at byte ${l4 - ip}: ${len} bytes`);
    return;
  }
  const type = b[l4]!;
  ns.counters.icmpInType[type]!++;
  if ((routeFlags & (RouteFlag.BROADCAST | RouteFlag.MULTICAST)) !== 0) {
    const query = type === IcmpType.ECHO || type === IcmpType.TIMESTAMP;
    if ((query && ns.sysctl.icmpEchoIgnoreBroadcasts) || (!query && type !== ICMP_ADDRESS && type !== ICMP_ADDRESS_REPLY)) {
      counters.InErrors++;
      ns.dropPacket(skb, dev, "local-in", DropReason.IGNORED_BROADCAST, "net/stack/icmp:broadcast", `ICMP type ${type} to a broadcast address ignored (icmp_echo_ignore_broadcasts)`);
      return;
    }
  }
  if (type > NR_ICMP_TYPES) {
    counters.InErrors++;
    ns.dropPacket(skb, dev, "local-in", DropReason.UNKNOWN_ICMP4_TYPE, "net/stack/icmp:type", `icmp.type at byte ${l4 - ip}: ${type}`);
    return;
  }
  if (type === IcmpType.ECHO) {
    if (!ns.sysctl.icmpEchoIgnoreAll) answerQuery(ns, skb, routeFlags, IcmpType.ECHO_REPLY, l4 + 8, len - 8);
    ns.world.ledger.deliver(DeliveryKind.STACK);
    return;
  }
  if (type === IcmpType.TIMESTAMP) {
    if (len < 12) {
      counters.InErrors++;
      ns.dropPacket(skb, dev, "local-in", DropReason.INVALID_PACKET, "net/stack/icmp:timestamp", "ICMP timestamp request without an originate timestamp");
      return;
    }
    answerQuery(ns, skb, routeFlags, IcmpType.TIMESTAMP_REPLY, l4 + 8, 4);
    ns.world.ledger.deliver(DeliveryKind.STACK);
    return;
  }
  const listener = ns.sockets.icmp;
  if (listener === null) {
    ns.world.ledger.deliver(DeliveryKind.STACK);
    return;
  }
  ns.deliverToSocket({ handler: listener, mode: "socket" }, skb, dev, 0, 0);
}

/**
 * icmp_reply for an echo or timestamp request: same ICMP code and rest-of-header (id/sequence), the
 * request's TOS, from the address it was sent to (for a broadcast, the source the route back chooses).
 * Echo replies carry the request's data; timestamp replies originate/receive/transmit times.
 */
function answerQuery(ns: NetNamespace, skb: SkBuff, routeFlags: number, replyType: number, data: number, dataLen: number): void {
  const b = skb.data;
  const ip = skb.head;
  const l4 = data - 8;
  const requester = read32(b, ip + 12);
  const back = ns.routes.lookup(requester);
  if (back === null) return;
  const unicast = (routeFlags & (RouteFlag.LOCAL | RouteFlag.BROADCAST | RouteFlag.MULTICAST)) === RouteFlag.LOCAL;
  const src = unicast ? read32(b, ip + 16) : ns.routeSource(back, requester);
  let body = b;
  let start = data;
  let len = dataLen;
  if (replyType === IcmpType.TIMESTAMP_REPLY) {
    const stamp = Math.floor(ns.world.sim.now / 1e6) % MS_PER_DAY;
    body = new Uint8Array(12);
    body.set(b.subarray(data, data + 4), 0);
    for (const at of [4, 8]) {
      body[at] = (stamp >>> 24) & 0xff;
      body[at + 1] = (stamp >>> 16) & 0xff;
      body[at + 2] = (stamp >>> 8) & 0xff;
      body[at + 3] = stamp & 0xff;
    }
    start = 0;
    len = 12;
  }
  const reply = buildIcmp(ns, src, requester, b[ip + 1]!, replyType, b[l4 + 1]!, read32(b, l4 + 4), body, start, len);
  ns.outputIp(reply);
}

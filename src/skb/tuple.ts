// The flow tuple of a packet as trace and drop records show it: outer IPv4 addresses,
// protocol and ports (for ICMP: the echo id and the ICMP type), read with the fast parser.

import { ParsedHeaders, parseFrame, parseIp } from "../wire/headers.js";
import type { SkBuff } from "./skbuff.js";

/** A flow's addresses and ports at one point of its way (IPv4 as u32; 0 where absent). */
export interface Tuple {
  readonly src: number;
  readonly dst: number;
  readonly srcPort: number;
  readonly dstPort: number;
  readonly proto: number;
}

const scratch = new ParsedHeaders();
const IPPROTO_ICMP = 1;

/** Reads the tuple; a packet that does not parse as IPv4 gives zeros (the record still names the packet id). */
export function packetTuple(skb: SkBuff, l2: boolean): Tuple {
  const status = l2
    ? parseFrame(skb.data, skb.head, skb.tail, scratch)
    : parseIp(skb.data, skb.head, skb.tail, scratch);
  if (scratch.ipVersion !== 4 && status !== 0) return { src: 0, dst: 0, srcPort: 0, dstPort: 0, proto: 0 };
  if (scratch.ipProto === IPPROTO_ICMP) {
    return { src: scratch.src4, dst: scratch.dst4, srcPort: scratch.icmpId, dstPort: scratch.icmpType, proto: IPPROTO_ICMP };
  }
  return { src: scratch.src4, dst: scratch.dst4, srcPort: scratch.srcPort, dstPort: scratch.dstPort, proto: scratch.ipProto };
}

// GSO super-packets for the header-walk tests: a bare IPv4 + TCP super-packet and the IPIP
// encapsulation of one (only the header fields the walks read are set).

import { writeIpv4HeaderUnsummed } from "../../../src/net/stack/ip-packet.js";
import { GsoType, SkBuff } from "../../../src/skb/skbuff.js";

export const GSO_SIZE = 1000;

/** IPv4 (20 bytes) + TCP with 12 bytes of options + payload, head at the IPv4 header. */
export function tcpSuperPacket(payload: number, headroom = 128, id = 1): SkBuff {
  const b = new Uint8Array(20 + 32 + payload);
  writeIpv4HeaderUnsummed(b, 0, 0, b.length, 0, 0x4000, 64, 6, 0, 0);
  b[20 + 12] = 8 << 4; // TCP data offset: 32 bytes
  const skb = SkBuff.fromBytes(id, b, headroom);
  skb.gsoSize = GSO_SIZE;
  skb.gsoSegs = Math.ceil(payload / GSO_SIZE);
  skb.gsoType = GsoType.TCPV4;
  return skb;
}

/** Puts an outer IPv4 header with protocol IPIP in front (what an IPIP tunnel does). */
export function encapIpip(skb: SkBuff): void {
  const at = skb.push(20);
  skb.data.fill(0, at, at + 20);
  skb.data[at] = 0x45;
  skb.data[at + 9] = 4;
  skb.gsoType |= GsoType.IPXIP4;
}

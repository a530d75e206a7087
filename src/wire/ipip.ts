// IP-in-IP encapsulation (RFC 2003; Calico's and Linux tunl0's IPIP): an IPv4 header with protocol 4
// directly in front of the inner IPv4 datagram (protocol 41 carries IPv6: 6in4). Constants and helpers.
import { IPV4_MIN_HEADER_LENGTH, type Ipv4Repr } from "./ipv4.js";

export const IPPROTO_IPIP = 4;
export const IPPROTO_IPV6 = 41;

/** Bytes IPIP adds in front of a packet: one option-less outer IPv4 header. */
export const IPIP_OVERHEAD = IPV4_MIN_HEADER_LENGTH;

/** True when an IP protocol number means "an IP packet follows". */
export function isIpInIp(protocol: number): boolean {
  return protocol === IPPROTO_IPIP || protocol === IPPROTO_IPV6;
}

/** The option-less outer header carrying an inner IPv4 datagram of innerLength bytes from src to dst. */
export function ipipOuterRepr(
  src: number,
  dst: number,
  innerLength: number,
  ttl: number,
  identification: number,
  dontFragment: boolean,
): Ipv4Repr {
  return {
    dscp: 0,
    ecn: 0,
    totalLength: IPIP_OVERHEAD + innerLength,
    identification,
    dontFragment,
    moreFragments: false,
    fragmentOffset: 0,
    ttl,
    protocol: IPPROTO_IPIP,
    checksum: 0,
    src,
    dst,
    options: new Uint8Array(0),
  };
}

// What IPv4 tunnels (VXLAN here, IPIP in ../ipip.ts) share, as net/ipv4/ip_tunnel_core.c and
// inet_ecn.h do it: ECN copied into the outer TOS on encapsulation, folded back into the inner header
// on decapsulation, and the outer IPv4 header iptunnel_xmit writes (no options, IHL 5).

import { setIpv4HeaderChecksum } from "../../wire/checksum.js";
import { writeIpv4HeaderUnsummed } from "../stack/ip-packet.js";

export const IPV4_HLEN = 20;
export const IP_DF = 0x4000;
const ECN_MASK = 3;
const ECN_CE = 3;
const ECN_ECT0 = 2;

/**
 * INET_ECN_encapsulate: the outer TOS keeps its DSCP, takes the inner packet's ECN field, except
 * that CE becomes ECT(0) (RFC 6040 normal mode). innerTos is 0 for non-IP payloads.
 */
export function ecnEncapsulate(outerTos: number, innerTos: number): number {
  const inner = innerTos & ECN_MASK;
  return (outerTos & ~ECN_MASK & 0xff) | (inner === ECN_CE ? ECN_ECT0 : inner);
}

/** INET_ECN_decapsulate's verdict: 0 keep as is, 1 keep (outer ECT on a non-ECT inner), 2 drop, 3 set CE. */
export const EcnDecap = { KEEP: 0, KEEP_LOG: 1, DROP: 2, SET_CE: 3 } as const;
export type EcnDecap = (typeof EcnDecap)[keyof typeof EcnDecap];

export function ecnDecapsulate(outerTos: number, innerTos: number): EcnDecap {
  const outer = outerTos & ECN_MASK;
  if ((innerTos & ECN_MASK) === 0) {
    if (outer === 0) return EcnDecap.KEEP;
    return outer === ECN_CE ? EcnDecap.DROP : EcnDecap.KEEP_LOG;
  }
  return outer === ECN_CE ? EcnDecap.SET_CE : EcnDecap.KEEP;
}

/** IP_ECN_set_ce on the IPv4 header at off: marks CE and refreshes the header checksum. */
export function setCe(bytes: Uint8Array, off: number): void {
  bytes[off + 1] = bytes[off + 1]! | ECN_CE;
  setIpv4HeaderChecksum(bytes, off, (bytes[off]! & 0x0f) * 4);
}

/**
 * The outer header iptunnel_xmit builds: version 4, IHL 5, frag_off = df. Its checksum is left to
 * ip_local_out (NetNamespace.outputIp), as in the kernel.
 */
export function writeOuterIpv4(
  bytes: Uint8Array,
  off: number,
  tos: number,
  totalLength: number,
  id: number,
  df: boolean,
  ttl: number,
  protocol: number,
  src: number,
  dst: number,
): void {
  writeIpv4HeaderUnsummed(bytes, off, tos, totalLength, id, df ? IP_DF : 0, ttl, protocol, src, dst);
}

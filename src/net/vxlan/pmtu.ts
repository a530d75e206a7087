// PMTU discovery for a VXLAN device that is a bridge port (skb_tunnel_check_pmtu with reply=true):
// nothing routes the inner frame, so when it no longer fits the underlay MTU minus the 50-byte
// overhead the tunnel itself answers with an ICMP fragmentation-needed, built as
// iptunnel_pmtud_build_icmp does (swapped MACs and addresses, TTL of the original, ID 0, DF,
// the original quoted up to 576 bytes), and receives it on the device so the bridge returns it.

import { DEFAULT_HEADROOM, SkBuff } from "../../skb/skbuff.js";
import { read16, read32, write16 } from "../../wire/bytes.js";
import { setL4ChecksumV4 } from "../../wire/checksum.js";
import { writeIpv4Header } from "../stack/ip-packet.js";
import { IPV4_HLEN, IP_DF } from "./ip-tunnel.js";

const ETH_HLEN = 14;
const ICMP_HLEN = 8;
const IPPROTO_ICMP = 1;
const ICMP_DEST_UNREACH = 3;
const ICMP_FRAG_NEEDED = 4;
/** icmp_is_err: destination unreachable, source quench, redirect, time exceeded, parameter problem. */
const ICMP_ERROR_TYPES = new Set([3, 4, 5, 11, 12]);

/**
 * iptunnel_pmtud_check_icmp: whether the inner IPv4 packet of the frame at skb.head earns an ICMP
 * reply (mtu >= 576, frag_off exactly DF, sane addresses, not itself an ICMP error).
 */
export function wantsFragNeeded(skb: SkBuff, mtu: number): boolean {
  const b = skb.data;
  const ip = skb.head + ETH_HLEN;
  if (mtu < 576 || skb.tail - ip < IPV4_HLEN || read16(b, skb.head + 12) !== 0x0800) return false;
  if (read16(b, ip + 6) !== IP_DF) return false;
  const src = read32(b, ip + 12);
  const dst = read32(b, ip + 16);
  const bad = (a: number): boolean => a === 0xffffffff || a >>> 28 === 0xe;
  if (bad(dst) || bad(src) || src >>> 24 === 0 || src >>> 24 === 127) return false;
  if (b[ip + 9] === IPPROTO_ICMP) {
    const l4 = ip + (b[ip]! & 0x0f) * 4;
    if (l4 >= skb.tail || ICMP_ERROR_TYPES.has(b[l4]!)) return false;
  }
  return true;
}

/** iptunnel_pmtud_build_icmp: the reply frame for the frame at skb.head, as a new packet with the given id. */
export function buildFragNeeded(skb: SkBuff, mtu: number, id: number): SkBuff {
  const b = skb.data;
  const ip = skb.head + ETH_HLEN;
  const quoted = Math.min(skb.tail - ip, 576 - IPV4_HLEN - ICMP_HLEN);
  const length = ETH_HLEN + IPV4_HLEN + ICMP_HLEN + quoted;
  const data = new Uint8Array(DEFAULT_HEADROOM + length);
  const eth = DEFAULT_HEADROOM;
  data.set(b.subarray(skb.head + 6, skb.head + 12), eth);
  data.set(b.subarray(skb.head, skb.head + 6), eth + 6);
  write16(data, eth + 12, 0x0800);
  const nip = eth + ETH_HLEN;
  const icmp = nip + IPV4_HLEN;
  data[icmp] = ICMP_DEST_UNREACH;
  data[icmp + 1] = ICMP_FRAG_NEEDED;
  write16(data, icmp + 6, mtu);
  data.set(b.subarray(ip, ip + quoted), icmp + ICMP_HLEN);
  setL4ChecksumV4(data, icmp, ICMP_HLEN + quoted, IPPROTO_ICMP, 0, 0);
  writeIpv4Header(data, nip, 0, IPV4_HLEN + ICMP_HLEN + quoted, 0, IP_DF, b[ip + 8]!, IPPROTO_ICMP, read32(b, ip + 16), read32(b, ip + 12));
  return new SkBuff(id, data, eth, eth + length);
}

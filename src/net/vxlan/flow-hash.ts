// The outer UDP source port of a UDP tunnel (udp_flow_src_port): a hash of the inner flow scaled
// into [min, max) of the namespace's ephemeral range (32768-60999 by default, so 32768..60998).
// Like skb_get_hash the flow hash is symmetric (__flow_hash_consistentify orders the endpoints) and
// keyed by a per-host secret (the kernel's hashrnd is random per boot; here it is a seed), so both
// directions of a flow and all its packets share one port, and different flows spread.

import { read16, read32 } from "../../wire/bytes.js";

export const EPHEMERAL_PORT_MIN = 32768;
/** net.ipv4.ip_local_port_range high end; udp_flow_src_port never returns it (max is exclusive). */
export const EPHEMERAL_PORT_MAX = 60999;

const ETHERTYPE_IPV4 = 0x0800;
const IPPROTO_ICMP = 1;
const IPPROTO_TCP = 6;
const IPPROTO_UDP = 17;
const IPPROTO_SCTP = 132;

function mix(h: number, k: number): number {
  k = Math.imul(k, 0xcc9e2d51);
  k = (k << 15) | (k >>> 17);
  k = Math.imul(k, 0x1b873593);
  h ^= k;
  h = (h << 13) | (h >>> 19);
  return (Math.imul(h, 5) + 0xe6546b64) | 0;
}

function finish(h: number): number {
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

/**
 * What skb_get_hash of a frame depends on: for IPv4, the protocol, the ordered address pair (a <= b)
 * and the port word ordered with them; for anything else proto is -1 and a holds the EtherType.
 */
export class FlowKey {
  proto = -1;
  a = 0;
  b = 0;
  ports = 0;
}

/**
 * Reads the flow key of the Ethernet frame at bytes[off, end): for IPv4, the protocol, addresses and
 * (TCP/UDP/SCTP) ports or (ICMP) echo id, ordered as __flow_hash_consistentify does; otherwise the
 * EtherType alone.
 */
export function readFlowKey(bytes: Uint8Array, off: number, end: number, key: FlowKey): void {
  const etherType = end - off >= 14 ? read16(bytes, off + 12) : 0;
  const ip = off + 14;
  if (etherType === ETHERTYPE_IPV4 && end - ip >= 20 && bytes[ip]! >>> 4 === 4) {
    const ihl = (bytes[ip]! & 0x0f) * 4;
    const proto = bytes[ip + 9]!;
    const src = read32(bytes, ip + 12);
    const dst = read32(bytes, ip + 16);
    const l4 = ip + ihl;
    const firstFragment = (read16(bytes, ip + 6) & 0x1fff) === 0;
    let sport = 0;
    let dport = 0;
    if (firstFragment && end - l4 >= 4 && (proto === IPPROTO_TCP || proto === IPPROTO_UDP || proto === IPPROTO_SCTP)) {
      sport = read16(bytes, l4);
      dport = read16(bytes, l4 + 2);
    } else if (firstFragment && end - l4 >= 8 && proto === IPPROTO_ICMP) {
      sport = dport = read16(bytes, l4 + 4);
    }
    const swap = src > dst || (src === dst && sport > dport);
    key.proto = proto;
    key.a = swap ? dst : src;
    key.b = swap ? src : dst;
    key.ports = swap ? ((dport << 16) | sport) >>> 0 : ((sport << 16) | dport) >>> 0;
  } else {
    key.proto = -1;
    key.a = etherType;
    key.b = 0;
    key.ports = 0;
  }
}

/** skb_get_hash of a flow key, keyed by seed (the per-host secret). Never 0 (the kernel maps 0 to 1). */
export function hashFlowKey(key: FlowKey, seed: number): number {
  let h = mix(seed | 0, key.proto < 0 ? key.a : ETHERTYPE_IPV4);
  if (key.proto >= 0) {
    h = mix(h, key.proto);
    h = mix(h, key.a);
    h = mix(h, key.b);
    h = mix(h, key.ports);
  }
  const out = finish(h);
  return out === 0 ? 1 : out;
}

const scratchKey = new FlowKey();

/** skb_get_hash of the Ethernet frame at bytes[off, end) (see readFlowKey). Never 0. */
export function innerFlowHash(bytes: Uint8Array, off: number, end: number, seed: number): number {
  readFlowKey(bytes, off, end, scratchKey);
  return hashFlowKey(scratchKey, seed);
}

/** udp_flow_src_port's scaling: hash ^= hash << 16, then ((u64)hash * (max - min)) >> 32, + min. */
export function srcPortFromHash(hash: number, min = EPHEMERAL_PORT_MIN, max = EPHEMERAL_PORT_MAX): number {
  const h = (hash ^ (hash << 16)) >>> 0;
  return Math.floor((h * (max - min)) / 0x100000000) + min;
}

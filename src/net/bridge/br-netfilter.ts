// br_netfilter for the bridge: IPv4 frames being bridged pass iptables PREROUTING, FORWARD and
// POSTROUTING of the bridge's namespace when net.bridge.bridge-nf-call-iptables is on. As the
// kernel does, the hooks see the bridge device as in/out interface (`-i cni0 -o cni0`), the frame is
// checked like br_validate_ipv4 (and trimmed to the IP total length) and the L2 header is pulled
// around each hook.

import { DropReason } from "../../../datapath/reasons.js";
import type { SkBuff } from "../../skb/skbuff.js";
import { read16, read32 } from "../../wire/bytes.js";
import { verifyIpv4HeaderChecksum } from "../../wire/checksum.js";
import { NfHook, NfVerdict } from "../netfilter/hooks.js";
import type { NetDevice } from "../device.js";
import type { NetNamespace } from "../stack/namespace.js";

export const ETH_HLEN = 14;
export const ETHERTYPE_IPV4 = 0x0800;

/** The namespace whose iptables bridged IPv4 frames traverse, or null when br_netfilter is off. */
export function brNetfilterHost(ns: NetNamespace | null): NetNamespace | null {
  return ns !== null && ns.sysctl.bridgeNfCallIptables ? ns : null;
}

/** True for an untagged IPv4 frame (IS_IP; VLAN-tagged frames need bridge-nf-filter-vlan-tagged, off by default). */
export function isIpv4Frame(skb: SkBuff): boolean {
  return skb.length >= ETH_HLEN + 20 && read16(skb.data, skb.head + 12) === ETHERTYPE_IPV4;
}

/**
 * br_validate_ipv4 on the frame at skb.head: version, IHL, header checksum and total length; trims
 * Ethernet padding. Returns 0 when valid, else a DropReason (the caller records the drop).
 */
export function validateIpv4(skb: SkBuff): number {
  const b = skb.data;
  const ip = skb.head + ETH_HLEN;
  const avail = skb.tail - ip;
  const ihl = (b[ip]! & 0x0f) * 4;
  if (b[ip]! >>> 4 !== 4 || ihl < 20 || ihl > avail) return DropReason.INVALID_PACKET;
  if (!verifyIpv4HeaderChecksum(b, ip, ihl)) return DropReason.BAD_CHECKSUM;
  const total = read16(b, ip + 2);
  if (total > avail || total < ihl) return DropReason.INVALID_PACKET;
  skb.trim(ETH_HLEN + total);
  return 0;
}

/** iptables PREROUTING for a bridged frame (in = the bridge). Returns NfVerdict. */
export function bridgePrerouting(ns: NetNamespace, bridge: NetDevice, skb: SkBuff): number {
  skb.pull(ETH_HLEN);
  const v = ns.netfilter.run(NfHook.PREROUTING, skb, bridge, null);
  skb.push(ETH_HLEN);
  return v;
}

/** iptables FORWARD then POSTROUTING for one outgoing copy (in = out = the bridge). Returns NfVerdict. */
export function bridgeForwardHooks(ns: NetNamespace, bridge: NetDevice, skb: SkBuff): number {
  skb.pull(ETH_HLEN);
  let v = ns.netfilter.run(NfHook.FORWARD, skb, bridge, bridge);
  if (v === NfVerdict.ACCEPT) v = ns.netfilter.run(NfHook.POSTROUTING, skb, null, bridge);
  skb.push(ETH_HLEN);
  return v;
}

/** The IPv4 destination of the frame at skb.head. */
export function frameIpv4Dst(skb: SkBuff): number {
  return read32(skb.data, skb.head + ETH_HLEN + 16);
}
